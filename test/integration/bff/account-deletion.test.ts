import type net from 'node:net'
import sharp from 'sharp'
import t from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { base32Decode } from '../../../server/authcore/totp.ts'
import { browser, buildStack, signedInTab, TEST_AUTH_CORE_API_KEY, testBuildInfo, TestClock } from '../../helpers.ts'

// Deleting the account: POST /api/user/delete through the BFF. The person confirms with
// the account's email (and a current authenticator code when one is set); the auth-core user goes
// with its sessions, the product's data goes, the BFF forgets what it kept by email, and only an
// anonymous reason stays. A deletion a crash interrupted is finished when the API starts again.

const PASSWORD = 'correct horse battery'
// The auth core on the test's clock; the TOTP codes below come from it.
const clock = new TestClock()
const stack = await buildStack(t, { auth: true, coreNow: clock.now, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
const coreUrl = `http://127.0.0.1:${(stack.authCore!.server.address() as net.AddressInfo).port}`
const signIn = (email: string) => browser(stack.bff).post('/auth/signin', { formFields: [{ id: 'email', value: email }, { id: 'password', value: PASSWORD }] })

type Tab = Awaited<ReturnType<typeof signedInTab>>
const remove = (tab: Tab, body: unknown, headers: Record<string, string> = {}) =>
  stack.bff.inject({
    method: 'POST',
    url: '/api/user/delete',
    headers: { cookie: tab.jar.header('/api/user'), rid: 'anti-csrf', origin: 'http://localhost:3000', 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  })

async function coreKnows(userId: string): Promise<boolean> {
  const response = await fetch(`${coreUrl}/user/id?userId=${encodeURIComponent(userId)}`, { headers: { 'api-key': TEST_AUTH_CORE_API_KEY, 'cdi-version': '5.4' } })
  return ((await response.json()) as { status: string }).status === 'OK'
}

const count = async (sql: string, params: unknown[]) => Number((await stack.db.query<{ n: string | number }>(sql, params)).rows[0]!.n)

t.test('the reason, the comment and the typed email are checked; a refusal deletes nothing', async (t) => {
  const tab = await signedInTab(stack, 'careful@example.com', PASSWORD)
  const cases: Array<[unknown, number, string, RegExp?]> = [
    [{ reason: 'bored', confirmEmail: 'careful@example.com' }, 400, 'BFF_VALIDATION_FAILED', /reason must be one of: negative-service-experience, found-alternative, too-expensive, cannot-find-program, other/],
    [{ reason: 'other', confirmEmail: 'careful@example.com' }, 400, 'BFF_VALIDATION_FAILED', /comment/],
    [{ reason: 'other', comment: '   ', confirmEmail: 'careful@example.com' }, 400, 'BFF_VALIDATION_FAILED'],
    [{ reason: 'other', comment: 'x'.repeat(1001), confirmEmail: 'careful@example.com' }, 400, 'BFF_VALIDATION_FAILED', /at most 1000 characters/],
    [{ reason: 'too-expensive', comment: 'bad\u0007byte', confirmEmail: 'careful@example.com' }, 400, 'BFF_VALIDATION_FAILED', /control or invisible/],
    // A NUL is refused before any route, by the BFF's edge.
    [{ reason: 'too-expensive', comment: 'bad\u0000byte', confirmEmail: 'careful@example.com' }, 400, 'BFF_VALIDATION_FAILED', /character that cannot be accepted/],
    [{ reason: 'too-expensive', confirmEmail: 'someone@example.com' }, 400, 'BFF_CONFIRM_EMAIL_MISMATCH', /not the one of this account/],
    [{ reason: 'too-expensive' }, 400, 'BFF_CONFIRM_EMAIL_MISMATCH'],
  ]
  for (const [body, status, code, message] of cases) {
    const answer = await remove(tab, body)
    t.equal(answer.statusCode, status, JSON.stringify(body).slice(0, 80))
    t.equal(answer.json().code, code)
    if (message) t.match(answer.json().message, message)
  }
  const forged = await remove(tab, { reason: 'too-expensive', confirmEmail: 'careful@example.com' }, { rid: '' })
  t.equal(forged.statusCode, 403, 'without the anti-forgery header')
  t.equal((await tab.get('/api/user')).statusCode, 200, 'still here')
  t.equal((await signIn('careful@example.com')).json().status, 'OK', 'and can sign in')
  t.equal(await count('SELECT count(*) AS n FROM api.deletion_reasons', []), 0)
})

t.test('deleted: every session ends, sign-in fails like a wrong password, data is gone, an anonymous reason stays', async (t) => {
  const email = 'leaving@example.com'
  const tab = await signedInTab(stack, email, PASSWORD)
  const phone = browser(stack.bff)
  t.equal((await phone.post('/auth/signin', { formFields: [{ id: 'email', value: email }, { id: 'password', value: PASSWORD }] })).json().status, 'OK')
  const userId = (await tab.get('/api/user')).json().id as string
  await tab.post('/api/user/program/blender')
  const avatar = await stack.bff.inject({
    method: 'PUT',
    url: '/api/user/avatar',
    headers: { cookie: tab.jar.header('/api/user'), rid: 'anti-csrf', 'content-type': 'image/png' },
    payload: await sharp({ create: { width: 10, height: 10, channels: 3, background: '#123456' } }).png().toBuffer(),
  })
  const avatarUrl = avatar.json().avatarUrl as string
  await signIn(email).then(() => browser(stack.bff).post('/auth/signin', { formFields: [{ id: 'email', value: email }, { id: 'password', value: 'wrong password here' }] }))
  t.equal(await count('SELECT count(*) AS n FROM bff.login_attempts', []) > 0, true, 'a wrong attempt is counted')

  const pending = await stack.bff.inject({
    method: 'POST',
    url: '/api/user/email',
    headers: { cookie: tab.jar.header('/api/user'), rid: 'anti-csrf', 'content-type': 'application/json' },
    payload: JSON.stringify({ newEmail: 'elsewhere@example.com', currentPassword: PASSWORD }),
  })
  t.equal(pending.statusCode, 202, 'an email change is waiting')
  const answer = await remove(tab, { reason: 'other', comment: '  Moving to a desk job.\r\nThanks!  ', confirmEmail: '  Leaving@Example.com ' })
  t.equal(answer.statusCode, 204, 'the typed email matches whatever its case and padding')
  const cleared = answer.cookies.filter((cookie) => ['sAccessToken', 'sRefreshToken'].includes(cookie.name))
  t.ok(cleared.length >= 1 && cleared.every((cookie) => cookie.value === '' || (cookie.expires !== undefined && cookie.expires.getTime() < Date.now())), 'this browser\'s session cookies are cleared')

  t.equal((await phone.get('/api/user')).statusCode, 401, 'the other device is signed out')
  const again = await signIn(email)
  t.equal(again.json().status, 'WRONG_CREDENTIALS_ERROR', 'signing in answers like a wrong password')
  t.notOk(await coreKnows(userId), 'the auth core has no such user')
  t.equal(await count('SELECT count(*) AS n FROM api.users WHERE id = $1', [userId]), 0)
  t.equal(await count('SELECT count(*) AS n FROM api.user_programs WHERE user_id = $1', [userId]), 0, 'the library is gone')
  t.equal(await count('SELECT count(*) AS n FROM api.avatars WHERE user_id = $1', [userId]), 0, 'the avatar is gone')
  t.equal((await browser(stack.bff).get(avatarUrl)).statusCode, 404, 'and no longer served')
  t.equal(await count('SELECT count(*) AS n FROM api.account_deletions', []), 0, 'nothing left to finish')
  t.equal(await count('SELECT count(*) AS n FROM bff.email_changes WHERE user_id = $1', [userId]), 0, 'the waiting email change is gone')
  t.equal(await count('SELECT count(*) AS n FROM api.sign_ins WHERE user_id = $1', [userId]), 0, 'the sign-in history is gone')

  const kept = (await stack.db.query<Record<string, unknown>>('SELECT * FROM api.deletion_reasons')).rows
  t.equal(kept.length, 1)
  t.same(Object.keys(kept[0]!).sort(), ['comment', 'day', 'id', 'language', 'reason'], 'no column that could identify the person')
  t.match(kept[0], { reason: 'other', comment: 'Moving to a desk job.\nThanks!', language: 'en' })
  t.notOk(JSON.stringify(kept).includes(userId) || JSON.stringify(kept).toLowerCase().includes('leaving'), 'neither the id nor the email')

  const listed = await stack.api.inject({ method: 'GET', url: '/internal/deletion-reasons', headers: { authorization: `Bearer ${stack.operatorToken}` } })
  t.match(listed.json(), { deletions: [{ reason: 'other', comment: 'Moving to a desk job.\nThanks!', language: 'en', day: /^\d{4}-\d{2}-\d{2}$/ }] }, 'operators can list the reasons')

  const fresh = await signedInTab(stack, email, PASSWORD)
  t.match((await fresh.get('/api/user')).json(), { email, librarySize: 0, avatarUrl: null }, 'the address can make a new, empty account')
})

t.test('an account with an authenticator needs a current code', async (t) => {
  const email = 'guarded@example.com'
  const tab = await signedInTab(stack, email, PASSWORD)
  const created = await tab.post('/auth/totp/device', { deviceName: 'Softshelf' })
  const secret = base32Decode(created.json().secret)
  t.match((await tab.post('/auth/totp/device/verify', { deviceName: 'Softshelf', totp: clock.totp(secret) })).json(), { status: 'OK' })

  const body = { reason: 'found-alternative', confirmEmail: email }
  const missing = await remove(tab, body)
  t.equal(missing.statusCode, 400)
  t.equal(missing.json().code, 'BFF_TOTP_CODE_REQUIRED')
  const wrongCode = clock.totp(secret, 1) === '000000' ? '111111' : '000000'
  const wrong = await remove(tab, { ...body, totp: wrongCode })
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().code, 'BFF_TOTP_INVALID')
  t.equal((await tab.get('/api/user')).statusCode, 200, 'nothing deleted yet')
  t.ok(await count('SELECT count(*) AS n FROM bff.recovery_codes WHERE user_id = $1', [created.json().userId ?? (await tab.get('/api/user')).json().id]) > 0, 'recovery codes were issued')
  const userId = (await tab.get('/api/user')).json().id as string
  const right = await remove(tab, { ...body, totp: clock.totp(secret, 1) })
  t.equal(right.statusCode, 204)
  t.equal(await count('SELECT count(*) AS n FROM bff.recovery_codes WHERE user_id = $1', [userId]), 0, 'and are gone with the account')
  t.equal((await signIn(email)).json().status, 'WRONG_CREDENTIALS_ERROR')
})

t.test('a deletion interrupted by a crash is finished when the API starts again', async (t) => {
  const restart = async () => {
    const api = await buildApi({ config: stack.config, db: stack.db, buildInfo: testBuildInfo, authCoreUrl: coreUrl, authCoreApiKey: TEST_AUTH_CORE_API_KEY })
    await api.ready()
    await api.close()
  }
  // Crashed after the request was written, before anything was removed.
  const early = await signedInTab(stack, 'crash-early@example.com', PASSWORD)
  const earlyId = (await early.get('/api/user')).json().id as string
  await early.post('/api/user/program/gimp')
  await stack.db.query(`INSERT INTO api.account_deletions (user_id, reason, comment, language) VALUES ($1, 'too-expensive', NULL, 'de')`, [earlyId])
  // Crashed after the auth-core user was removed, before the product's data went.
  const late = await signedInTab(stack, 'crash-late@example.com', PASSWORD)
  const lateId = (await late.get('/api/user')).json().id as string
  await stack.db.query(`INSERT INTO api.account_deletions (user_id, reason, comment, language) VALUES ($1, 'cannot-find-program', 'No CAD tools', 'hu')`, [lateId])
  await fetch(`${coreUrl}/user/remove`, { method: 'POST', headers: { 'api-key': TEST_AUTH_CORE_API_KEY, 'cdi-version': '5.4', 'content-type': 'application/json' }, body: JSON.stringify({ userId: lateId }) })
  t.equal(await count('SELECT count(*) AS n FROM api.users WHERE id = $1', [lateId]), 1, 'data left without a user, for now')

  const before = await count('SELECT count(*) AS n FROM api.deletion_reasons', [])
  await restart()
  t.notOk(await coreKnows(earlyId), 'the early one can no longer sign in')
  t.equal((await signIn('crash-early@example.com')).json().status, 'WRONG_CREDENTIALS_ERROR')
  t.equal(await count('SELECT count(*) AS n FROM api.users WHERE id = ANY($1)', [[earlyId, lateId]]), 0, 'no data left for either')
  t.equal(await count('SELECT count(*) AS n FROM api.user_programs WHERE user_id = $1', [earlyId]), 0)
  t.equal(await count('SELECT count(*) AS n FROM api.account_deletions', []), 0)
  t.equal(await count('SELECT count(*) AS n FROM api.deletion_reasons', []), before + 2, 'both reasons kept, once each')
  const reasons = (await stack.db.query<{ reason: string; language: string }>('SELECT reason, language FROM api.deletion_reasons ORDER BY id DESC LIMIT 2')).rows
  t.same(reasons.map((row) => `${row.reason}/${row.language}`).sort(), ['cannot-find-program/hu', 'too-expensive/de'])
  await restart()
  t.equal(await count('SELECT count(*) AS n FROM api.deletion_reasons', []), before + 2, 'another start changes nothing')
})
