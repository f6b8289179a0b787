import t from 'tap'
import { formFields } from '../../helpers.ts'
import { browser, startCore, startSdkApp } from './harness.ts'

// One core hosting an isolated app with its own settings, reached by the SDK through
// a connection URI with "/appid-<id>" and an API key: short token lifetimes make links expire.

const PUBLIC_KEY = 'public-key-0123456789abcdefghij'
const APP_KEY = 'short-app-key-0123456789abcdef'
const { url } = await startCore(t, { apiKeys: [PUBLIC_KEY] })

const created = await fetch(`${url}/recipe/multitenancy/app/v2`, {
  method: 'PUT',
  headers: { 'content-type': 'application/json', 'api-key': PUBLIC_KEY },
  body: JSON.stringify({ appId: 'short-lived', coreConfig: { password_reset_token_lifetime: 1, email_verification_token_lifetime: 1, api_keys: APP_KEY } }),
})
const withoutKey = await fetch(`${url}/recipe/multitenancy/app/v2`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' })
const { app, mails } = await startSdkApp(t, `${url}/appid-short-lived`, { apiKey: APP_KEY })

t.test('apps are managed with the API key only', async (t) => {
  t.equal(created.status, 200)
  t.equal(withoutKey.status, 401)
})

t.test('links expire by the app\'s lifetimes', async (t) => {
  const tab = browser(app)
  t.equal((await tab.post('/auth/signup', formFields({ email: 'kim@example.com', password: 'Passw0rd!1' }))).json().status, 'OK')
  await tab.post('/auth/user/email/verify/token')
  const verifyLink = mails.find((m) => m.kind === 'verify')!.link
  const verify = await tab.post('/auth/user/email/verify', { method: 'token', token: new URL(verifyLink).searchParams.get('token') })
  t.equal(verify.json().status, 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR', 'an expired verification link')

  await browser(app).post('/auth/user/password/reset/token', formFields({ email: 'kim@example.com' }))
  const resetLink = mails.find((m) => m.kind === 'reset')!.link
  const reset = await browser(app).post('/auth/user/password/reset', { ...formFields({ password: 'N3w-password!' }), token: new URL(resetLink).searchParams.get('token') })
  t.equal(reset.json().status, 'RESET_PASSWORD_INVALID_TOKEN_ERROR', 'an expired reset link')
  t.equal((await browser(app).post('/auth/signin', formFields({ email: 'kim@example.com', password: 'Passw0rd!1' }))).json().status, 'OK', 'the password is unchanged')
})

t.test('the app\'s users are not the public app\'s', async (t) => {
  const lookup = await fetch(`${url}/public/users/by-accountinfo?email=kim%40example.com&doUnionOfAccountInfo=true`, { headers: { 'api-key': PUBLIC_KEY } })
  t.same(await lookup.json(), { status: 'OK', users: [] })
})
