import net from 'node:net'
import pg from 'pg'
import t, { type Test } from 'tap'
import type { Database } from '../../../server/db/database.ts'
import { browser, buildStack, LogCapture, openTestDatabase, pollFor, signedInTab, within } from '../../helpers.ts'

// In one process: the database goes away under the BFF, the API and the auth core. Each
// call then fails with node-postgres' own error for a server that refuses connections (a pool
// pointed at a closed port gives it), as when PostgreSQL is stopped. Callers used to get 502
// BFF_UPSTREAM_BAD_RESPONSE for /api and pages, 500 BFF_INTERNAL_ERROR for /auth, and every failure
// was an error line. Now: 503 with Retry-After and a stable code everywhere, the session kept, one
// warn line per service, and one info line when it is back. test/system/database-outage.test.ts
// does the same with a real PostgreSQL server stopped and started.

/** `db`, or — while `down` — the refusal node-postgres gives for a server that is not there. */
async function switchable(t: Test, db: Database) {
  const port = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
  const nowhere = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, max: 2 })
  t.teardown(() => nowhere.end())
  let down = false
  const gate = async () => {
    if (down) await nowhere.query('SELECT 1')
  }
  const switched: Database = {
    kind: db.kind,
    query: async (text, params) => {
      await gate()
      return db.query(text, params)
    },
    exec: async (text) => {
      await gate()
      return db.exec(text)
    },
    transaction: async (fn, options) => {
      await gate()
      return db.transaction(fn, options)
    },
    close: () => db.close(),
  }
  return { db: switched, setDown: (value: boolean) => void (down = value) }
}

interface Line {
  level: number
  msg: string
  service: string
  outage?: string
  cause?: string
}

const parsed = (capture: LogCapture): Line[] => capture.lines.map((line) => JSON.parse(line) as Line)

/** Asks a few times a second until the answer is the one awaited; fails past `ms`. */
function eventually<T>(ask: () => Promise<T>, done: (answer: T) => boolean, ms = 5_000): Promise<T> {
  return pollFor(
    async () => {
      const answer = await within(ask())
      return done(answer) ? answer : undefined
    },
    { ms, every: 200 },
  )
}

t.test('a database outage: 503 with Retry-After everywhere, the session kept, logged once per service', async (t) => {
  const database = await switchable(t, await openTestDatabase(t))
  const logs = { bff: new LogCapture(), api: new LogCapture(), authcore: new LogCapture() }
  const stack = await buildStack(t, {
    auth: true,
    db: database.db,
    bffLogStream: logs.bff,
    apiLogStream: logs.api,
    coreLogStream: logs.authcore,
    env: { AUTH_RATE_LIMIT_MAX: '1000', LOG_LEVEL: 'info' },
  })
  const tab = await signedInTab(stack, 'outage@example.com')
  t.equal((await tab.get('/api/programs?pageSize=1')).statusCode, 200)
  const cookies = new Map(tab.jar.cookies)

  database.setDown(true)
  // Different page sizes: none of them is in the BFF's short shared cache.
  for (let pageSize = 2; pageSize <= 11; pageSize++) {
    const response = await within(tab.get(`/api/programs?pageSize=${pageSize}`))
    t.equal(response.statusCode, 503, `/api/programs?pageSize=${pageSize}: ${response.body}`)
    t.equal(response.json().code, 'BFF_UPSTREAM_UNAVAILABLE')
    t.equal(response.headers['retry-after'], '2', 'the API\'s Retry-After, passed on')
  }
  const signedInCall = await within(tab.get('/api/user/program-ids'))
  t.equal(signedInCall.statusCode, 503, `a signed-in call: ${signedInCall.body}`)

  const visitor = browser(stack.bff)
  const page = await within(visitor.get('/?outage=1', { accept: 'text/html', 'accept-language': 'de' }))
  t.equal(page.statusCode, 503, 'a page answers 503')
  t.equal(page.headers['retry-after'], '2')
  t.match(page.body, /data-status="503"/)
  t.match(page.body, /Dienst nicht verfügbar/, 'the error page in the visitor\'s language')

  const signIn = await within(visitor.post('/auth/signin', { formFields: [{ id: 'email', value: 'outage@example.com' }, { id: 'password', value: 'correct horse battery' }] }))
  t.equal(signIn.statusCode, 503, `sign-in: ${signIn.body}`)
  t.equal(signIn.json().code, 'BFF_AUTH_CORE_UNAVAILABLE')
  t.equal(signIn.headers['retry-after'], '2')

  // The reset page asks whether its link is still good: 503 too, and said once (below).
  for (let i = 0; i < 2; i++) {
    const check = await within(visitor.get('/auth/user/password/reset/token/check?token=some-token'))
    t.equal(check.statusCode, 503, `the reset link check: ${check.body}`)
    t.equal(check.json().code, 'BFF_AUTH_CORE_UNAVAILABLE')
  }

  const refresh = await within(tab.post('/auth/session/refresh'))
  t.equal(refresh.statusCode, 503, `a refresh is 503, never 401 (the browser would sign out): ${refresh.body}`)
  t.equal(refresh.json().code, 'BFF_AUTH_CORE_UNAVAILABLE')
  t.ok(refresh.headers['retry-after'])
  t.same(refresh.cookies, [], 'and clears no cookie')
  t.same(new Map(tab.jar.cookies), cookies, 'the browser keeps its session')

  // The outage is every instance's, so each stays in the balancer and answers its own
  // 503s; /readyz reports the outage.
  const readyBff = await eventually(() => stack.bff.inject('/readyz'), (response) => response.json().dependencies?.database === 'unreachable')
  t.equal(readyBff.statusCode, 200, 'the BFF stays ready')
  const readyApi = await eventually(() => stack.api.inject('/readyz'), (response) => response.json().dependencies?.database === 'unreachable')
  t.equal(readyApi.statusCode, 200, 'the API too')

  // A signed-in page: its loaders' 503 at first; once the session revocation list has not been
  // read for 10 s (the core cannot serve it), the session itself cannot be checked — then the
  // page is the error page the BFF writes itself, still 503, in the visitor's language, styled.
  const signedInPage = () => tab.get('/@/library', { accept: 'text/html', 'accept-language': 'hu' })
  const first = await within(signedInPage())
  t.equal(first.statusCode, 503, `a signed-in page is 503: ${first.statusCode} ${first.headers.location ?? ''} ${first.body.slice(0, 300)}`)
  t.match(first.body, /A szolgáltatás nem érhető el/)
  const unchecked = await eventually(signedInPage, (response) => /<small>[0-9a-f-]{36}<\/small>/.test(response.body), 20_000)
  t.equal(unchecked.statusCode, 503)
  t.equal(unchecked.headers['retry-after'], '2')
  t.match(unchecked.body, /<html lang="hu">/)
  t.match(unchecked.body, /<p class="error-status" aria-hidden="true">503<\/p><h1>A szolgáltatás nem érhető el<\/h1>/)
  t.match(unchecked.body, /<link rel="stylesheet"[^>]* href="\/assets\/[^"]+\.css">/, 'with the app\'s stylesheet')
  t.same(new Map(tab.jar.cookies), cookies, 'the session is kept')

  for (const [service, capture] of Object.entries(logs)) {
    const lines = parsed(capture)
    t.same(lines.filter((line) => line.level >= 50), [], `${service}: no error lines`)
    const warned = lines.filter((line) => line.msg === 'database unreachable')
    t.equal(warned.length, 1, `${service}: one "database unreachable" line for the outage`)
    t.match(warned[0], { level: 40, outage: 'database', cause: 'ECONNREFUSED' })
    const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg)
    t.equal(new Set(warnings).size, warnings.length, `${service}: no warning repeats (${warnings.join('; ')})`)
  }

  database.setDown(false)
  await eventually(() => stack.bff.inject('/readyz'), (response) => response.json().dependencies?.database === 'ok')
  t.equal((await tab.get('/api/programs?pageSize=12')).statusCode, 200, 'the API answers again')
  const again = await within(tab.post('/auth/session/refresh'))
  t.equal(again.statusCode, 200, `the session still refreshes: ${again.body}`)
  // The revocation list, stale after a long outage, is read again within half a second.
  const library = await eventually(() => tab.get('/api/user/program-ids'), (response) => response.statusCode === 200)
  t.equal(library.statusCode, 200, `and opens the library: ${library.body}`)
  t.equal((await within(visitor.get('/?outage=2', { accept: 'text/html' }))).statusCode, 200, 'pages render')
  for (const [service, capture] of Object.entries(logs)) {
    const ended = parsed(capture).filter((line) => line.msg === 'database reachable again')
    t.equal(ended.length, 1, `${service}: one line says the outage ended`)
    t.match(ended[0], { level: 30, outage: 'database', failures: Number })
  }
})
