import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { buildBff } from '../../../server/bff/app.ts'
import { buildStack, LogCapture, openTestDatabase, testBuildInfo, testConfig } from '../../helpers.ts'

t.test('a thrown error answers a generic 500 with the request id and nothing internal', async (t) => {
  const logs = new LogCapture()
  const db = await openTestDatabase(t)
  const bff = await buildBff({ config: testConfig(t, { LOG_LEVEL: 'info' }), db, buildInfo: testBuildInfo, upstreamApiUrl: 'http://127.0.0.1:9', logStream: logs })
  t.teardown(() => bff.close())
  bff.get('/boom', async () => {
    throw new Error('connect to postgres://admin:pw@db failed at /srv/app/server.js: SELECT * FROM users')
  })
  const response = await bff.inject('/boom')
  t.equal(response.statusCode, 500)
  const body = response.json()
  t.same(Object.keys(body).sort(), ['code', 'error', 'message', 'requestId', 'statusCode'])
  t.equal(body.code, 'BFF_INTERNAL_ERROR')
  t.equal(body.requestId, response.headers['x-request-id'])
  t.notMatch(response.body, /postgres|srv|SELECT|stack|at /)
  t.match(logs.text, new RegExp(`"reqId":"${body.requestId}"`), 'the failure is logged with the request id')
  t.equal((await bff.inject('/healthz')).statusCode, 200, 'the process keeps serving')
})

t.test('an upstream answer that is not JSON renders the error page with 502, without internals', async (t) => {
  // The upstream claims JSON but sends something else: the page's loader throws while parsing.
  const upstream = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json')
    res.end('not json at /srv/secret.js')
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => upstream.close(() => resolve())))
  const { bff } = await buildStack(t, { upstreamApiUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })
  const page = await bff.inject('/')
  t.equal(page.statusCode, 502)
  t.match(page.body, /data-testid="error-page"/)
  t.match(page.body, /Service unavailable/)
  t.notMatch(page.body, /secret\.js|SyntaxError|Unexpected token/)
})

t.test('logs never contain a password, cookie or token', async (t) => {
  const bffLogs = new LogCapture()
  const apiLogs = new LogCapture()
  const { bff } = await buildStack(t, { env: { LOG_LEVEL: 'trace' }, bffLogStream: bffLogs, apiLogStream: apiLogs })
  await bff.inject({
    url: '/verify-email?token=CANARY-TOKEN-1&tenantId=public',
    headers: { cookie: 'sAccessToken=CANARY-COOKIE-2; sRefreshToken=CANARY-COOKIE-3', authorization: 'Bearer CANARY-BEARER-4' },
  })
  await bff.inject({
    method: 'POST',
    url: '/api/version?code=CANARY-CODE-5',
    headers: { rid: 'anti-csrf', 'content-type': 'application/json', cookie: 'sAccessToken=CANARY-COOKIE-6' },
    payload: JSON.stringify({ email: 'a@b.c', password: 'CANARY-PASSWORD-7' }),
  })
  const all = `${bffLogs.text}\n${apiLogs.text}`
  t.ok(bffLogs.lines.length > 0, 'something was logged')
  t.notMatch(all, /CANARY/, 'no canary value reached a log line')
  t.match(bffLogs.text, /token=\[redacted\]/)
  for (const line of bffLogs.lines) t.doesNotThrow(() => JSON.parse(line), 'every log line is one JSON object')
})

t.test('each request is one line once answered: method, URL with its secrets redacted, status and time', async (t) => {
  const bffLogs = new LogCapture()
  const apiLogs = new LogCapture()
  const { bff } = await buildStack(t, { env: { LOG_LEVEL: 'info' }, bffLogStream: bffLogs, apiLogStream: apiLogs })
  const page = await bff.inject('/library?sort=nameAsc')
  const missing = await bff.inject('/api/no-such-thing?token=SECRET-1')
  const linesOf = (logs: LogCapture, requestId: string) =>
    logs.lines.map((line) => JSON.parse(line) as { reqId?: string; msg: string; req?: { method: string; url: string }; res?: { statusCode: number }; responseTime?: number }).filter((line) => line.reqId === requestId)
  const [pageLine, ...more] = linesOf(bffLogs, String(page.headers['x-request-id']))
  t.equal(more.length, 0, 'one line for the page')
  t.match(pageLine, { msg: 'request completed', req: { method: 'GET', url: '/library?sort=nameAsc' }, res: { statusCode: 200 } })
  t.type(pageLine?.responseTime, 'number', 'with the time it took')
  const missingLines = linesOf(bffLogs, String(missing.headers['x-request-id']))
  t.equal(missingLines.length, 1, 'one line for a proxied call')
  t.match(missingLines[0], { req: { method: 'GET', url: '/api/no-such-thing?token=[redacted]' }, res: { statusCode: 404 } })
  t.notMatch(bffLogs.text + apiLogs.text, /SECRET-1/)
  t.notOk(bffLogs.text.includes('incoming request'), 'no line as a request arrives')
})

t.test('user input cannot forge a log line', async (t) => {
  const logs = new LogCapture()
  const { bff } = await buildStack(t, { env: { LOG_LEVEL: 'info' }, bffLogStream: logs })
  await bff.inject({ url: '/x%0A%7B%22level%22:60,%22msg%22:%22forged%22%7D' })
  t.ok(logs.lines.every((line) => !line.startsWith('{"level":60,"msg":"forged"')))
  for (const line of logs.lines) t.doesNotThrow(() => JSON.parse(line))
})

// Fastify answers these before any route or hook runs, so they used to get its own body
// (echoing the raw path), no request id and no security headers.
const MALFORMED = ['/api/%c0%ae', '/api/%c0%ae%c0%ae/internal/maintenance', '/%c0%ae', '/api/programs/%c0%ae', '/programs/%E0%A4%A', '/dev/mail/%ff', '/api/%']

t.test('a malformed URL gets the BFF error shape with BFF_BAD_URL, the request id and the security headers, never the raw path', async (t) => {
  const { bff } = await buildStack(t)
  for (const url of MALFORMED) {
    const response = await bff.inject(url)
    t.equal(response.statusCode, 400, url)
    const body = response.json()
    t.same(body, { statusCode: 400, code: 'BFF_BAD_URL', error: 'Bad Request', message: 'The request URL is malformed.', requestId: response.headers['x-request-id'] }, url)
    t.match(response.headers['x-request-id'], /^\S{8,}$/)
    t.match(response.headers['content-type'], /^application\/json; charset=utf-8/)
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${url}: security headers`)
    t.match(response.headers['content-security-policy'], /default-src 'none'/)
    t.equal(response.headers['referrer-policy'], 'strict-origin-when-cross-origin')
    t.notMatch(response.body, /%c0|%E0|%ff|FST_/i, 'the raw path is not echoed')
  }
})

t.test('an over-long path parameter answers the service error shape through the BFF, without echoing it', async (t) => {
  const { bff } = await buildStack(t)
  // Not a catalogue read: those are shared between visitors and carry the API's own request id.
  const response = await bff.inject({ method: 'POST', url: `/api/user/program/${'x'.repeat(150)}`, headers: { rid: 'anti-csrf', 'content-type': 'application/json' }, payload: '{}' })
  t.equal(response.statusCode, 414)
  t.same(response.json(), {
    statusCode: 414,
    code: 'API_PARAM_TOO_LONG',
    error: 'URI Too Long',
    message: 'A part of the request path is longer than this service accepts.',
    requestId: response.headers['x-request-id'],
  })
  t.equal(response.headers['x-content-type-options'], 'nosniff')
  t.notMatch(response.body, /xxxxxxxx|FST_/)
})
