import net from 'node:net'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { buildStack, LogCapture, signedInTab, within } from '../../helpers.ts'
import { startSentrySink } from '../../sentry-sink.ts'

// A 9 MB body to a proxied write streamed on to the API, which refused it at its own
// 1 MiB and closed the connection: the BFF answered 502 BFF_UPSTREAM_BAD_RESPONSE with an error
// line (`write EPIPE`) and an error report, with or without a session. The BFF now refuses a body
// over the route's limit (the API's own) with 413 before anything reaches the API: a declared
// length at once, a chunked body once the limit is passed.

const MB = 1_000_000
const WRITE_HEADERS = 'Origin: http://localhost:3000\r\nrid: anti-csrf\r\nContent-Type: application/json\r\n'

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * Sends `head` on a raw connection, then body chunks one after another (each once the previous one
 * is written) until the answer has come whole or `body` runs out, and reads the answer.
 */
function exchange(port: number, head: string, body: Iterable<Buffer | string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let received = Buffer.alloc(0)
    let done = false
    const chunks = body[Symbol.iterator]()
    const finish = (answer: Answer) => {
      done = true
      socket.destroy()
      resolve(answer)
    }
    const parse = () => {
      const text = received.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      if (end === -1) return
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n')
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      const length = Number(headers['content-length'] ?? 0)
      if (received.length - (end + 4) < length) return
      finish({ status: Number(statusLine!.split(' ')[1]), headers, body: received.subarray(end + 4, end + 4 + length).toString('utf8') })
    }
    const next = () => {
      if (done || !socket.writable) return
      const chunk = chunks.next()
      if (chunk.done) return
      socket.write(chunk.value, next)
    }
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk])
      parse()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      if (!done) reject(new Error(`closed without a whole answer: ${JSON.stringify(received.toString('latin1').slice(0, 300))}`))
    })
    socket.on('connect', () => socket.write(head, next))
  })
}

/** `total` bytes of a JSON string value in `size`-byte pieces. */
function* jsonPieces(total: number, size = 64 * 1024): Generator<string> {
  yield '{"name":"'
  for (let written = 0; written < total; written += size) yield 'x'.repeat(Math.min(size, total - written))
  yield '"}'
}

/** The same pieces framed as HTTP/1.1 chunks, and the last chunk. */
function* chunked(pieces: Iterable<string>): Generator<string> {
  for (const piece of pieces) yield `${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`
  yield '0\r\n\r\n'
}

const tracker = await startSentrySink()
t.teardown(() => tracker.close())
const bffLogs = new LogCapture()
const apiLogs = new LogCapture()
const stack = await buildStack(t, { auth: true, bffLogStream: bffLogs, apiLogStream: apiLogs, coreLogStream: new LogCapture(), env: { SENTRY_DSN: tracker.dsn(), LOG_LEVEL: 'info', AUTH_RATE_LIMIT_MAX: '1000' } })
const tab = await signedInTab(stack, 'big-body@example.com')
await stack.bff.listen({ host: '127.0.0.1', port: 0 })
const port = (stack.bff.server.address() as AddressInfo).port

t.test('a 9 MB PATCH /api/user is refused with 413 before it reaches the API, with and without a session, declared or chunked', async (t) => {
  const sessions = { 'without a session': '', 'with a session': `Cookie: ${tab.jar.header('/api/user')}\r\n` }
  for (const [who, cookie] of Object.entries(sessions)) {
    const head = `PATCH /api/user HTTP/1.1\r\nHost: localhost:3000\r\n${WRITE_HEADERS}${cookie}`
    const declared = await within(exchange(port, `${head}Content-Length: ${9 * MB + 11}\r\n\r\n`, jsonPieces(9 * MB)))
    const streamed = await within(exchange(port, `${head}Transfer-Encoding: chunked\r\n\r\n`, chunked(jsonPieces(9 * MB))))
    for (const [how, answer] of [['Content-Length', declared], ['chunked', streamed]] as const) {
      const name = `${who}, ${how}`
      t.equal(answer.status, 413, name)
      t.match(answer.headers['content-type'], /^application\/json; charset=utf-8/, name)
      const body = JSON.parse(answer.body) as Record<string, unknown>
      t.equal(body.code, 'BFF_BODY_TOO_LARGE', name)
      t.match(body.message, /larger than/, name)
      t.equal(body.requestId, answer.headers['x-request-id'], name)
      t.notOk(answer.headers['x-sentry-event-id'], `${name}: not reported`)
    }
    // Reading no more than it must: the answer comes without the rest of the body.
    const early = await within(exchange(port, `${head}Content-Length: ${9 * MB + 11}\r\n\r\n`, []))
    t.equal(early.status, 413, `${who}: a declared length over the limit is refused before any of the body is sent`)
    const past = await within(exchange(port, `${head}Transfer-Encoding: chunked\r\n\r\n`, [...chunked(jsonPieces(9 * MB))].slice(0, 20)))
    t.equal(past.status, 413, `${who}: a chunked body is refused once past the limit (1.2 MB sent), not at its end`)
  }
  await stack.bff.errorReporter!.flush()
  await stack.api.errorReporter!.flush()
  t.equal(tracker.events().length, 0, 'no error report')
  const errors = bffLogs.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)
  t.same(errors, [], 'no error line in the BFF')
  t.notMatch(apiLogs.text, /"method":"PATCH","url":"\/api\/user"/, 'nothing reached the API')
})

t.test('every spelling of a JSON route the router takes is held to the limit, and any proxied write', async (t) => {
  const spellings = ['/api/user/', '/api/user?x=1', '/api/user/?a=%2F', '/api/user/email', '/api/library/some-program', '/api/nowhere']
  for (const url of spellings) {
    for (const method of ['PATCH', 'POST', 'PUT', 'DELETE']) {
      const answer = await within(exchange(port, `${method} ${url} HTTP/1.1\r\nHost: localhost:3000\r\n${WRITE_HEADERS}Content-Length: ${9 * MB}\r\n\r\n`, []))
      t.equal(answer.status, 413, `${method} ${url}`)
      t.equal((JSON.parse(answer.body) as { code?: string }).code, 'BFF_BODY_TOO_LARGE', `${method} ${url}`)
    }
  }
})

t.test("each proxied family has the API's own limit: a 600 KB webhook is refused, a 4 MiB tus PATCH still streams", async (t) => {
  const webhook = await stack.bff.inject({ method: 'POST', url: '/api/stripe/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, payload: `{"x":"${'x'.repeat(600_000)}"}` })
  t.equal(webhook.statusCode, 413)
  t.equal(webhook.json().code, 'BFF_BODY_TOO_LARGE')

  const bytes = Buffer.alloc(4 * 1024 * 1024, 7)
  const tus = { cookie: tab.jar.header('/api/files/uploads'), rid: 'anti-csrf', origin: 'http://localhost:3000', 'tus-resumable': '1.0.0' }
  const creation = await stack.bff.inject({ method: 'POST', url: '/api/files/uploads', headers: { ...tus, 'upload-length': String(bytes.length), 'upload-metadata': `filename ${Buffer.from('big.bin').toString('base64')}` } })
  t.equal(creation.statusCode, 201)
  const patch = await stack.bff.inject({ method: 'PATCH', url: creation.headers.location as string, headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, payload: bytes })
  t.equal(patch.statusCode, 204)
  t.equal(patch.headers['upload-offset'], String(bytes.length))

  const small = await tab.post('/api/user/accept-tos', { isInMailList: true })
  t.equal(small.statusCode, 200, 'an ordinary JSON write still passes')
})
