import t from 'tap'
import { browser, buildStack, LogCapture, openTestDatabase, within, credentials } from '../../helpers.ts'

// End to end: a browser's session refresh once the auth core's key cache is stale
// (every browser does it when its access token expires) used to freeze the embedded app — the
// refresh never answered, and every page and /api call after it waited. Now it answers, and the
// app keeps serving. The core's clock is moved instead of waiting.



t.test('a refresh after the key cache went stale answers, and the app keeps serving', async (t) => {
  let skew = 0
  const stack = await buildStack(t, { auth: true, coreNow: () => Date.now() + skew, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', credentials('refresh@example.com', 'correct horse battery'))).json().status, 'OK')
  const firstAccess = tab.jar.get('sAccessToken')

  skew += 6_000
  const refreshed = await within(tab.post('/auth/session/refresh'))
  t.equal(refreshed.statusCode, 200, refreshed.body)
  t.ok(tab.jar.get('sAccessToken') && tab.jar.get('sAccessToken') !== firstAccess, 'a new access token')

  skew += 6_000
  const again = await within(tab.post('/auth/session/refresh'))
  t.equal(again.statusCode, 200, 'and the next refresh too')

  t.equal((await within(tab.get('/readyz'))).statusCode, 200, '/readyz answers')
  t.equal((await within(tab.get('/api/version'))).statusCode, 200, '/api answers')
  const page = await within(tab.get('/'))
  t.ok([200, 302].includes(page.statusCode), `a page answers (${page.statusCode})`)
})

t.test('a database held past the bound answers 503 on /auth and /api, and everything serves once it is free', async (t) => {
  const db = await openTestDatabase(t, { timeoutMs: 1_500 })
  const logs = new LogCapture()
  const stack = await buildStack(t, { auth: true, db, bffLogStream: logs, apiLogStream: logs, env: { AUTH_RATE_LIMIT_MAX: '1000', LOG_LEVEL: 'warn' } })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', credentials('stuck@example.com', 'correct horse battery'))).json().status, 'OK')

  // Another caller holds the tables the requests need (on PGlite: the only connection).
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  let locked = () => {}
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  const holder = db.transaction(
    async (tx) => {
      await tx.exec('LOCK TABLE authcore.sessions, api.users IN ACCESS EXCLUSIVE MODE')
      locked()
      await held
    },
    { timeoutMs: 60_000 },
  )
  // The requests start once the lock is held (on PostgreSQL the holder's BEGIN and LOCK take a
  // round trip each, and a refresh sent before them would simply succeed).
  await within(lockTaken, 20_000)
  const refresh = await within(tab.post('/auth/session/refresh'), 20_000)
  t.equal(refresh.statusCode, 503, `the refresh fails with 503, not 500 or 401 (${refresh.body})`)
  t.equal(refresh.json().code, 'BFF_AUTH_CORE_UNAVAILABLE')
  t.ok(refresh.headers['retry-after'], 'with Retry-After')
  t.ok(tab.jar.get('sRefreshToken'), 'the user is not signed out')
  const user = await within(tab.put('/api/user', {}), 20_000)
  t.equal(user.statusCode, 503, `/api answers 503 (${user.body})`)
  t.match(logs.text, /database did not answer in time/, 'a log line says why')

  release()
  await holder
  t.equal((await within(tab.post('/auth/session/refresh'))).statusCode, 200, 'the refresh works once the database is free')
  t.equal((await within(tab.put('/api/user', {}))).statusCode, 200, 'and so does the API')
})
