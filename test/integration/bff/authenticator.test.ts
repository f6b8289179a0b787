import { createHash } from 'node:crypto'
import t from 'tap'
import { browser, buildStack, confirmedAuthenticator, signedInTab, TestClock, credentials } from '../../helpers.ts'
import { startOidcProvider } from '../../oidc-provider.ts'

// The profile's authenticator: the security summary, removing a device with a current
// code (wrong codes counted by the core, a confirmed device no longer removable through the SDK
// without one), recovery codes shown once at set-up and on request, stored hashed, spent once at
// /mfa instead of a TOTP code, and limited like the TOTP factor — past the cool-down on an
// injected clock. One clock, the test's, for the BFF, the auth core and the codes the test computes
// (the core and the codes were on the wall clock).

const REDIRECT = 'http://localhost:3000/auth-callback/oidc'
const CODE_SHAPE = /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/

const clock = new TestClock()
const idp = await startOidcProvider(t, REDIRECT)
const stack = await buildStack(t, {
  auth: true,
  now: clock.fixed,
  coreNow: clock.now,
  env: { RATE_LIMIT_MAX: '10000', AUTH_RATE_LIMIT_MAX: '200', OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, OIDC_NAME: 'Test Identity' },
})

type Tab = ReturnType<typeof browser>
/** A code no window the core accepts (period −1…+1) would take. */

const send = (tab: Tab, method: 'POST' | 'DELETE', url: string, payload?: unknown, headers?: Record<string, string>) => tab.send(method, url, payload, headers)

const setUpTotp = (tab: Tab) => confirmedAuthenticator(tab, 'Softshelf', {}, clock)

/** A new sign-in with the password: the first factor done, the second owed. */
async function signIn(email: string): Promise<Tab> {
  const tab = browser(stack.bff)
  const answer = await tab.post('/auth/signin', credentials(email))
  if (answer.json().status !== 'OK') throw new Error(`sign-in failed: ${answer.body}`)
  return tab
}

async function userIdOf(email: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>('SELECT id FROM api.users WHERE email = $1', [email])
  return rows[0]!.id
}

const redeem = (tab: Tab, code: unknown, headers: Record<string, string> = {}) => send(tab, 'POST', '/api/user/recovery-codes/redeem', { code }, headers)

t.test('the security summary says what protects the account', async (t) => {
  const tab = await signedInTab(stack, 'summary@example.com')
  const before = await tab.get('/api/user/security')
  t.equal(before.statusCode, 200)
  t.equal(before.headers['cache-control'], 'no-store')
  t.same(before.json(), { email: 'summary@example.com', hasPassword: true, totp: { enabled: false, devices: [] }, recoveryCodes: { remaining: 0 } })

  // An abandoned set-up is no authenticator.
  t.equal((await tab.post('/auth/totp/device', { deviceName: 'Softshelf' })).json().status, 'OK')
  t.same((await tab.get('/api/user/security')).json().totp, { enabled: false, devices: [] })
  await setUpTotp(tab)
  t.same((await tab.get('/api/user/security')).json(), { email: 'summary@example.com', hasPassword: true, totp: { enabled: true, devices: [{ name: 'Softshelf' }] }, recoveryCodes: { remaining: 10 } })

  t.equal((await browser(stack.bff).get('/api/user/security')).statusCode, 401, 'no session: the SDK\'s 401')
  const pending = await signIn('summary@example.com')
  t.equal((await pending.get('/api/user/security')).statusCode, 403, 'the second factor still owed: a failed claim')
})

t.test('an account from an external provider has no password', async (t) => {
  const tab = browser(stack.bff)
  const authorise = await tab.get(`/auth/authorisationurl?thirdPartyId=oidc&redirectURIOnProviderDashboard=${encodeURIComponent(REDIRECT)}`)
  const back = await idp.signIn(authorise.json().urlWithQueryParams as string, 'external@example.com')
  const signedIn = await tab.post('/auth/signinup', {
    thirdPartyId: 'oidc',
    clientType: 'web',
    redirectURIInfo: { redirectURIOnProviderDashboard: REDIRECT, redirectURIQueryParams: Object.fromEntries(back.searchParams), pkceCodeVerifier: authorise.json().pkceCodeVerifier },
  })
  t.equal(signedIn.json().status, 'OK')
  const summary = await tab.get('/api/user/security')
  t.equal(summary.statusCode, 200)
  t.same(summary.json(), { email: 'external@example.com', hasPassword: false, totp: { enabled: false, devices: [] }, recoveryCodes: { remaining: 0 } })
})

t.test('the set-up shows ten recovery codes once, and only their hashes are stored', async (t) => {
  const tab = await signedInTab(stack, 'codes@example.com')
  const { secret, codes } = await setUpTotp(tab)
  t.equal(codes.length, 10)
  t.ok(codes.every((code) => CODE_SHAPE.test(code)), 'xxxx-xxxx-xxxx-xxxx')
  t.equal(new Set(codes).size, 10, 'all different')

  const again = await tab.post('/auth/totp/device/verify', { deviceName: 'Softshelf', totp: clock.totp(secret, 1) })
  t.equal(again.json().status, 'OK')
  t.equal(again.json().recoveryCodes, undefined, 'a device confirmed already brings no new set')

  const { rows } = await stack.db.query<{ user_id: string; code_hash: string }>('SELECT user_id, code_hash FROM bff.recovery_codes WHERE user_id = $1', [await userIdOf('codes@example.com')])
  t.equal(rows.length, 10)
  t.ok(rows.every((row) => /^[0-9a-f]{64}$/.test(row.code_hash)), 'SHA-256 hashes')
  const everything = JSON.stringify((await stack.db.query('SELECT * FROM bff.recovery_codes')).rows).toLowerCase()
  const leaked = codes.filter((code) => everything.includes(code) || everything.includes(code.replace(/-/g, '')))
  t.same(leaked, [], 'no code in plain text')
  const plainHashes = codes.map((code) => createHash('sha256').update(code.replace(/-/g, '').toUpperCase()).digest('hex'))
  t.same(plainHashes.filter((hash) => everything.includes(hash)), [], 'nor as a bare unsalted hash')
  t.notMatch((await tab.get('/api/user/security')).body, codes[0]!, 'the summary never shows them again')
})

t.test('a recovery code completes the second factor, once', async (t) => {
  const owner = await signedInTab(stack, 'redeem@example.com')
  const { codes } = await setUpTotp(owner)

  const tab = await signIn('redeem@example.com')
  t.equal((await tab.get('/api/user')).statusCode, 403, 'the second factor is owed')
  const wrong = await redeem(tab, 'aaaa-bbbb-cccc-dddd')
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().code, 'BFF_RECOVERY_CODE_INVALID')
  t.equal((await redeem(tab, 42)).json().code, 'BFF_RECOVERY_CODE_INVALID', 'not a string: refused')

  const forged = await redeem(tab, codes[0], { rid: '' })
  t.equal(forged.statusCode, 403, 'no custom header: refused')
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')
  const asForm = await stack.bff.inject({ method: 'POST', url: '/api/user/recovery-codes/redeem', headers: { cookie: tab.jar.header('/api'), rid: 'anti-csrf', 'content-type': 'application/x-www-form-urlencoded' }, payload: `code=${codes[0]}` })
  t.equal(asForm.statusCode, 403, 'a simple form: refused')

  // Case, spaces and dashes do not matter.
  const typed = ` ${codes[0]!.replace(/-/g, ' ').toUpperCase()} `
  const done = await redeem(tab, typed)
  t.equal(done.statusCode, 200, done.body)
  t.same(done.json(), { status: 'OK', recoveryCodesLeft: 9 })
  t.equal(done.headers['cache-control'], 'no-store')
  t.equal((await tab.get('/api/user')).statusCode, 200, 'signed in fully, as after a TOTP code')
  t.match((await tab.put('/auth/mfa/info')).json(), { status: 'OK', factors: { next: [] } })

  const later = await signIn('redeem@example.com')
  const reused = await redeem(later, codes[0])
  t.equal(reused.statusCode, 400, 'a code works once')
  t.equal((await later.get('/api/user')).statusCode, 403)

  // Two sign-ins send the same code at once: one of them gets it.
  const [a, b] = [await signIn('redeem@example.com'), await signIn('redeem@example.com')]
  const answers = await Promise.all([redeem(a, codes[1]), redeem(b, codes[1])])
  t.same(answers.map((answer) => answer.statusCode).sort(), [200, 400], 'exactly one of two parallel uses succeeds')
  const statuses = await Promise.all([a.get('/api/user'), b.get('/api/user')])
  t.same(statuses.map((answer) => answer.statusCode).sort(), [200, 403])

  const notOwed = await redeem(owner, codes[2])
  t.equal(notOwed.statusCode, 409, 'a fully signed-in session owes nothing')
  t.equal(notOwed.json().code, 'BFF_MFA_NOT_PENDING')
  t.equal((await owner.get('/api/user/security')).json().recoveryCodes.remaining, 8, 'and spends no code')
  t.equal((await redeem(browser(stack.bff), codes[2])).statusCode, 401, 'no session: the SDK\'s 401')
})

t.test('a new set of recovery codes replaces the old one', async (t) => {
  const tab = await signedInTab(stack, 'regenerate@example.com')
  const none = await send(tab, 'POST', '/api/user/recovery-codes', {})
  t.equal(none.statusCode, 409, 'no authenticator, no recovery codes')
  t.equal(none.json().code, 'BFF_TOTP_NOT_ENABLED')
  const { secret, codes: first } = await setUpTotp(tab)
  const proof = { totp: clock.totp(secret, 1) }

  const forged = await send(tab, 'POST', '/api/user/recovery-codes', proof, { rid: '' })
  t.equal(forged.statusCode, 403, 'no custom header: refused')
  const foreign = await send(tab, 'POST', '/api/user/recovery-codes', proof, { origin: 'https://evil.example' })
  t.equal(foreign.statusCode, 403, 'a foreign origin: refused')

  // Without a code: second-factor.test.ts.
  const renewed = await send(tab, 'POST', '/api/user/recovery-codes', proof)
  t.equal(renewed.statusCode, 200, 'a new set')
  t.equal(renewed.headers['cache-control'], 'no-store')
  const second = renewed.json().codes as string[]
  t.equal(second.length, 10)
  t.ok(second.every((code) => CODE_SHAPE.test(code) && !first.includes(code)), 'new codes')

  const pending = await signIn('regenerate@example.com')
  t.equal((await redeem(pending, first[0])).statusCode, 400, 'an old code no longer works')
  t.equal((await redeem(pending, second[0])).statusCode, 200, 'a new one does')
})

t.test('wrong recovery codes lock like wrong TOTP codes, until the cool-down has passed', async (t) => {
  const owner = await signedInTab(stack, 'locked@example.com')
  const { codes } = await setUpTotp(owner)
  const tab = await signIn('locked@example.com')
  const answers: number[] = []
  for (let i = 0; i < 5; i++) answers.push((await redeem(tab, `wrong-code-${i}`)).statusCode)
  t.same(answers, [400, 400, 400, 400, 429], 'the fifth wrong code locks, as the TOTP factor allows five')

  const right = await redeem(tab, codes[0])
  t.equal(right.statusCode, 429, 'while locked the right code is refused too')
  t.equal(right.json().code, 'BFF_RECOVERY_CODE_BLOCKED')
  t.equal(right.headers['retry-after'], '900', 'for the TOTP factor\'s 15 minutes')
  clock.advance(899_000)
  const almost = await redeem(tab, codes[0])
  t.equal(almost.statusCode, 429, 'a second before the end')
  t.equal(almost.headers['retry-after'], '1')
  clock.advance(1_000)
  const after = await redeem(tab, codes[0])
  t.equal(after.statusCode, 200, 'the cool-down has passed')
  t.equal((await tab.get('/api/user')).statusCode, 200)
  t.equal((await owner.get('/api/user/security')).json().recoveryCodes.remaining, 9, 'the refused attempts spent no code')
})

t.test('parallel wrong recovery codes cannot exceed the limit', async (t) => {
  const owner = await signedInTab(stack, 'parallel@example.com')
  await setUpTotp(owner)
  const tab = await signIn('parallel@example.com')
  const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => redeem(tab, `guess-number-${i}`)))
  t.equal(answers.filter((answer) => answer.statusCode === 400).length, 4, 'four are checked and wrong')
  t.equal(answers.filter((answer) => answer.statusCode === 429).length, 5, 'the fifth locks; the rest are refused unchecked')
  const { rows } = await stack.db.query<{ failures: number }>('SELECT failures FROM bff.recovery_code_attempts WHERE user_id = $1', [await userIdOf('parallel@example.com')])
  t.same(rows, [{ failures: 5 }])
})

t.test('removing a confirmed device needs a current code, and the last one turns TOTP off', async (t) => {
  const tab = await signedInTab(stack, 'remove@example.com')
  const { secret } = await setUpTotp(tab)
  const remove = (body: unknown, headers: Record<string, string> = {}, name = 'Softshelf') => send(tab, 'DELETE', `/api/user/totp/devices/${encodeURIComponent(name)}`, body, headers)

  const bare = await remove({})
  t.equal(bare.statusCode, 400)
  t.equal(bare.json().code, 'BFF_TOTP_CODE_REQUIRED')
  const wrong = await remove({ totp: clock.wrongTotp(secret) })
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().code, 'BFF_TOTP_INVALID')
  const unknown = await remove({ totp: clock.totp(secret, 1) }, {}, 'Another phone')
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().code, 'BFF_TOTP_DEVICE_NOT_FOUND')
  const forged = await remove({ totp: clock.totp(secret, 1) }, { rid: '' })
  t.equal(forged.statusCode, 403, 'no custom header: refused')
  t.equal((await tab.get('/api/user/security')).json().totp.enabled, true, 'nothing removed so far')

  const done = await remove({ totp: clock.totp(secret, 1) })
  t.equal(done.statusCode, 204, done.body)
  t.same((await tab.get('/api/user/security')).json(), { email: 'remove@example.com', hasPassword: true, totp: { enabled: false, devices: [] }, recoveryCodes: { remaining: 0 } }, 'TOTP off, its recovery codes gone')
  const next = await signIn('remove@example.com')
  t.equal((await next.get('/api/user')).statusCode, 200, 'the next sign-in asks for no code')
})

t.test('wrong codes at removal count toward the core\'s TOTP limit', async (t) => {
  const tab = await signedInTab(stack, 'remove-limit@example.com')
  const { secret } = await setUpTotp(tab)
  const answers: number[] = []
  let last = await send(tab, 'DELETE', '/api/user/totp/devices/Softshelf', { totp: clock.wrongTotp(secret) })
  answers.push(last.statusCode)
  for (let i = 0; i < 5; i++) {
    last = await send(tab, 'DELETE', '/api/user/totp/devices/Softshelf', { totp: i < 4 ? clock.wrongTotp(secret) : clock.totp(secret, 1) })
    answers.push(last.statusCode)
  }
  t.same(answers, [400, 400, 400, 400, 400, 429], 'five wrong codes, then even the right one waits')
  t.equal(last.json().code, 'BFF_TOTP_BLOCKED')
  t.ok(Number(last.headers['retry-after']) > 800 && Number(last.headers['retry-after']) <= 900, 'retry-after from the core\'s cool-down')
  t.equal((await tab.get('/api/user/security')).json().totp.enabled, true, 'the device stays')
  const attacker = await signIn('remove-limit@example.com')
  t.match((await attacker.post('/auth/totp/verify', { totp: clock.totp(secret, 1) })).json(), { status: 'LIMIT_REACHED_ERROR' }, 'the same count the sign-in uses')
})

t.test('a recovery code removes a device too (a lost phone)', async (t) => {
  const tab = await signedInTab(stack, 'lost-phone@example.com')
  const { codes } = await setUpTotp(tab)
  const wrong = await send(tab, 'DELETE', '/api/user/totp/devices/Softshelf', { recoveryCode: 'zzzz-zzzz-zzzz-zzzz' })
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().code, 'BFF_RECOVERY_CODE_INVALID')
  const done = await send(tab, 'DELETE', '/api/user/totp/devices/Softshelf', { recoveryCode: codes[3] })
  t.equal(done.statusCode, 204, done.body)
  t.equal((await tab.get('/api/user/security')).json().totp.enabled, false)
  // A new authenticator can be set up, with a new set.
  const { codes: fresh } = await setUpTotp(tab)
  t.equal(fresh.length, 10)
})

t.test('the SDK\'s own removal takes only a set-up that was never confirmed', async (t) => {
  const tab = await signedInTab(stack, 'sdk-remove@example.com')
  t.equal((await tab.post('/auth/totp/device', { deviceName: 'Softshelf' })).json().status, 'OK')
  t.match((await tab.post('/auth/totp/device/remove', { deviceName: 'Softshelf' })).json(), { status: 'OK', didDeviceExist: true }, 'an abandoned set-up is removed')

  await setUpTotp(tab)
  const refused = await tab.post('/auth/totp/device/remove', { deviceName: 'Softshelf' })
  t.equal(refused.statusCode, 400)
  t.equal(refused.json().code, 'BFF_TOTP_CODE_REQUIRED')
  t.match((await tab.get('/auth/totp/device/list')).json(), { status: 'OK', devices: [{ name: 'Softshelf', verified: true }] }, 'the device stays')
  t.equal((await signIn('sdk-remove@example.com').then((next) => next.get('/api/user'))).statusCode, 403, 'and sign-ins still ask for a code')
})

t.test('the writes have the /auth write limit per IP', async (t) => {
  // AUTH_RATE_LIMIT_MAX is 200 in this file (RATE_LIMIT_MAX 10 000); one address of its own.
  const from = (method: 'GET' | 'POST' | 'DELETE', url: string) =>
    stack.bff.inject({ method, url, remoteAddress: '203.0.113.7', headers: { rid: 'anti-csrf', 'content-type': 'application/json' }, payload: method === 'GET' ? undefined : '{}' })
  for (const [method, url] of [['POST', '/api/user/recovery-codes/redeem'], ['POST', '/api/user/recovery-codes'], ['DELETE', '/api/user/totp/devices/Softshelf']] as const) {
    const answers = new Set<number>()
    for (let i = 0; i < 200; i++) answers.add((await from(method, url)).statusCode)
    t.same([...answers], [401], `${method} ${url}: 200 answered (no session)`)
    const limited = await from(method, url)
    t.equal(limited.statusCode, 429, `${method} ${url}: the 201st is refused`)
    t.equal(limited.json().code, 'BFF_RATE_LIMITED')
  }
  for (let i = 0; i < 200; i++) await from('GET', '/api/user/security')
  t.equal((await from('GET', '/api/user/security')).statusCode, 401, 'the summary is a read: only the general limit')
})
