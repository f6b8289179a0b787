import t from 'tap'
import { LoginAttempts } from '../../../server/bff/auth/login-attempts.ts'
import { browser, buildStack, openTestDatabase, credentials } from '../../helpers.ts'
import { migrateBffSchema } from '../../../server/bff/app.ts'

// Concurrent sign-ins with the right password: a check is counted before the
// password is verified, so parallel wrong attempts cannot run more checks than the limit. Ten
// parallel sign-ins with the RIGHT password used to get 5 × 200 and 5 × 429 ACCOUNT_BLOCKED "blocked
// until <in 15 minutes>" — no attempt had failed and check-block-status said not blocked. A sign-in
// held back only because others are in flight now waits for them (bounded) and then goes on; past
// the bound it answers 429 SIGN_IN_IN_PROGRESS, never a block that does not exist. Runs on PGlite,
// and on PostgreSQL with TEST_DATABASE_URL (the row locking differs).

const PASSWORD = 'the right password'
const LIMITS = { maxAttempts: 5, windowMinutes: 15, blockMinutes: 15 }

t.test('parallel sign-ins over HTTP', async (t) => {
  // A wait far longer than any check here takes on a loaded machine: what is tested is that the
  // held-back sign-ins wait and go on; the bound itself is tested below.
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', LOGIN_WAIT_MS: '30000' } })
  const tab = browser(stack.bff)
  const status = async (email: string) => (await tab.get(`/api/login-attempts/check-block-status?email=${encodeURIComponent(email)}`)).json()
  const signUp = async (email: string) => t.equal((await tab.post('/auth/signup', credentials(email, PASSWORD))).json().status, 'OK')
  const answer = (response: { statusCode: number; json: () => Record<string, unknown> }) => `${response.statusCode} ${String(response.json().status)}`

  await t.test('ten parallel sign-ins with the right password all sign in', async (t) => {
    await signUp('twice@example.com')
    const responses = await Promise.all(Array.from({ length: 10 }, () => browser(stack.bff).post('/auth/signin', credentials('twice@example.com', PASSWORD))))
    t.same(responses.map(answer), Array(10).fill('200 OK'), 'each one waited for the checks in flight, none was told "blocked"')
    t.ok(responses.every((r) => r.cookies.some((c) => c.name === 'sAccessToken')), 'each has a session')
    t.match(await status('twice@example.com'), { blocked: false, blockedUntil: null, attemptCount: 0, attemptsRemaining: 5 })
  })

  await t.test('wrong passwords in flight, fewer than the limit: the right ones are never told "blocked"', async (t) => {
    await signUp('mixed@example.com')
    const passwords = ['wrong password', PASSWORD, 'wrong password', PASSWORD, 'wrong password', PASSWORD, 'wrong password', PASSWORD, PASSWORD, PASSWORD]
    const responses = await Promise.all(passwords.map((password) => browser(stack.bff).post('/auth/signin', credentials('mixed@example.com', password))))
    const answers = responses.map(answer)
    t.same(
      answers.filter((_, i) => passwords[i] === PASSWORD),
      Array(6).fill('200 OK'),
      'the right password signs in',
    )
    t.same(
      answers.filter((_, i) => passwords[i] !== PASSWORD),
      Array(4).fill('200 WRONG_CREDENTIALS_ERROR'),
      'four wrong passwords are four failures, not a block',
    )
    t.match(await status('mixed@example.com'), { blocked: false, blockedUntil: null })
  })

  await t.test('enough wrong passwords in flight: a right one is told "blocked" only when the account really is', async (t) => {
    await signUp('really@example.com')
    const passwords = [...Array(7).fill('wrong password'), PASSWORD, PASSWORD, PASSWORD]
    const responses = await Promise.all(passwords.map((password) => browser(stack.bff).post('/auth/signin', credentials('really@example.com', password))))
    const after = await status('really@example.com')
    for (const [i, response] of responses.entries()) {
      const body = response.json()
      if (body.status !== 'ACCOUNT_BLOCKED') continue
      t.equal(response.statusCode, 429)
      t.ok(after.blocked, `answer ${i} said blocked: the account is blocked`)
      t.equal(body.blockedUntil, after.blockedUntil, `answer ${i} names the block the account has`)
    }
    t.ok(responses.every((r, i) => ['OK', 'ACCOUNT_BLOCKED', ...(passwords[i] === PASSWORD ? [] : ['WRONG_CREDENTIALS_ERROR'])].includes(r.json().status)), 'the right password signs in or meets the real block')
    t.notOk(responses.some((r) => r.json().status === 'SIGN_IN_IN_PROGRESS'), 'the checks in flight ended within the wait')
  })

  await t.test('ten parallel wrong passwords still cannot run more checks than the limit', async (t) => {
    await signUp('guess@example.com')
    const responses = await Promise.all(Array.from({ length: 10 }, () => browser(stack.bff).post('/auth/signin', credentials('guess@example.com', 'wrong password'))))
    const answers = responses.map(answer)
    t.equal(answers.filter((a) => a === '200 WRONG_CREDENTIALS_ERROR').length, 4, 'four plain failures')
    t.equal(answers.filter((a) => a === '429 ACCOUNT_BLOCKED').length, 6, 'the fifth blocks the account; the ones that waited learn the real block')
    const after = await status('guess@example.com')
    t.match(after, { blocked: true, attemptCount: 5 })
    for (const response of responses.filter((r) => r.statusCode === 429)) t.equal(response.json().blockedUntil, after.blockedUntil, 'the block the account has')
  })
})

t.test('a sign-in held back past the wait answers "in progress", not "blocked"', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', LOGIN_WAIT_MS: '0' } })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', credentials('held@example.com', PASSWORD))).json().status, 'OK')
  // Five checks under way elsewhere (another BFF instance on the same database) that do not end.
  const other = new LoginAttempts(stack.db, LIMITS)
  const held = []
  for (let i = 0; i < 5; i++) {
    const reservation = await other.reserve('held@example.com')
    if (!reservation.granted) throw new Error('the other instance was refused a check')
    held.push(reservation.key)
  }
  const response = await browser(stack.bff).post('/auth/signin', credentials('held@example.com', PASSWORD))
  t.equal(response.statusCode, 429)
  t.same(response.json(), { status: 'SIGN_IN_IN_PROGRESS', message: 'A sign-in for this account is already in progress, try again' })
  t.equal(response.headers['retry-after'], '1')
  t.equal(response.headers['cache-control'], 'no-store')
  t.notOk(response.cookies.some((c) => c.name === 'sAccessToken'), 'no session')
  t.match((await tab.get('/api/login-attempts/check-block-status?email=held@example.com')).json(), { blocked: false, blockedUntil: null, attemptCount: 0 })
  await other.succeeded(held[0]!)
  t.equal((await browser(stack.bff).post('/auth/signin', credentials('held@example.com', PASSWORD))).json().status, 'OK', 'once they end, the sign-in goes on')
})

t.test('the counter: checks in flight are not failures', async (t) => {
  const db = await openTestDatabase(t)
  await migrateBffSchema(db)
  let now = Date.UTC(2026, 10, 27, 12, 0, 0)
  const clock = () => now
  const reserveAll = async (attempts: LoginAttempts, email: string, n: number) => {
    const keys: string[] = []
    for (let i = 0; i < n; i++) {
      const reservation = await attempts.reserve(email)
      if (!reservation.granted) throw new Error(`check ${i + 1} was refused`)
      keys.push(reservation.key)
    }
    return keys
  }

  await t.test('a wrong password among checks in flight is one failure, not a block', async (t) => {
    const attempts = new LoginAttempts(db, LIMITS, clock)
    const [first] = await reserveAll(attempts, 'flight@example.com', 5)
    t.match(await attempts.failed(first!), { blocked: false, attemptCount: 1, attemptsRemaining: 4 })
    t.match(await attempts.check('flight@example.com'), { blocked: false, blockedUntil: null, attemptCount: 1 })
  })

  await t.test('the fifth wrong password blocks, once all five have failed', async (t) => {
    const attempts = new LoginAttempts(db, LIMITS, clock)
    const keys = await reserveAll(attempts, 'five@example.com', 5)
    for (const key of keys.slice(0, 4)) t.match(await attempts.failed(key), { blocked: false })
    t.match(await attempts.failed(keys[4]!), { blocked: true, attemptCount: 5, blockedUntil: '2026-11-27T12:15:00.000Z' })
  })

  await t.test('a held-back check waits and goes on when one in flight succeeds (same instance)', async (t) => {
    const attempts = new LoginAttempts(db, { ...LIMITS, waitMs: 60_000 }, clock)
    const keys = await reserveAll(attempts, 'wait@example.com', 5)
    let waited = 0
    const sixth = await attempts.reserve('wait@example.com', {
      onWait: () => {
        waited++
        void attempts.succeeded(keys[0]!)
      },
    })
    t.equal(waited, 1, 'it waited once')
    t.equal(sixth.granted, true, 'then it was granted')
  })

  await t.test('a held-back check learns of a success on another instance', async (t) => {
    const here = new LoginAttempts(db, { ...LIMITS, waitMs: 60_000 }, clock)
    const there = new LoginAttempts(db, LIMITS, clock)
    const keys = await reserveAll(there, 'apart@example.com', 5)
    const sixth = await here.reserve('apart@example.com', { onWait: () => void there.succeeded(keys[0]!) })
    t.equal(sixth.granted, true)
  })

  await t.test('a held-back check learns of a real block while it waits', async (t) => {
    const attempts = new LoginAttempts(db, { ...LIMITS, waitMs: 60_000 }, clock)
    const keys = await reserveAll(attempts, 'block@example.com', 5)
    const sixth = await attempts.reserve('block@example.com', {
      onWait: () => {
        void (async () => {
          for (const key of keys) await attempts.failed(key)
        })()
      },
    })
    t.match(sixth, { granted: false, inProgress: false, status: { blocked: true, attemptCount: 5, blockedUntil: '2026-11-27T12:15:00.000Z' } })
  })

  await t.test('past the wait: refused as in progress, not blocked', async (t) => {
    const attempts = new LoginAttempts(db, { ...LIMITS, waitMs: 0 }, clock)
    await reserveAll(attempts, 'busy@example.com', 5)
    const sixth = await attempts.reserve('busy@example.com')
    t.match(sixth, { granted: false, inProgress: true, status: { blocked: false, blockedUntil: null } })
    t.match(await attempts.check('busy@example.com'), { blocked: false, attemptCount: 0, attemptsRemaining: 5 })
  })

  await t.test('checks that never ended (a crashed instance) count as failures after a minute', async (t) => {
    const attempts = new LoginAttempts(db, { ...LIMITS, waitMs: 0 }, clock)
    const keys = await reserveAll(attempts, 'crash@example.com', 5)
    for (const key of keys.slice(0, 3)) await attempts.failed(key)
    t.match(await attempts.check('crash@example.com'), { blocked: false, attemptCount: 3 })
    now += 61_000
    t.match(await attempts.check('crash@example.com'), { blocked: true, attemptCount: 5 }, 'counted as before issue 18: the window ends the block')
    t.match(await attempts.reserve('crash@example.com'), { granted: false, inProgress: false })
  })
})
