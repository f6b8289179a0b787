import t from 'tap'
import { formFields } from '../../helpers.ts'
import { browser, startCore, startSdkApp } from './harness.ts'

// AUTH-CORE.md §4 flows through the real supertokens-node against our core.

const { url } = await startCore(t)
const { app, mails, coreCalls } = await startSdkApp(t, url)

t.test('sign-up, duplicate sign-up, sign-in and wrong password', async (t) => {
  const alice = browser(app)
  const signUp = await alice.post('/auth/signup', formFields({ email: 'Alice@Example.com ', password: 'Passw0rd!1' }))
  t.equal(signUp.statusCode, 200, signUp.body)
  t.equal(signUp.json().status, 'OK')
  t.equal(signUp.json().user.emails[0], 'alice@example.com', 'the email is normalised')
  t.ok(alice.jar.get('sAccessToken'), 'access token cookie')
  t.ok(alice.jar.get('sRefreshToken'), 'refresh token cookie')

  const again = await browser(app).post('/auth/signup', formFields({ email: 'alice@example.com', password: 'Passw0rd!1' }))
  t.equal(again.json().status, 'FIELD_ERROR')
  t.match(again.json().formFields, [{ id: 'email', error: 'This email already exists. Please sign in instead.' }])

  const signIn = await browser(app).post('/auth/signin', formFields({ email: 'alice@example.com', password: 'Passw0rd!1' }))
  t.equal(signIn.json().status, 'OK')
  t.equal(signIn.json().user.id, signUp.json().user.id)

  const wrong = await browser(app).post('/auth/signin', formFields({ email: 'alice@example.com', password: 'nope-nope-1' }))
  t.equal(wrong.json().status, 'WRONG_CREDENTIALS_ERROR')
  const unknown = await browser(app).post('/auth/signin', formFields({ email: 'nobody@example.com', password: 'Passw0rd!1' }))
  t.equal(unknown.json().status, 'WRONG_CREDENTIALS_ERROR')

  const exists = await browser(app).get('/auth/emailpassword/email/exists?email=alice%40example.com')
  t.same(exists.json(), { status: 'OK', exists: true })
  const notExists = await browser(app).get('/auth/emailpassword/email/exists?email=bob%40example.com')
  t.same(notExists.json(), { status: 'OK', exists: false })
})

t.test('email verification is required, then works once', async (t) => {
  const bob = browser(app)
  await bob.post('/auth/signup', formFields({ email: 'bob@example.com', password: 'Passw0rd!1' }))
  const blocked = await bob.get('/protected')
  t.equal(blocked.statusCode, 403, 'unverified users fail the st-ev claim')
  t.equal(blocked.json().message, 'invalid claim')

  const send = await bob.post('/auth/user/email/verify/token')
  t.equal(send.json().status, 'OK')
  const mail = mails.find((m) => m.kind === 'verify' && m.email === 'bob@example.com')
  t.ok(mail, 'a verification email was sent')
  const token = new URL(mail!.link).searchParams.get('token')!
  t.equal(token.length, 128)

  const bogus = await bob.post('/auth/user/email/verify', { method: 'token', token: 'bogus' })
  t.equal(bogus.json().status, 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR')
  const verify = await bob.post('/auth/user/email/verify', { method: 'token', token })
  t.equal(verify.json().status, 'OK')
  const reuse = await bob.post('/auth/user/email/verify', { method: 'token', token })
  t.equal(reuse.json().status, 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR', 'single use')

  const isVerified = await bob.get('/auth/user/email/verify')
  t.same(isVerified.json(), { status: 'OK', isVerified: true })
  const ok = await bob.get('/protected')
  t.equal(ok.statusCode, 200, ok.body)
  const already = await bob.post('/auth/user/email/verify/token')
  t.equal(already.json().status, 'EMAIL_ALREADY_VERIFIED_ERROR')
})

t.test('password reset: single use, old password gone, unknown email answered the same', async (t) => {
  const carol = browser(app)
  await carol.post('/auth/signup', formFields({ email: 'carol@example.com', password: 'Passw0rd!1' }))
  const ask = await browser(app).post('/auth/user/password/reset/token', formFields({ email: 'carol@example.com' }))
  t.equal(ask.json().status, 'OK')
  const askUnknown = await browser(app).post('/auth/user/password/reset/token', formFields({ email: 'nobody@example.com' }))
  t.equal(askUnknown.json().status, 'OK', 'no enumeration')
  const second = await browser(app).post('/auth/user/password/reset/token', formFields({ email: 'carol@example.com' }))
  t.equal(second.json().status, 'OK')
  const links = mails.filter((m) => m.kind === 'reset' && m.email === 'carol@example.com')
  t.equal(links.length, 2)
  const [first, later] = links.map((m) => new URL(m.link).searchParams.get('token')!)

  const reset = await browser(app).post('/auth/user/password/reset', { ...formFields({ password: 'N3w-password!' }), token: later })
  t.equal(reset.json().status, 'OK')
  const reuse = await browser(app).post('/auth/user/password/reset', { ...formFields({ password: 'An0ther-one!' }), token: later })
  t.equal(reuse.json().status, 'RESET_PASSWORD_INVALID_TOKEN_ERROR')
  const older = await browser(app).post('/auth/user/password/reset', { ...formFields({ password: 'An0ther-one!' }), token: first })
  t.equal(older.json().status, 'RESET_PASSWORD_INVALID_TOKEN_ERROR', 'every link of the user dies with the one used')

  t.equal((await browser(app).post('/auth/signin', formFields({ email: 'carol@example.com', password: 'Passw0rd!1' }))).json().status, 'WRONG_CREDENTIALS_ERROR')
  t.equal((await browser(app).post('/auth/signin', formFields({ email: 'carol@example.com', password: 'N3w-password!' }))).json().status, 'OK')
})

t.test('the SDK negotiated CDI 5.4 once and fetched the keys without an API key', async (t) => {
  t.equal(coreCalls.filter((call) => call === 'GET /apiversion').length, 1)
  t.ok(coreCalls.includes('POST /public/recipe/signup'))
  t.ok(coreCalls.includes('POST /public/recipe/session'))
})
