import fs from 'node:fs'
import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import path from 'node:path'
import t from 'tap'
import { buildBff } from '../../../server/bff/app.ts'
import { readinessDelayMs, loadConfig } from '../../../server/config.ts'
import { stopServices } from '../../../server/http/shutdown.ts'
import { buildStack, freePort, root, testBuildInfo, testConfig, TEST_AUTH_CORE_API_KEY } from '../../helpers.ts'
import { haproxyMissing, requestFrom, startHaproxy } from '../../haproxy.ts'

// deploy/haproxy.cfg's own lines, run by HAProxy on loopback: what the balancer
// answers when it has no answer of a server to pass on, and how it takes a stopping BFF out.

const deploy = path.join(root, 'deploy')
const config = fs.readFileSync(path.join(deploy, 'haproxy.cfg'), 'utf8')

/** The lines of one section of deploy/haproxy.cfg (`defaults`, `backend bff` …), blank lines and comments left out. */
function section(header: string): string[] {
  const body = new RegExp(`^${header}\\n([\\s\\S]*?)(?=\\n\\S|(?![\\s\\S]))`, 'm').exec(config)?.[1] ?? ''
  return body.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
}

const errorLines = section('defaults').filter((line) => /^\s*(unique-id-format|http-error)\b/.test(line))
const bffCheckLines = section('backend bff').filter((line) => /^\s*(option httpchk|http-check|default-server)\b/.test(line))

t.test('deploy/haproxy.cfg: what HAProxy answers itself is in the app\'s error shape', { skip: haproxyMissing }, async (t) => {
  t.equal(errorLines.filter((line) => line.includes('http-error')).length, 3, errorLines.join('\n'))
  // A server that is not there (503), one that answers garbage (502), one that never answers (504).
  const held: net.Socket[] = []
  const garbage = net.createServer((socket) => socket.once('data', () => socket.end('this is not HTTP\r\n\r\n')))
  const silent = net.createServer(() => {})
  for (const server of [garbage, silent]) {
    server.on('connection', (socket) => {
      held.push(socket)
      socket.on('error', () => {}) // HAProxy resets what it gave up on
    })
  }
  for (const server of [garbage, silent]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of held) socket.destroy()
    garbage.close()
    silent.close()
  })
  const ports = { none: await freePort(), garbage: await freePort(), silent: await freePort() }
  const servers = { none: `127.0.0.1:${await freePort()}`, garbage: `127.0.0.1:${(garbage.address() as AddressInfo).port}`, silent: `127.0.0.1:${(silent.address() as AddressInfo).port}` }
  await startHaproxy(
    t,
    [
      'global',
      // deploy/haproxy.cfg says `default-path config`; here the config is elsewhere, the files are not.
      `  default-path origin ${deploy}`,
      'defaults',
      '  mode http',
      '  timeout connect 1s',
      '  timeout client 10s',
      '  timeout server 500ms',
      ...errorLines,
      ...Object.keys(ports).flatMap((name) => [
        `frontend ${name}`,
        `  bind 127.0.0.1:${ports[name as keyof typeof ports]}`,
        `  default_backend ${name}`,
        `backend ${name}`,
        `  server ${name} ${servers[name as keyof typeof servers]}`,
      ]),
    ],
    Object.values(ports),
  )
  const expected = {
    none: { status: 503, code: 'LB_UNAVAILABLE', error: 'Service Unavailable' },
    garbage: { status: 502, code: 'LB_BAD_GATEWAY', error: 'Bad Gateway' },
    silent: { status: 504, code: 'LB_GATEWAY_TIMEOUT', error: 'Gateway Timeout' },
  }
  for (const [name, { status, code, error }] of Object.entries(expected)) {
    const answer = await requestFrom('127.0.0.1', ports[name as keyof typeof ports], '/api/programs', { accept: 'application/json' })
    t.equal(answer.status, status, name)
    t.equal(answer.headers['content-type'], 'application/json; charset=utf-8')
    t.equal(answer.headers['retry-after'], '5')
    t.equal(answer.headers['cache-control'], 'no-store')
    t.equal(answer.headers['x-content-type-options'], 'nosniff')
    const body = JSON.parse(answer.body) as Record<string, unknown>
    t.same(Object.keys(body).sort(), ['code', 'error', 'message', 'requestId', 'statusCode'], 'the error shape')
    t.match(body, { statusCode: status, code, error, message: /^Softshelf .*Please try again in a few seconds\.$/ })
    t.match(body.requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a request id')
    t.equal(answer.headers['x-request-id'], body.requestId, 'the same in X-Request-Id')
  }
})

t.test('a planned stop of one of two BFFs behind deploy/haproxy.cfg\'s checks: no client sees a 503', { skip: haproxyMissing }, async (t) => {
  t.ok(bffCheckLines.some((line) => line.includes('/readyz')), bffCheckLines.join('\n'))
  // Rate limits are not the subject: the client asks as fast as it can.
  const env = { RATE_LIMIT_MAX: '1000000' }
  const stack = await buildStack(t, { env })
  const second = await buildBff({
    config: testConfig(t, env),
    db: stack.db,
    buildInfo: testBuildInfo,
    upstreamApiUrl: stack.apiUrl,
    authCoreUrl: 'http://127.0.0.1:9',
    authCoreApiKey: TEST_AUTH_CORE_API_KEY,
  })
  t.teardown(() => second.close())
  const bffs = [stack.bff, second]
  const checked = [0, 0]
  for (const [index, bff] of bffs.entries()) {
    await bff.listen({ host: '127.0.0.1', port: 0 })
    bff.server.on('request', (request: http.IncomingMessage) => void (request.url === '/readyz' && checked[index]!++))
  }
  const front = await freePort()
  await startHaproxy(
    t,
    [
      'defaults',
      '  mode http',
      '  timeout connect 1s',
      '  timeout client 10s',
      '  timeout server 10s',
      'frontend web',
      `  bind 127.0.0.1:${front}`,
      '  default_backend bff',
      'backend bff',
      '  balance roundrobin',
      ...bffCheckLines,
      ...bffs.map((bff, index) => `  server bff-${index + 1} 127.0.0.1:${(bff.server.address() as AddressInfo).port} check`),
    ],
    [front],
  )
  // A BFF running alone, as behind this balancer, waits the default readiness delay.
  const delayMs = readinessDelayMs(loadConfig({}), 'bff')
  const client = new http.Agent({ keepAlive: true, maxSockets: 2 })
  t.teardown(() => client.destroy())
  const ask = () =>
    new Promise<number>((resolve) => {
      const request = http.get({ host: '127.0.0.1', port: front, path: '/api/version', agent: client }, (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      })
      request.on('error', () => resolve(0))
    })
  // Both servers checked and serving before the stop.
  const before = Date.now()
  while (checked.some((count) => count === 0) && Date.now() - before < 10_000) await ask()
  t.same(checked.map((count) => count > 0), [true, true], 'HAProxy checks both')

  const statuses = new Map<number, number>()
  let asked = 0
  let stopped = false
  const stopping = stopServices([second], { readinessDelayMs: delayMs }).then(() => void (stopped = true))
  // A client asking all along: through the delay, the drain and a while after the BFF closed
  // (bounded: the stop takes the delay and at most 2 s of drain).
  const until = Date.now() + delayMs + 10_000
  let after = 0
  while (after < 50 && Date.now() < until) {
    const status = await ask()
    asked++
    statuses.set(status, (statuses.get(status) ?? 0) + 1)
    if (stopped) after++
  }
  await stopping
  t.ok(stopped, 'the BFF stopped')
  t.ok(asked > 100, `the client kept asking (${asked} requests)`)
  t.same(Object.fromEntries(statuses), { 200: asked }, 'every request was answered 200')
  t.notOk(second.server.listening)
})
