import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { buildStack, LogCapture } from '../../helpers.ts'

// The proxy against the real API, and against a loopback server that misbehaves the ways an
// upstream can: refuses, stalls, sends garbage, fails with 5xx, tries to set cookies.

async function listen(server: http.Server | net.Server, t: Test): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}


t.test('through the real API', async (t) => {
  // The services' short caches run on the test's clock: it moves when the test says (the
  // micro-cache's second was waited out on the wall clock).
  let clock = Date.now()
  const { bff, apiUrl, operatorToken } = await buildStack(t, { now: () => clock })

  t.test('GET /api/version reaches the API', async (t) => {
    const response = await bff.inject('/api/version')
    t.equal(response.statusCode, 200)
    t.same(response.json(), { version: '1.0.716+test' })
    t.match(response.headers['x-request-id'], /^[0-9a-f-]{36}$/)
  })

  t.test('the micro-cache keeps /api/version for at most a second', async (t) => {
    const maintenanceTime = async () => (await bff.inject('/api/version')).json().maintenanceTime as string | undefined
    t.equal(await maintenanceTime(), undefined, 'no maintenance announced')
    const changed = await fetch(`${apiUrl}/internal/maintenance`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ maintenanceTime: '2027-03-01T10:00:00Z' }),
    })
    t.ok(changed.ok, 'the API took the change')
    t.equal(await maintenanceTime(), undefined, 'the cached answer right after the change')
    clock += 999
    t.equal(await maintenanceTime(), undefined, 'still the cached answer 999 ms after it was cached')
    clock += 1
    t.equal(await maintenanceTime(), '2027-03-01T10:00:00.000Z', 'the change shows once the second is over')
  })

  t.test('the answer the micro-cache holds is the answer it loaded: same status, body and headers, its own request id', async (t) => {
    clock += 1_000
    const loaded = await bff.inject('/api/version')
    const live = await bff.inject('/api/version')
    const own = (headers: Record<string, unknown>) => {
      const { 'x-request-id': id, date: _date, ...rest } = headers
      t.match(id, /^[0-9a-f-]{36}$/)
      return rest
    }
    t.equal(live.statusCode, loaded.statusCode)
    t.equal(live.body, loaded.body)
    t.same(own(live.headers), own(loaded.headers))
    t.not(live.headers['x-request-id'], loaded.headers['x-request-id'])
    t.match(live.headers, { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-security-policy': /default-src 'none'/ })
    const head = await bff.inject({ method: 'HEAD', url: '/api/version' })
    t.equal(head.statusCode, 200, 'HEAD is answered too (through the API)')
    t.equal(head.body, '')
  })

  t.test('the version answered before the other hooks (issue 30) is the route\'s answer, and counted in the metrics', async (t) => {
    clock += 1_000
    t.equal((await bff.inject('/api/version')).statusCode, 200, 'the route loads the answer into the micro-cache')
    const own = (headers: Record<string, unknown>) => {
      const { 'x-request-id': id, date: _date, ...rest } = headers
      t.match(id, /^[0-9a-f-]{36}$/)
      return rest
    }
    // The exact spelling, live: answered early (with cookies, as a browser sends them). A query
    // string goes through every hook and the route, to the API.
    const early = await bff.inject({ url: '/api/version', headers: { cookie: 'lang=de; consent=all' } })
    const viaRoute = await bff.inject('/api/version?through=route')
    t.equal(early.statusCode, 200)
    t.equal(early.body, viaRoute.body)
    t.same(own(early.headers), own(viaRoute.headers), 'the same headers: security headers, type, caching')
    t.notOk('set-cookie' in early.headers)
    const scrape = async () => {
      const text = (await bff.inject({ url: '/metrics', headers: { authorization: `Bearer ${operatorToken}` } })).body
      const line = text.split('\n').find((l) => l.startsWith('softshelf_http_requests_total{') && l.includes('route="/api/version"') && l.includes('method="GET"') && l.includes('status="200"'))
      return Number(line?.slice(line.lastIndexOf(' ') + 1) ?? 0)
    }
    const before = await scrape()
    for (let i = 0; i < 3; i++) t.equal((await bff.inject('/api/version')).statusCode, 200)
    t.equal(await scrape(), before + 3, 'each early answer is counted under its route')
  })

  t.test('an unknown API path is the API\'s 404 JSON, passed through', async (t) => {
    const response = await bff.inject('/api/nowhere')
    t.equal(response.statusCode, 404)
    t.equal(response.json().code, 'API_NOT_FOUND')
  })

  t.test('writes without the rid header, from a foreign origin, or as simple forms are refused', async (t) => {
    const cases = [
      { headers: { 'content-type': 'application/json' }, why: 'no rid header' },
      { headers: { rid: 'anti-csrf', 'content-type': 'application/json', origin: 'https://evil.example' }, why: 'foreign origin' },
      { headers: { rid: 'anti-csrf', 'content-type': 'text/plain' }, why: 'text/plain form' },
      { headers: { rid: 'anti-csrf', 'content-type': 'application/x-www-form-urlencoded' }, why: 'urlencoded form' },
    ]
    for (const { headers, why } of cases) {
      const response = await bff.inject({ method: 'POST', url: '/api/version', headers, payload: '{}' })
      t.equal(response.statusCode, 403, why)
      t.equal(response.json().code, 'BFF_CSRF_REJECTED', why)
    }
    const allowed = await bff.inject({ method: 'POST', url: '/api/version', headers: { rid: 'anti-csrf', 'content-type': 'application/json', origin: 'http://localhost:3000' }, payload: '{}' })
    t.equal(allowed.statusCode, 404, 'a same-origin write with rid reaches the API (which has no such route)')
  })

  t.test('a body over the API route\'s limit is refused by the BFF with 413, as the API would (issue 26 §5: it was streamed on until the API cut it)', async (t) => {
    const response = await bff.inject({
      method: 'POST',
      url: '/api/version',
      headers: { rid: 'anti-csrf', 'content-type': 'application/json' },
      payload: `{"x":"${'a'.repeat(1024 * 1024 + 10)}"}`,
    })
    t.equal(response.statusCode, 413)
    t.equal(response.json().code, 'BFF_BODY_TOO_LARGE')
  })
})

t.test('header hygiene: allow-listed headers only, upstream cookies dropped', async (t) => {
  let seen: http.IncomingHttpHeaders = {}
  const upstream = http.createServer((req, res) => {
    seen = req.headers
    res.setHeader('set-cookie', 'upstream=1; Path=/')
    res.setHeader('x-internal-secret', 'yes')
    res.setHeader('content-type', 'application/json; charset=utf-8')
    res.setHeader('cache-control', 'no-cache')
    res.end('{"ok":true}')
  })
  const url = await listen(upstream, t)
  const { bff } = await buildStack(t, { upstreamApiUrl: url })
  const response = await bff.inject({
    url: '/api/thing?x=1',
    headers: { cookie: 'sAccessToken=secret-cookie', 'x-forwarded-for': '6.6.6.6', 'x-custom': 'nope', 'accept-language': 'de' },
  })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { ok: true })
  t.notOk(response.headers['set-cookie'], 'the upstream Set-Cookie never reaches the browser')
  t.notOk(response.headers['x-internal-secret'])
  t.equal(response.headers['cache-control'], 'no-cache')
  t.notOk(seen.cookie, 'the browser Cookie never goes upstream')
  t.notOk(seen['x-custom'])
  t.equal(seen['accept-language'], 'de')
  t.equal(seen['x-forwarded-for'], '127.0.0.1', 'a forged X-Forwarded-For is replaced by the real peer')
  t.match(seen['x-request-id'], /^[0-9a-f-]{36}$/)
  // The API gets one of the eight languages, never the browser's list.
  for (const [asked, sent] of [['de-AT,de;q=0.9,en;q=0.5', 'de'], ['fr-CA,fr;q=0.9', 'en'], ['cs;q=0.2, hu', 'hu'], [undefined, 'en']] as const) {
    await bff.inject({ url: '/api/thing', headers: asked === undefined ? {} : { 'accept-language': asked } })
    t.equal(seen['accept-language'], sent, `Accept-Language ${asked ?? '(none)'} goes upstream as ${sent}`)
  }
})

t.test('path tricks sent raw over HTTP never reach an upstream path outside /api', async (t) => {
  const seen: string[] = []
  const upstream = http.createServer((req, res) => {
    seen.push(req.url ?? '')
    res.setHeader('content-type', 'application/json')
    res.end('{}')
  })
  const url = await listen(upstream, t)
  const { bff } = await buildStack(t, { upstreamApiUrl: url })
  await bff.listen({ host: '127.0.0.1', port: 0 })
  const port = (bff.server.address() as AddressInfo).port
  const raw = (path: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`))
      let data = ''
      socket.on('data', (chunk) => (data += chunk.toString()))
      socket.on('end', () => resolve(data))
      socket.on('error', reject)
    })
  for (const path of ['/api/%2e%2e/internal/maintenance', '/api/..%2finternal/maintenance', '/api/%2E%2E/readyz', '/api/../readyz', '/api/x/..%5c..%5creadyz']) {
    const answer = await raw(path)
    t.match(answer, /^HTTP\/1\.1 (400|404)/, `${path} is refused`)
  }
  t.ok(seen.every((p) => p.startsWith('/api/') && !/\.\.|%2e%2e|%5c/i.test(p)), `upstream saw only safe paths: ${JSON.stringify(seen)}`)
  const ok = await raw('/api/fine')
  t.match(ok, /^HTTP\/1\.1 200/)
  t.same(seen.at(-1), '/api/fine')
})

t.test('upstream faults become 502/503/504 JSON within the timeout, and the BFF keeps serving', async (t) => {
  const sockets = new Set<net.Socket>()
  const upstream = http.createServer((req, res) => {
    if (req.url === '/api/slow-headers') return // never answers
    if (req.url === '/api/stalled-body') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write('{"partial":')
      return
    }
    if (req.url === '/api/crash') {
      res.writeHead(500, { 'content-type': 'text/plain' })
      return res.end('Error: boom\n    at /srv/app/secret.js:12:3\nSELECT * FROM users')
    }
    if (req.url === '/api/busy') {
      res.writeHead(503, { 'retry-after': '30' })
      return res.end()
    }
    res.end('{}')
  })
  upstream.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  t.teardown(() => sockets.forEach((s) => s.destroy()))
  const url = await listen(upstream, t)

  const garbage = net.createServer((socket) => {
    socket.on('data', () => socket.end('HTTP/1.1 ??? nonsense\r\n\r\n'))
  })
  const garbageUrl = await listen(garbage, t)

  const logs = new LogCapture()
  const env = { UPSTREAM_HEADERS_TIMEOUT_MS: '300', UPSTREAM_BODY_TIMEOUT_MS: '300', LOG_LEVEL: 'info' }
  const { bff } = await buildStack(t, { upstreamApiUrl: url, env, bffLogStream: logs })

  const expectJson = async (path: string, status: number, code: string) => {
    const started = Date.now()
    const response = await bff.inject(path)
    t.equal(response.statusCode, status, path)
    t.equal(response.json().code, code, path)
    t.ok(Date.now() - started < 5_000, `${path} answered within the bound`)
    t.notMatch(response.body, /secret\.js|SELECT|boom|at \//, `${path} reveals nothing upstream`)
    return response
  }
  await expectJson('/api/slow-headers', 504, 'BFF_UPSTREAM_TIMEOUT')
  await expectJson('/api/stalled-body', 504, 'BFF_UPSTREAM_TIMEOUT')
  await expectJson('/api/crash', 502, 'BFF_UPSTREAM_BAD_RESPONSE')
  const busy = await expectJson('/api/busy', 503, 'BFF_UPSTREAM_UNAVAILABLE')
  t.equal(busy.headers['retry-after'], '30')
  t.equal((await bff.inject('/healthz')).statusCode, 200, 'still serving')

  t.test('garbage from upstream is a 502', async (t) => {
    const { bff: other } = await buildStack(t, { upstreamApiUrl: garbageUrl })
    const response = await other.inject('/api/version')
    t.equal(response.statusCode, 502)
    t.equal(response.json().code, 'BFF_UPSTREAM_BAD_RESPONSE')
  })

  t.test('a refused connection is a 503 for API calls and a 503 error page for pages', async (t) => {
    const closed = net.createServer()
    const closedUrl = await listen(closed, t)
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const { bff: other } = await buildStack(t, { upstreamApiUrl: closedUrl })
    const api = await other.inject('/api/version')
    t.equal(api.statusCode, 503)
    t.equal(api.json().code, 'BFF_UPSTREAM_UNAVAILABLE')
    const page = await other.inject('/')
    t.equal(page.statusCode, 503)
    t.match(page.body, /Service unavailable/)
    t.match(page.body, /data-status="503"/)
    const ready = await other.inject('/readyz')
    t.equal(ready.statusCode, 200, 'the BFF answers for the API itself (issue 26)')
    t.match(ready.json(), { status: 'ok', dependencies: { productApi: 'unreachable' } })
  })
})

t.test('public catalogue answers are shared for pages and proxied calls; conditional and credentialed requests go through', async (t) => {
  const apiLog = new LogCapture()
  const { bff } = await buildStack(t, { env: { LOG_LEVEL: 'info' }, apiLogStream: apiLog })
  const apiCalls = (path: string) => apiLog.lines.filter((line) => line.includes('"request completed"') && line.includes(`"url":"${path}"`)).length
  const listing = '/api/programs?price=all&sort=namePopular&page=1&pageSize=24'

  t.equal((await bff.inject('/library')).statusCode, 200)
  t.equal((await bff.inject('/library')).statusCode, 200)
  const proxied = await bff.inject(listing)
  t.equal(proxied.statusCode, 200)
  t.equal(proxied.headers['cache-control'], 'public, max-age=1')
  t.equal(apiCalls(listing), 1, 'two pages and a proxied call: one API call')

  const etag = proxied.headers.etag as string
  const revalidated = await bff.inject({ url: listing, headers: { 'if-none-match': etag } })
  t.equal(revalidated.statusCode, 304, 'a conditional request is answered by the API')
  t.equal(apiCalls(listing), 2)
})

t.test('bodies stream both ways: uploads and downloads of any size, ranges, the sandbox of user content', async (t) => {
  const SIZE = 20 * 1024 * 1024
  const byteAt = (i: number) => (i * 31 + 7) & 0xff
  const content = Buffer.alloc(SIZE)
  for (let i = 0; i < SIZE; i++) content[i] = byteAt(i)
  const seen: Array<Record<string, string | string[] | undefined>> = []
  const upstream = http.createServer((req, res) => {
    seen.push(req.headers)
    if (req.url === '/api/files/uploads/x') {
      let received = 0
      let sum = 0
      req.on('data', (chunk: Buffer) => {
        for (const byte of chunk) sum = (sum + byte) % 1_000_003
        received += chunk.length
      })
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ received, sum }))
      })
      return
    }
    if (req.url === '/api/download') {
      const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''))
      const common = { 'content-type': 'text/html', 'content-security-policy': 'sandbox', 'accept-ranges': 'bytes', etag: '"v1"', 'set-cookie': 'x=1' }
      if (range) {
        const [from, to] = [Number(range[1]), Number(range[2])]
        res.writeHead(206, { ...common, 'content-range': `bytes ${from}-${to}/${SIZE}`, 'content-length': String(to - from + 1) })
        return res.end(content.subarray(from, to + 1))
      }
      res.writeHead(200, { ...common, 'content-length': String(SIZE) })
      // Written in pieces, as a file is read.
      let at = 0
      const next = () => {
        while (at < SIZE) {
          const piece = content.subarray(at, at + 256 * 1024)
          at += piece.length
          if (!res.write(piece)) return void res.once('drain', next)
        }
        res.end()
      }
      return next()
    }
    res.writeHead(404, { 'content-type': 'application/json' })
    res.end('{}')
  })
  const url = await listen(upstream, t)
  const { bff } = await buildStack(t, { upstreamApiUrl: url })

  // Uploads (tus) are the route family whose bodies stream with no limit of the BFF's.
  const upload = await bff.inject({ method: 'PATCH', url: '/api/files/uploads/x', headers: { rid: 'anti-csrf', 'content-type': 'application/offset+octet-stream' }, payload: content })
  t.equal(upload.statusCode, 200)
  let sum = 0
  for (const byte of content) sum = (sum + byte) % 1_000_003
  t.same(upload.json(), { received: SIZE, sum }, '20 MiB reach the API whole (an upload has no 1 MiB limit in the BFF)')
  t.equal(seen.at(-1)!['content-length'], String(SIZE), 'the length is passed on, so the API can refuse early')

  const whole = await bff.inject({ method: 'GET', url: '/api/download' })
  t.equal(whole.statusCode, 200)
  t.equal(whole.headers['content-length'], String(SIZE))
  t.ok(whole.rawPayload.equals(content), 'every byte, in order')
  t.equal(whole.headers['set-cookie'], undefined, 'the upstream cookie stays behind')
  t.match(whole.headers['content-security-policy'], /default-src 'none'.*; sandbox$/, 'user content keeps its sandbox on top of the BFF policy')
  t.equal(whole.headers['x-content-type-options'], 'nosniff')

  const part = await bff.inject({ method: 'GET', url: '/api/download', headers: { range: 'bytes=1000-1999' } })
  t.equal(part.statusCode, 206)
  t.equal(part.headers['content-range'], `bytes 1000-1999/${SIZE}`)
  t.equal(part.headers['accept-ranges'], 'bytes')
  t.ok(part.rawPayload.equals(content.subarray(1000, 2000)), 'the range asked for')
  t.equal(seen.at(-1)!.range, 'bytes=1000-1999', 'Range goes upstream')
})
