import { createHash, randomBytes } from 'node:crypto'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Upload } from 'tus-js-client'
import type { FileItem } from '../../../server/api/files/repository.ts'
import { buildStack, LogCapture, signedInTab, waitUntil, within } from '../../helpers.ts'
import { startSentrySink } from '../../sentry-sink.ts'

// Resumable uploads through the BFF: the tus requests reach the API streaming, with
// the protocol's headers both ways and the BFF's anti-forgery rule on every write; Location is a
// same-origin path the browser continues at. Driven with inject, then by tus-js-client — the
// browser's client, here over Node's HTTP — against the BFF listening on loopback.

const MiB = 1024 * 1024
const tracker = await startSentrySink()
t.teardown(() => tracker.close())
const bffLogs = new LogCapture()
const apiLogs = new LogCapture()
const stack = await buildStack(t, { auth: true, bffLogStream: bffLogs, apiLogStream: apiLogs, coreLogStream: new LogCapture(), env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'info', SENTRY_DSN: tracker.dsn() } })
await stack.bff.listen({ host: '127.0.0.1', port: 0 })
const bffPort = (stack.bff.server.address() as AddressInfo).port
const bffUrl = `http://127.0.0.1:${bffPort}`
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')

type Tab = Awaited<ReturnType<typeof signedInTab>>

function tusCall(tab: Tab, method: 'POST' | 'HEAD' | 'PATCH' | 'DELETE' | 'OPTIONS', url: string, headers: Record<string, string> = {}, payload?: Buffer) {
  return stack.bff.inject({
    method,
    url,
    headers: { cookie: tab.jar.header(url), rid: 'anti-csrf', origin: 'http://localhost:3000', 'tus-resumable': '1.0.0', ...headers },
    ...(payload ? { payload } : {}),
  })
}

async function listRoot(tab: Tab) {
  return (await tab.get('/api/files')).json() as { items: FileItem[]; usage: { used: number } }
}

t.test('a 20 MiB upload in chunks through the BFF, resumed after a HEAD; writes need the anti-forgery header', async (t) => {
  const tab = await signedInTab(stack, 'bff-uploader@example.com')
  const bytes = randomBytes(20 * MiB)

  const options = await tusCall(tab, 'OPTIONS', '/api/files/uploads')
  t.equal(options.statusCode, 204)
  t.equal(options.headers['tus-version'], '1.0.0')
  t.match(options.headers['tus-extension'], /creation.*termination.*expiration/)
  t.ok(options.headers['tus-max-size'])

  const forged = await tusCall(tab, 'POST', '/api/files/uploads', { rid: '', 'upload-length': String(bytes.length), 'upload-metadata': `filename ${b64('x.bin')}` })
  t.equal(forged.statusCode, 403, 'a creation without the rid header')
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')

  const creation = await tusCall(tab, 'POST', '/api/files/uploads', { 'upload-length': String(bytes.length), 'upload-metadata': `filename ${b64('big.bin')}` })
  t.equal(creation.statusCode, 201)
  const location = creation.headers.location as string
  t.match(location, /^\/api\/files\/uploads\/[A-Za-z0-9_-]{22}$/, 'Location is the same-origin path, usable as it is')
  t.equal(creation.headers['tus-resumable'], '1.0.0')
  t.ok(creation.headers['upload-expires'])

  const chunk = 4 * MiB
  let offset = 0
  for (let i = 0; i < 2; i += 1) {
    const answer = await tusCall(tab, 'PATCH', location, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, bytes.subarray(offset, offset + chunk))
    t.equal(answer.statusCode, 204)
    offset += chunk
    t.equal(answer.headers['upload-offset'], String(offset))
  }
  const forgedPatch = await tusCall(tab, 'PATCH', location, { rid: '', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, bytes.subarray(offset, offset + chunk))
  t.equal(forgedPatch.statusCode, 403, 'a PATCH without the rid header')
  t.equal(forgedPatch.json().code, 'BFF_CSRF_REJECTED')
  const stale = await tusCall(tab, 'PATCH', location, { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, bytes.subarray(0, 10))
  t.equal(stale.statusCode, 409, 'our JSON error, through the BFF')
  t.equal(stale.json().code, 'FILES_UPLOAD_OFFSET_MISMATCH')

  // The page reloads: the client asks where the upload stands and goes on from there.
  const resumed = await tusCall(tab, 'HEAD', location)
  t.equal(resumed.statusCode, 200)
  t.equal(resumed.headers['upload-offset'], String(offset), 'nothing from the refused writes')
  t.equal(resumed.headers['upload-length'], String(bytes.length))
  t.equal(resumed.headers['upload-metadata'], `filename ${b64('big.bin')}`)
  t.ok(resumed.headers['upload-expires'])
  while (offset < bytes.length) {
    const answer = await tusCall(tab, 'PATCH', location, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, bytes.subarray(offset, offset + chunk))
    t.equal(answer.statusCode, 204)
    offset = Number(answer.headers['upload-offset'])
  }
  const { items } = await listRoot(tab)
  t.match(items, [{ name: 'big.bin', size: bytes.length }])
  const download = await tab.get(`/api/files/${items[0]!.id}/content`)
  t.equal(sha256(download.rawPayload), sha256(bytes), 'the same 20 MiB')

  const other = await tusCall(tab, 'POST', '/api/files/uploads', { 'upload-length': '10', 'upload-metadata': `filename ${b64('gone.txt')}` })
  const forgedDelete = await tusCall(tab, 'DELETE', other.headers.location as string, { rid: '' })
  t.equal(forgedDelete.statusCode, 403, 'a termination without the rid header')
  t.equal((await tusCall(tab, 'DELETE', other.headers.location as string)).statusCode, 204)
  t.equal((await tusCall(tab, 'HEAD', other.headers.location as string)).statusCode, 404)
})

t.test('tus-js-client, the browser\'s client, uploads through the BFF over HTTP and resumes an interrupted upload', async (t) => {
  const tab = await signedInTab(stack, 'tus-client@example.com')
  const bytes = randomBytes(3 * MiB + 123)
  const common = {
    endpoint: `${bffUrl}/api/files/uploads`,
    chunkSize: MiB,
    retryDelays: [],
    metadata: { filename: 'client.bin', relativePath: 'Dropped/client.bin' },
    headers: { rid: 'anti-csrf', cookie: tab.jar.header('/api/files/uploads') },
  }

  // Stopped after its first chunk, as a tab closed mid-upload.
  let url: string | null = null
  await within(
    new Promise<void>((resolve, reject) => {
      const first = new Upload(bytes, {
        ...common,
        onError: reject,
        onChunkComplete: () => {
          url = first.url
          void first.abort().then(resolve)
        },
      })
      first.start()
    }),
  )
  t.match(url, new RegExp(`^${bffUrl}/api/files/uploads/[A-Za-z0-9_-]{22}$`), 'the relative Location resolved against the BFF')
  const head = await stack.bff.inject({ method: 'HEAD', url: new URL(url!).pathname, headers: { cookie: tab.jar.header('/api'), 'tus-resumable': '1.0.0' } })
  t.equal(head.headers['upload-offset'], String(MiB), 'one chunk stored')

  const sent: number[] = []
  await within(
    new Promise<void>((resolve, reject) => {
      const second = new Upload(bytes, {
        ...common,
        uploadUrl: url,
        onError: reject,
        onProgress: (bytesSent) => sent.push(bytesSent),
        onSuccess: () => resolve(),
      })
      second.start()
    }),
  )
  t.ok(sent.every((value) => value >= MiB), 'continued from the last stored byte, not from zero')
  const folder = (await listRoot(tab)).items.find((item) => item.name === 'Dropped')!
  const inside = (await tab.get(`/api/files?folder=${folder.id}`)).json() as { items: FileItem[] }
  t.match(inside.items, [{ name: 'client.bin', size: bytes.length }])
  t.equal(sha256((await tab.get(`/api/files/${inside.items[0]!.id}/content`)).rawPayload), sha256(bytes))
})

interface LogLine {
  level: number
  reqId?: string
  msg?: string
  event?: string
  req?: { method?: string; url?: string }
  res?: { statusCode?: number }
}
const linesOf = (logs: LogCapture) => logs.lines.map((line) => JSON.parse(line) as LogLine)

t.test('a client that goes away in the middle of a PATCH is an info line, not a server error; the upload resumes from its offset', async (t) => {
  // Every interrupted PATCH was logged at level 50 ("request failed", 502
  // BFF_UPSTREAM_BAD_RESPONSE) and counted as the API's failure.
  const tab = await signedInTab(stack, 'tus-gone@example.com')
  const bytes = randomBytes(3 * MiB)
  const creation = await tusCall(tab, 'POST', '/api/files/uploads', { 'upload-length': String(bytes.length), 'upload-metadata': `filename ${b64('gone.bin')}` })
  t.equal(creation.statusCode, 201)
  const location = creation.headers.location as string

  // A tab closed mid-upload: the PATCH's headers and part of its body, then the connection is gone.
  const socket = net.connect(bffPort, '127.0.0.1')
  socket.on('error', () => {})
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  const head = [
    `PATCH ${location} HTTP/1.1`,
    'Host: localhost:3000',
    `Cookie: ${tab.jar.header(location)}`,
    'rid: anti-csrf',
    'Origin: http://localhost:3000',
    'Tus-Resumable: 1.0.0',
    'Upload-Offset: 0',
    'Content-Type: application/offset+octet-stream',
    `Content-Length: ${bytes.length}`,
  ].join('\r\n')
  await new Promise<void>((resolve) => socket.write(`${head}\r\n\r\n`, () => resolve()))
  await new Promise<void>((resolve) => socket.write(bytes.subarray(0, MiB), () => resolve()))
  // The PATCH is under way at the API before the client goes.
  await waitUntil(() => linesOf(apiLogs).some((line) => line.req?.method === 'PATCH' && line.req.url === location))
  socket.destroy()

  const patch = linesOf(bffLogs).find((line) => line.req?.method === 'PATCH' && line.req.url === location)!
  t.ok(patch, 'the BFF saw the PATCH')
  const ofPatch = () => linesOf(bffLogs).filter((line) => line.reqId === patch.reqId)
  // Whatever the BFF makes of it, it says so in a line of this request's.
  await waitUntil(() => ofPatch().some((line) => line.event === 'client-gone' || line.msg === 'request completed' || line.level >= 40))
  t.same(ofPatch().filter((line) => line.level >= 40), [], 'no warning or error line for it')
  t.ok(ofPatch().some((line) => line.level === 30 && line.event === 'client-gone'), 'an info line says the client went away')
  t.notOk(ofPatch().some((line) => line.res?.statusCode === 502), 'not answered as an upstream failure')
  t.same(linesOf(apiLogs).filter((line) => line.level >= 50), [], 'no error line in the API either')
  await stack.bff.errorReporter!.flush()
  await stack.api.errorReporter!.flush()
  t.equal(tracker.events().length, 0, 'no error report')
  const metrics = await stack.bff.inject({ url: '/metrics', headers: { authorization: `Bearer ${stack.operatorToken}` } })
  t.notMatch(metrics.body, /softshelf_http_requests_total\{[^}]*status="502"/, 'no 502 counted')

  // The upload goes on from what arrived.
  const resumed = await tusCall(tab, 'HEAD', location)
  t.equal(resumed.statusCode, 200)
  const offset = Number(resumed.headers['upload-offset'])
  t.ok(offset >= 0 && offset <= MiB, `the offset is what arrived (${offset})`)
  const rest = await tusCall(tab, 'PATCH', location, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, bytes.subarray(offset))
  t.equal(rest.statusCode, 204)
  t.equal(rest.headers['upload-offset'], String(bytes.length))
  const item = (await listRoot(tab)).items.find((entry) => entry.name === 'gone.bin')!
  t.equal(sha256((await tab.get(`/api/files/${item.id}/content`)).rawPayload), sha256(bytes), 'the same bytes, finished')
})

t.test('upload requests count apart in the per-IP limit, with an allowance of their own (decision 027)', async (t) => {
  const limited = await buildStack(t, { env: { RATE_LIMIT_MAX: '3' } })
  const call = (method: 'GET' | 'HEAD', url: string) => limited.bff.inject({ method, url })
  const others: number[] = []
  for (let i = 0; i < 4; i += 1) others.push((await call('GET', '/api/programs?limit=1')).statusCode)
  t.same(others, [200, 200, 200, 429], 'other calls: the fourth in a minute is refused')
  // Not signed in: the API answers 401 — but only a request the limiter let through reaches it.
  const statuses: number[] = []
  for (let i = 0; i < 4; i += 1) statuses.push((await call('HEAD', i % 2 ? '/api/files/uploads/some-upload' : '/api/files/uploads/')).statusCode)
  t.notOk(statuses.slice(0, 3).includes(429), 'three upload requests pass after the other calls ran out')
  t.equal(statuses[3], 429, 'the fourth is refused')
})
