import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { browser, buildStack, type Stack, formFields } from '../../helpers.ts'

// The BFF's /auth: supertokens-node against our auth core, with the product's
// sign-up fields, cookie sessions, the custom-header CSRF rule, stricter limits on writes, and
// localised mail in the embedded mailbox that /dev/mail shows.


interface StoredMail {
  id: string
  to: string
  subject: string
  text: string
  html: string
}

function mailbox(stack: Stack): StoredMail[] {
  const folder = path.join(stack.config.dataDir, 'mail')
  if (!fs.existsSync(folder)) return []
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as StoredMail)
}

const linkIn = (mail: StoredMail) => /https?:\/\/\S+/.exec(mail.text)![0]

t.test('sign-up to a verified sign-in through /auth', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const tab = browser(stack.bff)
  const utm = { timestamp: 1763800000000, utmParams: { utm_source: 'newsletter' }, additionalInfo: { screenWidth: 1280, screenHeight: 800, landingPageUrl: 'http://localhost:3000/?utm_source=newsletter' }, sessionId: 'abc' }

  await t.test('sign-up creates the account and a session in httpOnly, SameSite=Lax cookies', async (t) => {
    const response = await tab.post('/auth/signup', formFields({ email: 'Ada@Example.com ', password: 'correct horse battery', isInMailList: true, utm }), { cookie: 'lang=de' })
    t.equal(response.statusCode, 200)
    t.match(response.json(), { status: 'OK', user: { emails: ['ada@example.com'] } })
    const cookies = response.cookies as Array<{ name: string; httpOnly?: boolean; sameSite?: string; secure?: boolean; path?: string }>
    const access = cookies.find((c) => c.name === 'sAccessToken')
    const refresh = cookies.find((c) => c.name === 'sRefreshToken')
    t.ok(access && refresh, 'access and refresh cookies')
    for (const cookie of [access!, refresh!]) {
      t.equal(cookie.httpOnly, true, `${cookie.name} is httpOnly`)
      t.equal(cookie.sameSite, 'Lax', `${cookie.name} is SameSite=Lax`)
      t.notOk(cookie.secure, `${cookie.name} is not Secure on http`)
    }
    t.equal(refresh!.path, '/auth/session/refresh')
    t.notOk(response.body.includes(tab.jar.get('sAccessToken')!), 'no token in the body')
  })

  await t.test('the verification mail is in the visitor\'s language and links to /verify-email', async (t) => {
    const mails = mailbox(stack)
    t.equal(mails.length, 1)
    const mail = mails[0]!
    t.equal(mail.to, 'ada@example.com')
    t.equal(mail.subject, 'Bestätigen Sie Ihre E-Mail-Adresse für Softshelf')
    t.match(linkIn(mail), /^http:\/\/localhost:3000\/verify-email\?token=[^&\s]+&tenantId=public$/)
    t.match(mail.html, /<html lang="de">/)
  })

  await t.test('the session is unverified until the link\'s token is used', async (t) => {
    const token = new URL(linkIn(mailbox(stack)[0]!)).searchParams.get('token')!
    t.match((await tab.get('/auth/user/email/verify')).json(), { status: 'OK', isVerified: false })
    t.match((await tab.post('/auth/user/email/verify', { method: 'token', token: 'not-a-token' })).json(), { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' })
    t.same((await tab.post('/auth/user/email/verify', { method: 'token', token })).json(), { status: 'OK' })
    t.match((await tab.get('/auth/user/email/verify')).json(), { status: 'OK', isVerified: true })
    t.match((await tab.post('/auth/user/email/verify', { method: 'token', token })).json(), { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' }, 'a token works once')
  })

  await t.test('sign-in issues new cookies; the old refresh token dies with sign-out', async (t) => {
    const other = browser(stack.bff)
    const first = tab.jar.get('sAccessToken')
    const signIn = await other.post('/auth/signin', formFields({ email: 'ada@example.com', password: 'correct horse battery' }))
    t.match(signIn.json(), { status: 'OK' })
    t.not(other.jar.get('sAccessToken'), first, 'a fresh session, not the sign-up one')
    t.equal((await other.post('/auth/signin', formFields({ email: 'ada@example.com', password: 'wrong horse battery' }))).json().status, 'WRONG_CREDENTIALS_ERROR')
    const refreshToken = other.jar.get('sRefreshToken')!
    t.equal((await other.post('/auth/signout')).statusCode, 200)
    const replay = await stack.bff.inject({ method: 'POST', url: '/auth/session/refresh', headers: { rid: 'session', cookie: `sRefreshToken=${refreshToken}` } })
    t.equal(replay.statusCode, 401, 'the signed-out session cannot be refreshed')
  })

  await t.test('duplicate sign-up and bad extra fields answer field errors', async (t) => {
    t.match((await tab.post('/auth/signup', formFields({ email: 'ada@example.com', password: 'another password' }))).json(), {
      status: 'FIELD_ERROR',
      formFields: [{ id: 'email', error: 'This email already exists. Please sign in instead.' }],
    })
    const passwordError = async (password: string) => (await tab.post('/auth/signup', formFields({ email: 'bob@example.com', password }))).json().formFields?.[0]?.error as string | undefined
    t.equal(await passwordError('short'), 'Password must be at least 8 characters long')
    t.equal(await passwordError('Password'), 'This password is one of the most common ones and easy to guess. Please choose another.', 'common passwords are refused, whatever their case')
    t.equal(await passwordError('qwertyuiop'), 'This password is one of the most common ones and easy to guess. Please choose another.')
    t.equal(await passwordError('x'.repeat(257)), 'Password must be at most 256 characters long')
    t.match((await tab.post('/auth/signup', formFields({ email: 'bob@example.com', password: 'a fine password', isInMailList: 'yes' }))).json(), {
      status: 'FIELD_ERROR',
      formFields: [{ id: 'isInMailList', error: 'isInMailList must be true or false' }],
    })
    t.match((await tab.post('/auth/signup', formFields({ email: 'bob@example.com', password: 'a fine password', utm: { utmParams: { utm_source: 42 } } }))).json(), {
      status: 'FIELD_ERROR',
      formFields: [{ id: 'utm', error: /^utm must be the UTM record/ }],
    })
  })

  await t.test('long passphrases with no composition rules are accepted', async (t) => {
    const fresh = browser(stack.bff)
    const long = 'only lowercase words but quite a long passphrase for sure, sixty-four+'
    t.ok(long.length >= 64)
    t.equal((await fresh.post('/auth/signup', formFields({ email: 'long@example.com', password: long }))).json().status, 'OK')
    t.equal((await fresh.post('/auth/signin', formFields({ email: 'long@example.com', password: long }))).json().status, 'OK')
    t.equal((await fresh.post('/auth/signin', formFields({ email: 'long@example.com', password: long.toUpperCase() }))).json().status, 'WRONG_CREDENTIALS_ERROR', 'compared exactly')
  })

  await t.test('every character of a long passphrase counts, past the 72 bytes bcrypt would keep', async (t) => {
    const fresh = browser(stack.bff)
    const long = `${'a passphrase that goes on and on and on, longer than bcrypt can hold: '.repeat(2)}tail one`
    t.ok(Buffer.byteLength(long) > 100)
    t.equal((await fresh.post('/auth/signup', formFields({ email: 'longer@example.com', password: long }))).json().status, 'OK')
    t.equal((await fresh.post('/auth/signin', formFields({ email: 'longer@example.com', password: long.replace(/tail one$/, 'tail two') }))).json().status, 'WRONG_CREDENTIALS_ERROR')
    t.equal((await fresh.post('/auth/signin', formFields({ email: 'longer@example.com', password: long }))).json().status, 'OK')
  })

  await t.test('a forgotten password is reset by the emailed link, once', async (t) => {
    const before = mailbox(stack).length
    t.match((await tab.post('/auth/user/password/reset/token', formFields({ email: 'ada@example.com' }))).json(), { status: 'OK' })
    const mail = mailbox(stack)[before]!
    // Asked from a browser without a language: in the account's, German since its sign-up.
    t.equal(mail.subject, 'Ihr Softshelf-Passwort zurücksetzen')
    const link = new URL(linkIn(mail))
    t.equal(link.pathname, '/reset-password')
    const token = link.searchParams.get('token')!
    t.match((await tab.post('/auth/user/password/reset', { method: 'token', token, ...formFields({ password: 'a brand new password' }) })).json(), { status: 'OK' })
    t.match((await tab.post('/auth/user/password/reset', { method: 'token', token, ...formFields({ password: 'yet another password' }) })).json(), { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' })
    const fresh = browser(stack.bff)
    t.equal((await fresh.post('/auth/signin', formFields({ email: 'ada@example.com', password: 'correct horse battery' }))).json().status, 'WRONG_CREDENTIALS_ERROR')
    t.equal((await fresh.post('/auth/signin', formFields({ email: 'ada@example.com', password: 'a brand new password' }))).json().status, 'OK')
  })

  await t.test('/dev/mail lists and shows the messages to this machine only', async (t) => {
    const list = await stack.bff.inject({ method: 'GET', url: '/dev/mail' })
    t.equal(list.statusCode, 200)
    t.match(list.headers['content-type'], /text\/html; charset=utf-8/)
    t.equal(list.headers['cache-control'], 'no-store')
    t.match(list.body, 'Bestätigen Sie Ihre E-Mail-Adresse für Softshelf')
    const id = mailbox(stack)[0]!.id
    const one = await stack.bff.inject({ method: 'GET', url: `/dev/mail/${id}` })
    t.equal(one.statusCode, 200)
    t.match(one.body, /href="http:\/\/localhost:3000\/verify-email\?token=/)
    t.notMatch(one.headers['content-security-policy'], /script-src/, 'no script may run in a message')
    const remote = await stack.bff.inject({ method: 'GET', url: '/dev/mail', remoteAddress: '203.0.113.9' })
    t.equal(remote.statusCode, 404, 'another machine is told nothing (issue 17; every variant in dev-mail.test.ts)')
    t.equal(remote.json().code, 'BFF_NOT_FOUND')
    t.equal((await stack.bff.inject({ method: 'GET', url: '/dev/mail/../../etc/passwd' })).statusCode, 404)
    t.equal((await stack.bff.inject({ method: 'GET', url: '/dev/mail/1700000000000-00000000-0000-0000-0000-000000000000' })).json().code, 'BFF_DEV_MAIL_NOT_FOUND')
  })
})

t.test('cross-site writes to /auth are refused and change nothing', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const body = JSON.stringify(formFields({ email: 'eve@example.com', password: 'a fine password' }))
  const attempts = [
    { name: 'no rid header', headers: { 'content-type': 'application/json' } },
    { name: 'a foreign Origin', headers: { 'content-type': 'application/json', rid: 'emailpassword', origin: 'https://evil.example' } },
    { name: 'a simple form post', headers: { 'content-type': 'text/plain', rid: 'emailpassword' } },
  ]
  for (const attempt of attempts) {
    const response = await stack.bff.inject({ method: 'POST', url: '/auth/signup', headers: attempt.headers, payload: body })
    t.equal(response.statusCode, 403, attempt.name)
    t.equal(response.json().code, 'BFF_CSRF_REJECTED', attempt.name)
  }
  t.same(mailbox(stack), [], 'no mail was sent')
  const tab = browser(stack.bff)
  t.match((await tab.post('/auth/signup', formFields({ email: 'eve@example.com', password: 'a fine password' }))).json(), { status: 'OK' }, 'the account did not exist yet')
  t.equal((await stack.bff.inject({ method: 'GET', url: '/auth/no-such-thing' })).statusCode, 404)
})

t.test('/auth writes have their own, stricter per-IP limit', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '3', RATE_LIMIT_MAX: '100' } })
  const tab = browser(stack.bff)
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) statuses.push((await tab.post('/auth/signin', formFields({ email: 'nobody@example.com', password: 'whatever it is' }))).statusCode)
  t.same(statuses, [200, 200, 200, 429])
  const limited = await tab.post('/auth/signin', formFields({ email: 'nobody@example.com', password: 'whatever it is' }))
  t.ok(Number(limited.headers['retry-after']) > 0, 'retry-after is given')
  t.equal(limited.json().code, 'BFF_RATE_LIMITED')
  t.equal((await tab.get('/auth/user/email/verify')).statusCode, 401, 'reads are not limited by it (no session: 401)')
})
