import t from 'tap'
import supertokens from 'supertokens-node'
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth'
import UserMetadata from 'supertokens-node/recipe/usermetadata'
import { base32Decode, totpCode } from '../../../server/authcore/totp.ts'
import { TestClock, formFields } from '../../helpers.ts'
import { browser, startCore, startSdkApp } from './harness.ts'

// TOTP and MFA, third-party sign-in, metadata and user deletion through the real SDK. The core
// runs on the test's clock, and the codes come from the same one (computed from the wall
// clock, a 30-second boundary between two lines made the "replayed" code a fresh one).

const clock = new TestClock()
const { url } = await startCore(t, { now: clock.now })
const { app, mails } = await startSdkApp(t, url)

/** The code an authenticator shows `steps` periods from the core's now. */
const code = (secret: string, steps = 0) => totpCode(base32Decode(secret), clock.totpStep() + steps)

async function verifiedUser(email: string) {
  const tab = browser(app)
  const signUp = await tab.post('/auth/signup', formFields({ email, password: 'Passw0rd!1' }))
  await tab.post('/auth/user/email/verify/token')
  const link = mails.filter((m) => m.email === email && m.kind === 'verify').pop()!.link
  await tab.post('/auth/user/email/verify', { method: 'token', token: new URL(link).searchParams.get('token') })
  t.equal((await tab.get('/protected')).statusCode, 200)
  return { tab, userId: signUp.json().user.id as string }
}

t.test('TOTP: a device is set up with a code; wrong and replayed codes count; five failures lock for 15 minutes', async (t) => {
  const { tab, userId } = await verifiedUser('totp@example.com')
  const device = await tab.post('/auth/totp/device', {})
  t.equal(device.json().status, 'OK', device.body)
  const { secret, deviceName } = device.json() as { secret: string; deviceName: string }
  t.match(secret, /^[A-Z2-7]{32}$/, '160-bit base32 secret')
  t.equal(deviceName, 'TOTP Device 0')

  const wrongSetup = await tab.post('/auth/totp/device/verify', { deviceName, totp: '000000' === code(secret) ? '111111' : '000000' })
  t.match(wrongSetup.json(), { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 1, maxNumberOfFailedAttempts: 5 })
  const setup = await tab.post('/auth/totp/device/verify', { deviceName, totp: code(secret) })
  t.same(setup.json(), { status: 'OK', wasAlreadyVerified: false })
  const list = await tab.get('/auth/totp/device/list')
  t.match(list.json(), { status: 'OK', devices: [{ name: deviceName, period: 30, skew: 1 }] })

  const next = code(secret, 1)
  const ok = await tab.post('/auth/totp/verify', { totp: next })
  t.equal(ok.json().status, 'OK', 'the next step is within the skew')
  const replay = await tab.post('/auth/totp/verify', { totp: next })
  t.match(replay.json(), { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 1 }, 'a used code does not work twice')
  clock.advance(30_000)
  const replayNextStep = await tab.post('/auth/totp/verify', { totp: next })
  t.match(replayNextStep.json(), { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 2 }, 'nor in the step it belongs to, once the clock is there')
  for (let attempt = 3; attempt <= 5; attempt++) {
    const wrong = await tab.post('/auth/totp/verify', { totp: '12345678' })
    t.match(wrong.json(), { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: attempt, maxNumberOfFailedAttempts: 5 })
  }
  const locked = await tab.post('/auth/totp/verify', { totp: code(secret, -1) })
  t.equal(locked.json().status, 'LIMIT_REACHED_ERROR', 'even a right code is refused while locked')
  t.ok(locked.json().retryAfterMs > 895_000 && locked.json().retryAfterMs <= 900_000, `retry after ${locked.json().retryAfterMs} ms`)

  // A required second factor, set per user, is asked at the next sign-in.
  await MultiFactorAuth.addToRequiredSecondaryFactorsForUser(userId, 'totp')
  const metadata = await UserMetadata.getUserMetadata(userId)
  t.same(metadata.metadata, { _supertokens: { requiredSecondaryFactors: ['totp'] } })
})

t.test('MFA: a user who requires TOTP passes only after the code', async (t) => {
  const { tab, userId } = await verifiedUser('mfa@example.com')
  const device = await tab.post('/auth/totp/device', { deviceName: 'Phone' })
  const secret = device.json().secret as string
  t.equal((await tab.post('/auth/totp/device/verify', { deviceName: 'Phone', totp: code(secret, -1) })).json().status, 'OK')
  await MultiFactorAuth.addToRequiredSecondaryFactorsForUser(userId, 'totp')

  const again = browser(app)
  t.equal((await again.post('/auth/signin', formFields({ email: 'mfa@example.com', password: 'Passw0rd!1' }))).json().status, 'OK')
  const before = await again.get('/protected')
  t.equal(before.statusCode, 403, 'the st-mfa claim is not satisfied')
  const verify = await again.post('/auth/totp/verify', { totp: code(secret) })
  t.equal(verify.json().status, 'OK', verify.body)
  t.equal((await again.get('/protected')).statusCode, 200)
  const duplicate = await again.post('/auth/totp/device', { deviceName: 'Phone' })
  t.equal(duplicate.json().status, 'DEVICE_ALREADY_EXISTS_ERROR')
})

t.test('third-party sign-in creates the user once, keeps its email current and verified', async (t) => {
  const signIn = (code: string) =>
    browser(app).post('/auth/signinup', {
      thirdPartyId: 'mock',
      redirectURIInfo: { redirectURIOnProviderDashboard: 'http://localhost:3000/auth-callback/mock', redirectURIQueryParams: { code } },
    })
  const first = await signIn('idp-1|Dave@Example.com|verified')
  t.equal(first.json().status, 'OK', first.body)
  t.equal(first.json().createdNewRecipeUser, true)
  t.match(first.json().user.loginMethods, [{ recipeId: 'thirdparty', thirdParty: { id: 'mock', userId: 'idp-1' }, email: 'dave@example.com', verified: true }])
  const second = await signIn('idp-1|dave@example.com|verified')
  t.equal(second.json().createdNewRecipeUser, false)
  t.equal(second.json().user.id, first.json().user.id)
  const moved = await signIn('idp-1|dave@new.example.com|unverified')
  t.match(moved.json().user.emails, ['dave@new.example.com'], 'the provider\'s new email replaces the old')
})

t.test('metadata merges shallowly; deleting a user removes it everywhere', async (t) => {
  const { tab, userId } = await verifiedUser('erin@example.com')
  await UserMetadata.updateUserMetadata(userId, { theme: 'dark', prefs: { a: 1 } })
  const merged = await UserMetadata.updateUserMetadata(userId, { theme: null, lang: 'de' })
  t.same(merged.metadata, { prefs: { a: 1 }, lang: 'de' })

  await supertokens.deleteUser(userId)
  t.equal(await supertokens.getUser(userId), undefined)
  t.same((await UserMetadata.getUserMetadata(userId)).metadata, {}, 'metadata gone')
  t.equal((await tab.get('/protected-db')).statusCode, 401, 'sessions gone')
  t.equal((await browser(app).post('/auth/signin', formFields({ email: 'erin@example.com', password: 'Passw0rd!1' }))).json().status, 'WRONG_CREDENTIALS_ERROR')
  const reuse = await browser(app).post('/auth/signup', formFields({ email: 'erin@example.com', password: 'Passw0rd!1' }))
  t.equal(reuse.json().status, 'OK', 'the email is free again')
})
