import http from 'node:http'
import type net from 'node:net'
import pino from 'pino'
import t from 'tap'
import { RevokedSessions } from '../../../server/http/revoked-sessions.ts'
import { buildStack, LogCapture, TEST_AUTH_CORE_API_KEY } from '../../helpers.ts'

// A quiet app wrote 13,750 lines in 19 minutes, the auth core's request lines for the
// revocation list that every API and BFF instance reads twice a second, and the probes' and
// scrapes' alike. Background work logs what changed, not each poll: an idle app writes nothing at
// info, a reader that starts failing says so once, and once when it can read again. The reader polls
// as fast as it can here (pollMs 1) and the test counts its reads, not time.

const polls = (list: RevokedSessions, count: number, event: 'read' | 'attempt') =>
  new Promise<void>((resolve) => {
    let seen = 0
    const onEvent = () => {
      if (++seen < count) return
      list.off(event, onEvent)
      resolve()
    }
    list.on(event, onEvent)
  })

t.test('an idle app at info writes no line for the revocation list, the probes or the scrapes', async (t) => {
  const logs = { bff: new LogCapture(), api: new LogCapture(), core: new LogCapture() }
  const { bff, api, authCore, operatorToken } = await buildStack(t, {
    env: { LOG_LEVEL: 'info' },
    auth: true,
    bffLogStream: logs.bff,
    apiLogStream: logs.api,
    coreLogStream: logs.core,
  })
  const core = authCore!
  const coreUrl = `http://127.0.0.1:${(core.server.address() as net.AddressInfo).port}`
  for (const capture of Object.values(logs)) capture.lines.length = 0

  // The list as the API's and the BFF's readers read it, ten times over.
  const list = new RevokedSessions({ coreUrl, apiKey: TEST_AUTH_CORE_API_KEY, pollMs: 1 })
  t.teardown(() => list.stop())
  const read = polls(list, 10, 'read')
  list.start()
  await read
  list.stop()
  // A tenant-prefixed path reaches the same route.
  t.equal((await core.inject({ url: '/public/recipe/session/revoked?since=0', headers: { 'api-key': TEST_AUTH_CORE_API_KEY } })).statusCode, 200)
  // What the load balancer and the metrics scraper ask, on every service.
  for (let round = 0; round < 3; round++) {
    for (const [app, probes] of [[bff, ['/healthz', '/readyz']], [api, ['/healthz', '/readyz']], [core, ['/readyz']]] as const) {
      for (const url of probes) t.equal((await app.inject(url)).statusCode, 200, url)
      t.equal((await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${operatorToken}` } })).statusCode, 200, '/metrics')
    }
  }
  // What an open tab polls to announce a deploy, through the BFF to the API.
  for (let round = 0; round < 3; round++) {
    const version = await bff.inject('/api/version')
    t.equal(version.statusCode, 200, '/api/version')
    t.match(version.json(), { version: String }, 'the API answered it')
  }
  t.same(logs.core.lines, [], 'the auth core wrote nothing')
  t.same(logs.api.lines, [], 'the API wrote nothing')
  t.same(logs.bff.lines, [], 'the BFF wrote nothing')

  // A person's request is still a line.
  await bff.inject('/api/programs?limit=1')
  t.ok(logs.bff.lines.some((line) => JSON.parse(line).msg === 'request completed'), "a person's request is logged as before")
})

t.test('a reader logs one line when the list becomes unreadable, whatever the number of polls, and one when it is back', async (t) => {
  const logs = { core: new LogCapture(), reader: new LogCapture() }
  const { authCore } = await buildStack(t, { env: { LOG_LEVEL: 'info' }, auth: true, coreLogStream: logs.core, apiLogStream: new LogCapture(), bffLogStream: new LogCapture() })
  const core = authCore!
  // The core behind a switch: on, the request goes to the core (through Fastify, logging and all); off, the core answers 503.
  let reachable = true
  const front = http.createServer((request, response) => {
    if (!reachable) return void response.writeHead(503).end()
    void core
      .inject({ method: 'GET', url: request.url!, headers: request.headers as Record<string, string> })
      .then((answer) => response.writeHead(answer.statusCode, { 'content-type': 'application/json' }).end(answer.body))
  })
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => front.close(() => resolve())))
  const list = new RevokedSessions({
    coreUrl: `http://127.0.0.1:${(front.address() as net.AddressInfo).port}`,
    apiKey: TEST_AUTH_CORE_API_KEY,
    pollMs: 1,
    log: pino({ level: 'info' }, logs.reader),
  })
  t.teardown(() => list.stop())
  logs.core.lines.length = 0
  const messages = () => logs.reader.lines.map((line) => (({ level, msg }) => ({ level, msg }))(JSON.parse(line)))

  let next = polls(list, 10, 'read')
  list.start()
  await next
  t.same(messages(), [], 'ten reads: nothing')

  reachable = false
  await polls(list, 10, 'attempt')
  t.same(messages(), [{ level: 40, msg: 'the session revocation list cannot be read from the auth core' }], 'ten failed reads: one warning')

  next = polls(list, 10, 'read')
  reachable = true
  await next
  t.same(
    messages(),
    [
      { level: 40, msg: 'the session revocation list cannot be read from the auth core' },
      { level: 30, msg: 'the session revocation list is readable again' },
    ],
    'back: one line, then nothing for ten reads',
  )
  t.same(logs.core.lines, [], 'and the core wrote nothing for any of it')
})
