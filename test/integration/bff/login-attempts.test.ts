import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { buildBff } from '../../../server/bff/app.ts'
import { LoginAttempts } from '../../../server/bff/auth/login-attempts.ts'
import { browser, buildStack, lastMailLink, LogCapture, TEST_AUTH_CORE_API_KEY, testBuildInfo, credentials } from '../../helpers.ts'

// Login-attempt blocking (DESIGN.md §4.8, SECURITY.md "Sign-in abuse"), through the
// BFF's /auth and its status endpoint, on the real auth core.

const PASSWORD = 'the right password'

t.test('login-attempt blocking', async (t) => {
  const logs = new LogCapture()
  // The parallel attempts held back wait for the checks in flight: a wait no loaded
  // machine exceeds, so they learn the real block rather than "in progress".
  const stack = await buildStack(t, { auth: true, bffLogStream: logs, env: { LOG_LEVEL: 'info', AUTH_RATE_LIMIT_MAX: '1000', LOGIN_WAIT_MS: '30000' } })
  const tab = browser(stack.bff)
  for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com']) t.equal((await tab.post('/auth/signup', credentials(email, PASSWORD))).json().status, 'OK')
  const status = async (email: string) => (await tab.get(`/api/login-attempts/check-block-status?email=${encodeURIComponent(email)}`)).json()

  await t.test('the status of an email nobody tried has the full shape', async (t) => {
    t.same(await status('ada@example.com'), { attemptsRemaining: 5, blocked: false, blockedUntil: null, attemptCount: 0, message: 'No failed sign-in attempts.' })
    t.same(await status('nobody@example.com'), await status('ada@example.com'), 'an unknown email looks the same')
    const missing = await tab.get('/api/login-attempts/check-block-status')
    t.equal(missing.statusCode, 400)
    t.equal(missing.json().code, 'BFF_EMAIL_REQUIRED')
    t.equal((await tab.get('/api/login-attempts/check-block-status?email=x@y.z')).headers['cache-control'], 'no-store')
  })

  await t.test('wrong passwords count down, then block — even the right password', async (t) => {
    const seen: Array<{ code: number; status: string; remaining: number }> = []
    for (let i = 0; i < 4; i++) {
      const response = await tab.post('/auth/signin', credentials(i % 2 ? ' ADA@Example.com' : 'ada@example.com', 'wrong password'))
      seen.push({ code: response.statusCode, status: response.json().status, remaining: (await status('Ada@example.com ')).attemptsRemaining })
    }
    t.same(seen, [
      { code: 200, status: 'WRONG_CREDENTIALS_ERROR', remaining: 4 },
      { code: 200, status: 'WRONG_CREDENTIALS_ERROR', remaining: 3 },
      { code: 200, status: 'WRONG_CREDENTIALS_ERROR', remaining: 2 },
      { code: 200, status: 'WRONG_CREDENTIALS_ERROR', remaining: 1 },
    ], 'case and spaces are the same counter')
    t.equal((await status('ada@example.com')).message, '1 attempt remaining before the account is blocked for 15 minutes.')
    const before = Date.now()
    const fifth = await tab.post('/auth/signin', credentials('ada@example.com', 'wrong password'))
    t.equal(fifth.statusCode, 429, 'the failure that reaches the limit answers blocked')
    const body = fifth.json()
    t.match(body, { status: 'ACCOUNT_BLOCKED', attemptCount: 5, message: /^Too many failed sign-in attempts\. Your account is blocked until / })
    const until = Date.parse(body.blockedUntil)
    t.ok(until >= before + 15 * 60_000 - 1000 && until <= Date.now() + 15 * 60_000, 'blocked for 15 minutes')
    const right = await tab.post('/auth/signin', credentials('ada@example.com', PASSWORD))
    t.equal(right.statusCode, 429)
    t.equal(right.json().status, 'ACCOUNT_BLOCKED')
    t.notOk(right.cookies.some((c) => c.name === 'sAccessToken'), 'no session')
    t.match(await status('ada@example.com'), { blocked: true, attemptsRemaining: 0, attemptCount: 5, blockedUntil: body.blockedUntil })
  })

  await t.test('a success resets the counter', async (t) => {
    await tab.post('/auth/signin', credentials('bob@example.com', 'wrong password'))
    await tab.post('/auth/signin', credentials('bob@example.com', 'wrong password'))
    t.equal((await status('bob@example.com')).attemptsRemaining, 3)
    t.equal((await tab.post('/auth/signin', credentials('bob@example.com', PASSWORD))).json().status, 'OK')
    t.match(await status('bob@example.com'), { attemptsRemaining: 5, attemptCount: 0 })
  })

  await t.test('parallel wrong attempts cannot run more password checks than the limit', async (t) => {
    const responses = await Promise.all(Array.from({ length: 12 }, () => browser(stack.bff).post('/auth/signin', credentials('cy@example.com', 'wrong password'))))
    const checked = responses.filter((r) => r.json().status === 'WRONG_CREDENTIALS_ERROR').length
    const refused = responses.filter((r) => r.statusCode === 429 && r.json().status === 'ACCOUNT_BLOCKED').length
    t.ok(checked <= 4, `at most 4 plain failures (${checked}); the fifth answers blocked`)
    t.equal(checked + refused, 12)
    t.match(await status('cy@example.com'), { blocked: true, attemptCount: 5 })
  })

  await t.test('unknown emails are counted and answered like known ones', async (t) => {
    const known = await tab.post('/auth/signin', credentials('bob@example.com', 'wrong password'))
    const unknown = await tab.post('/auth/signin', credentials('ghost@example.com', 'wrong password'))
    t.same(unknown.json(), known.json())
    t.same(await status('ghost@example.com'), await status('bob@example.com'))
  })

  await t.test('counters survive a restart', async (t) => {
    const again = await buildStack(t, { auth: true, db: stack.db })
    const response = await browser(again.bff).post('/auth/signin', credentials('ada@example.com', PASSWORD))
    t.equal(response.statusCode, 429)
  })

  await t.test('sign-ins are logged with a hashed email, never the address or the password', async (t) => {
    const lines = logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === 'sign-in')
    t.ok(lines.some((line) => line.outcome === 'success'))
    t.ok(lines.some((line) => line.outcome === 'wrong-credentials'))
    t.ok(lines.some((line) => line.outcome === 'blocked'))
    for (const line of lines) t.match(line, { emailHash: /^[0-9a-f]{16}$/, ip: '127.0.0.1', at: /Z$/ })
    t.notMatch(logs.text, /ada@example\.com|the right password|wrong password/i)
  })
})

t.test('a block ends after its time, with a fresh window of attempts', async (t) => {
  const stack = await buildStack(t)
  let now = Date.UTC(2026, 10, 22, 12, 0, 0)
  const attempts = new LoginAttempts(stack.db, { maxAttempts: 2, windowMinutes: 10, blockMinutes: 5 }, () => now)
  const fail = async () => {
    const reservation = await attempts.reserve('dee@example.com')
    if (!reservation.granted) return reservation.status
    return attempts.failed(reservation.key)
  }
  t.match(await fail(), { blocked: false, attemptsRemaining: 1 })
  t.match(await fail(), { blocked: true, blockedUntil: '2026-11-22T12:05:00.000Z' })
  now += 4 * 60_000
  t.match(await fail(), { blocked: true, attemptCount: 2 }, 'still blocked after 4 minutes')
  now += 61_000
  t.match(await attempts.check('dee@example.com'), { blocked: false, attemptsRemaining: 2, attemptCount: 0 })
  t.match(await fail(), { blocked: false, attemptsRemaining: 1 }, 'a fresh window')
  now += 11 * 60_000
  t.match(await attempts.check('dee@example.com'), { attemptsRemaining: 2 }, 'failures older than the window are forgotten')
})

// After five wrong passwords, "Forgot your password?" and a new password, the new one was
// refused "until 00:58". The reset proves the mailbox: it ends the block and the counter, for every
// spelling of the email sign-in counts as one, through every spelling of the reset path.
t.test('a completed password reset ends the sign-in block of the account (issue 27)', async (t) => {
  const logs = new LogCapture()
  const stack = await buildStack(t, { auth: true, bffLogStream: logs, env: { LOG_LEVEL: 'info', AUTH_RATE_LIMIT_MAX: '1000' } })
  const tab = browser(stack.bff)
  const status = async (email: string) => (await tab.get(`/api/login-attempts/check-block-status?email=${encodeURIComponent(email)}`)).json()
  const blockAndMail = async (email: string, spellings: string[]) => {
    t.equal((await tab.post('/auth/signup', credentials(email, PASSWORD))).json().status, 'OK')
    for (const spelling of spellings) await tab.post('/auth/signin', credentials(spelling, 'wrong password'))
    t.match(await status(email), { blocked: true, attemptCount: 5 })
    t.equal((await tab.post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: email }] })).json().status, 'OK')
    return lastMailLink(stack, email).searchParams.get('token')
  }
  const reset = (path: string, token: string | null, password: string) => tab.post(path, { method: 'token', token, formFields: [{ id: 'password', value: password }] })

  await t.test('a refused reset changes nothing; a completed one unblocks every spelling of the email', async (t) => {
    const token = await blockAndMail('eve@example.com', ['eve@example.com', ' EVE@example.com', 'Eve@Example.com ', 'eve@EXAMPLE.com', 'eve@example.com'])
    t.equal((await reset('/auth/user/password/reset', token, 'short')).json().status, 'FIELD_ERROR')
    t.equal((await reset('/auth/user/password/reset', 'not-a-token', 'a brand new password')).json().status, 'RESET_PASSWORD_INVALID_TOKEN_ERROR')
    t.match(await status('eve@example.com'), { blocked: true }, 'only a completed reset proves the mailbox')
    t.equal((await reset('/auth/user/password/reset', token, 'a brand new password')).json().status, 'OK')
    for (const spelling of ['eve@example.com', ' Eve@Example.COM ']) {
      t.same(await status(spelling), { attemptsRemaining: 5, blocked: false, blockedUntil: null, attemptCount: 0, message: 'No failed sign-in attempts.' }, `unblocked: ${JSON.stringify(spelling)}`)
    }
    const signIn = await tab.post('/auth/signin', credentials(' EVE@example.com', 'a brand new password'))
    t.equal(signIn.statusCode, 200)
    t.equal(signIn.json().status, 'OK', 'the new password signs in at once')
    const unblocked = logs.lines.filter((line) => line.includes('"event":"sign-in-unblocked"'))
    t.equal(unblocked.length, 1)
    t.match(unblocked[0], /"wasBlocked":true/)
    t.notMatch(unblocked[0], /eve@/i, 'logged with a hashed email')
  })

  await t.test('through the tenant\'s spelling of the reset path, with a trailing slash', async (t) => {
    const token = await blockAndMail('fay@example.com', Array.from({ length: 5 }, () => 'fay@example.com'))
    t.equal((await reset('/auth/public/user/password/reset/', token, 'a brand new password')).json().status, 'OK')
    t.match(await status('fay@example.com'), { blocked: false, attemptCount: 0 })
    t.equal((await tab.post('/auth/signin', credentials('fay@example.com', 'a brand new password'))).json().status, 'OK')
  })

  await t.test('wrong passwords short of a block are forgotten too', async (t) => {
    t.equal((await tab.post('/auth/signup', credentials('gus@example.com', PASSWORD))).json().status, 'OK')
    for (let i = 0; i < 3; i++) await tab.post('/auth/signin', credentials('gus@example.com', 'wrong password'))
    t.match(await status('gus@example.com'), { blocked: false, attemptsRemaining: 2 })
    t.equal((await tab.post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'gus@example.com' }] })).json().status, 'OK')
    t.equal((await reset('/auth/user/password/reset', lastMailLink(stack, 'gus@example.com').searchParams.get('token'), 'a brand new password')).json().status, 'OK')
    t.match(await status('gus@example.com'), { attemptsRemaining: 5, attemptCount: 0 })
  })
})

// The guard once recognised a sign-in by its own pattern of the path and skipped long
// emails, while supertokens-node routes many more spellings and trims the email itself. Each
// spelling below is one the SDK answers as a sign-in (the first right password proves it).
t.test('every spelling the SDK routes as a sign-in is counted and blocked (issue 17)', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const tab = browser(stack.bff)
  const status = async (email: string) => (await tab.get(`/api/login-attempts/check-block-status?email=${encodeURIComponent(email)}`)).json()
  const cases: Array<{ name: string; url: string; email: (address: string) => string }> = [
    { name: 'trailing slash', url: '/auth/signin/', email: (a) => a },
    { name: 'tenant prefix', url: '/auth/public/signin', email: (a) => a },
    { name: 'tenant prefix and trailing slash', url: '/auth/public/signin/', email: (a) => a },
    { name: 'query string', url: '/auth/signin?a=1', email: (a) => a },
    { name: 'trailing slash and query string', url: '/auth/signin/?a=1', email: (a) => a },
    { name: 'two trailing slashes', url: '/auth/signin//', email: (a) => a },
    { name: 'dot segments', url: '/auth/x/../signin', email: (a) => a },
    { name: 'encoded dot segments', url: '/auth/%2e%2e/auth/signin', email: (a) => a },
    { name: 'a backslash', url: '/auth\\signin', email: (a) => a },
    { name: 'email padded with 600 spaces', url: '/auth/signin', email: (a) => `${' '.repeat(600)}${a}${' '.repeat(600)}` },
    { name: 'email in mixed case', url: '/auth/signin', email: (a) => a.toUpperCase().replace('EXAMPLE', 'Example') },
    { name: 'padded, mixed case, tenant prefix', url: '/auth/public/signin/?x=1', email: (a) => `${' '.repeat(600)}${a.toUpperCase()}` },
  ]
  for (const [i, c] of cases.entries()) {
    await t.test(c.name, async (t) => {
      const address = `spelling${i}@example.com`
      t.equal((await tab.post('/auth/signup', credentials(address, PASSWORD))).json().status, 'OK')
      t.equal((await browser(stack.bff).post(c.url, credentials(c.email(address), PASSWORD))).json().status, 'OK', 'the SDK signs in at this spelling')
      const answers: string[] = []
      for (let n = 0; n < 6; n++) {
        const response = await browser(stack.bff).post(c.url, credentials(c.email(address), 'wrong password'))
        answers.push(`${response.statusCode} ${response.json().status}`)
      }
      t.same(answers, [...Array(4).fill('200 WRONG_CREDENTIALS_ERROR'), '429 ACCOUNT_BLOCKED', '429 ACCOUNT_BLOCKED'], 'wrong passwords are counted')
      t.match(await status(address), { blocked: true, attemptCount: 5 })
      for (const url of [c.url, '/auth/signin']) {
        const right = await browser(stack.bff).post(url, credentials(c.email(address), PASSWORD))
        t.equal(right.statusCode, 429, `the right password is refused while blocked (${url})`)
        t.match(right.json(), { status: 'ACCOUNT_BLOCKED', attemptCount: 5, blockedUntil: /Z$/ })
        t.notOk(right.cookies.some((cookie) => cookie.name === 'sAccessToken'), 'no session')
      }
      const plain = await browser(stack.bff).post('/auth/signin', credentials(address, PASSWORD))
      t.equal(plain.statusCode, 429, 'the plain spelling shares the counter')
    })
  }

  await t.test('spellings the SDK does not route are not sign-ins at all', async (t) => {
    const address = 'unrouted@example.com'
    t.equal((await tab.post('/auth/signup', credentials(address, PASSWORD))).json().status, 'OK')
    for (const url of ['/auth/SIGNIN', '/auth/SignIn', '/AUTH/signin', '/auth//signin', '/auth/public//signin', '//auth/signin', '/auth/sign%69n', '/auth/signin%20']) {
      const response = await browser(stack.bff).post(url, credentials(address, PASSWORD))
      t.equal(response.statusCode, 404, url)
      t.notOk(response.cookies.some((cookie) => cookie.name === 'sAccessToken'), `${url}: no session`)
    }
    t.match(await status(address), { attemptCount: 0 })
  })

  await t.test('a padded email the SDK refuses is neither counted nor checked', async (t) => {
    const response = await browser(stack.bff).post('/auth/signin', credentials(`${' '.repeat(600)}not an email`, PASSWORD))
    t.match(response.json(), { status: 'FIELD_ERROR', formFields: [{ id: 'email', error: 'Email is invalid' }] })
  })
})

// Enumeration by timing: supertokens-node answers an unknown email without asking the
// core to check a password, so the answer came 5–10 times faster than for a known one. The core
// checks a decoy hash of the app's own algorithm for an email it does not know; the BFF must
// therefore ask it in both cases. Recorded by a loopback proxy between the BFF and the core.
t.test('an unknown email costs the core the same work as a known one (issue 17)', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const coreUrl = `http://127.0.0.1:${(stack.authCore!.server.address() as AddressInfo).port}`
  let calls: string[] = []
  const proxy = http.createServer((request, response) => {
    const path = request.url!.split('?')[0]
    // The revocation list and the role-change feed are read twice a second whatever the requests
    // are (decisions 009 and 028): not a sign-in's work.
    if (path !== '/recipe/session/revoked' && path !== '/recipe/user/roles/changed') calls.push(`${request.method} ${path}`)
    const upstream = http.request(`${coreUrl}${request.url}`, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode!, answer.headers)
      answer.pipe(response)
    })
    request.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => proxy.close(() => resolve())))
  const bff = await buildBff({ config: stack.config, db: stack.db, buildInfo: testBuildInfo, upstreamApiUrl: stack.apiUrl, authCoreUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, authCoreApiKey: TEST_AUTH_CORE_API_KEY })
  t.teardown(() => bff.close())
  const tab = browser(bff)
  t.equal((await tab.post('/auth/signup', credentials('known@example.com', PASSWORD))).json().status, 'OK')
  const coreCalls = async (url: string, payload: unknown, status: string) => {
    calls = []
    t.equal((await browser(bff).post(url, payload)).json().status, status)
    return calls
  }
  const signIn = (email: string) => coreCalls('/auth/signin', credentials(email, 'wrong password'), 'WRONG_CREDENTIALS_ERROR')
  const known = await signIn('known@example.com')
  t.equal(known.filter((call) => call.endsWith('/recipe/signin')).length, 1, 'a known email: one password check at the core')
  t.same(await signIn('unknown@example.com'), known, 'an unknown email: the same calls (the core verifies its decoy)')
  t.equal((await signIn('x@stfakeemail.supertokens.com')).filter((call) => call.endsWith('/recipe/signin')).length, 1, 'an address the SDK refuses early: one check too')

  const reset = (email: string) => coreCalls('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: email }] }, 'OK')
  const knownReset = await reset('known@example.com')
  t.ok(knownReset.some((call) => call.endsWith('/recipe/user/password/reset/token')), 'a known email: a reset token')
  t.same(await reset('unknown@example.com'), knownReset, 'an unknown email: the same calls, nothing sent')
})
