import net from 'node:net'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildStack, LogCapture, within } from '../../helpers.ts'

// Requests Node's HTTP parser refuses never reach Fastify, and were answered with
// Fastify's default `{"error":"Bad Request","message":"Client Error","statusCode":400}` — no code,
// no charset, no request id, no nosniff or Referrer-Policy. Each is now answered in the app's error
// shape with the BFF's security headers (the API and the auth core in theirs), then closed.

interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/** Writes `bytes` on a fresh connection and reads until the server closes it. */
function raw(port: number, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => (received += chunk.toString('latin1')))
    socket.on('error', () => {})
    socket.on('close', () => {
      const end = received.indexOf('\r\n\r\n')
      const [statusLine = '', ...lines] = received.slice(0, end === -1 ? received.length : end).split('\r\n')
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: end === -1 ? '' : received.slice(end + 4) })
    })
    socket.on('connect', () => socket.write(bytes))
  })
}

const EXAMPLES: Array<[string, string, number, string]> = [
  ['a 70,000-byte path', `GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
  ['a control byte in the path', 'GET /library\x01x HTTP/1.1\r\nHost: localhost\r\n\r\n', 400, 'MALFORMED_REQUEST'],
  ['a header line without a colon', 'GET /library HTTP/1.1\r\nHost: localhost\r\nno colon here\r\n\r\n', 400, 'MALFORMED_REQUEST'],
  ['HTTP/9.9', 'GET /library HTTP/9.9\r\nHost: localhost\r\n\r\n', 400, 'MALFORMED_REQUEST'],
  ['Content-Length with Transfer-Encoding', 'POST /api/user HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'MALFORMED_REQUEST'],
]

const bffLogs = new LogCapture()
const stack = await buildStack(t, { auth: true, bffLogStream: bffLogs, coreLogStream: new LogCapture(), apiLogStream: new LogCapture(), env: { LOG_LEVEL: 'info' } })
await stack.bff.listen({ host: '127.0.0.1', port: 0 })
const portOf = (app: FastifyInstance) => (app.server.address() as AddressInfo).port

t.test('the BFF answers what its parser refuses in the error shape, with the security headers and a request id', async (t) => {
  for (const [name, bytes, status, code] of EXAMPLES) {
    const answer = await within(raw(portOf(stack.bff), bytes))
    t.equal(answer.status, status, `${name}: status`)
    t.equal(answer.headers['content-type'], 'application/json; charset=utf-8', `${name}: JSON with a charset`)
    t.equal(answer.headers['x-content-type-options'], 'nosniff', `${name}: nosniff`)
    t.equal(answer.headers['referrer-policy'], 'strict-origin-when-cross-origin', `${name}: Referrer-Policy`)
    t.match(answer.headers['content-security-policy'], /default-src 'none'/, `${name}: the CSP`)
    t.equal(answer.headers.connection, 'close', `${name}: the connection is closed`)
    t.match(answer.headers['x-request-id'], /^[0-9a-f-]{36}$/, `${name}: a request id`)
    const body = JSON.parse(answer.body) as Record<string, unknown>
    t.equal(body.code, `BFF_${code}`, `${name}: code`)
    t.equal(body.statusCode, status, `${name}: statusCode`)
    t.equal(body.requestId, answer.headers['x-request-id'], `${name}: the same request id in the body`)
    t.match(body.message, /\w+ \w+/, `${name}: a message`)
    t.notOk(['aaaa', '\x01', 'no colon'].some((part) => answer.body.includes(part)), `${name}: nothing of the request is repeated`)
  }
  const levels = bffLogs.lines.map((line) => JSON.parse(line) as { level: number; event?: string })
  t.equal(levels.filter((line) => line.event === 'client-error' && line.level === 30).length, EXAMPLES.length, 'an info line each')
  t.same(levels.filter((line) => line.level >= 50), [], 'no error line')
})

t.test('the API and the auth core answer them in their error shape too', async (t) => {
  for (const [service, app, prefix] of [['API', stack.api, 'API'], ['auth core', stack.authCore!, 'AUTHCORE']] as const) {
    for (const [name, bytes, status, code] of [EXAMPLES[0]!, EXAMPLES[3]!]) {
      const answer = await within(raw(portOf(app), bytes))
      t.equal(answer.status, status, `${service}, ${name}`)
      t.equal(answer.headers['content-type'], 'application/json; charset=utf-8', `${service}, ${name}`)
      t.match(answer.headers['x-request-id'], /^[0-9a-f-]{36}$/, `${service}, ${name}`)
      t.equal((JSON.parse(answer.body) as { code?: string }).code, `${prefix}_${code}`, `${service}, ${name}`)
    }
  }
})
