import t from 'tap'
import { formFields } from '../../helpers.ts'
import { browser, CookieJar, startCore, startSdkApp } from './harness.ts'

// AUTH-CORE.md §5.3 through the real SDK: refresh with rotation, promotion on first use,
// several tabs refreshing at once, token theft, regeneration, sign-out.

const { url } = await startCore(t)
const { app, coreCalls } = await startSdkApp(t, url)

async function signedIn(email: string) {
  const tab = browser(app)
  const response = await tab.post('/auth/signup', formFields({ email, password: 'Passw0rd!1' }))
  t.equal(response.json().status, 'OK')
  return tab
}

t.test('refresh rotates the refresh token; the child is promoted on first use; an old token then counts as theft', async (t) => {
  const tab = await signedIn('rotate@example.com')
  const first = tab.jar.get('sRefreshToken')!
  const refreshed = await tab.post('/auth/session/refresh')
  t.equal(refreshed.statusCode, 200, refreshed.body)
  const child = tab.jar.get('sRefreshToken')!
  t.not(child, first, 'a new refresh token')

  coreCalls.length = 0
  const use = await tab.get('/unverified-ok')
  t.equal(use.statusCode, 200)
  t.same(coreCalls, ['POST /recipe/session/verify'], 'the refreshed access token carries its parent: the core is asked once')
  t.ok(use.headers['set-cookie'], 'and the SDK stores the promoted access token')
  coreCalls.length = 0
  t.equal((await tab.get('/unverified-ok')).statusCode, 200)
  t.same(coreCalls, [], 'the promoted token verifies locally')

  // The grand-parent token comes back: someone else holds it.
  const thief = browser(app, new CookieJar())
  thief.jar.cookies.set('sRefreshToken', { value: first, path: '/auth/session/refresh' })
  const theft = await thief.post('/auth/session/refresh')
  t.equal(theft.statusCode, 401)
  t.match(theft.json().message, /token theft detected/)
  const gone = await tab.get('/protected-db')
  t.equal(gone.statusCode, 401, 'the session was revoked')
})

t.test('several tabs refreshing one token before any child is used: no false theft', async (t) => {
  const tab = await signedIn('tabs@example.com')
  const token = tab.jar.get('sRefreshToken')!
  const tabs = [0, 1, 2].map(() => {
    const other = browser(app, new CookieJar())
    other.jar.cookies.set('sRefreshToken', { value: token, path: '/auth/session/refresh' })
    return other
  })
  const answers = await Promise.all(tabs.map((other) => other.post('/auth/session/refresh')))
  t.same(answers.map((a) => a.statusCode), [200, 200, 200])
  // One tab's child is used; the parent is then superseded, the others' children are siblings.
  const winner = tabs[0]!
  t.equal((await winner.post('/auth/session/refresh')).statusCode, 200)
  t.equal((await winner.get('/unverified-ok')).statusCode, 200)
})

t.test('parallel refreshes of one child token promote it once and all succeed', async (t) => {
  const tab = await signedIn('parallel@example.com')
  await tab.post('/auth/session/refresh')
  const child = tab.jar.get('sRefreshToken')!
  const tabs = [0, 1, 2, 3].map(() => {
    const other = browser(app, new CookieJar())
    other.jar.cookies.set('sRefreshToken', { value: child, path: '/auth/session/refresh' })
    return other
  })
  const answers = await Promise.all(tabs.map((other) => other.post('/auth/session/refresh')))
  t.same(answers.map((a) => a.statusCode), [200, 200, 200, 200], 'no lost promotion, no theft')
  t.not((await tab.get('/protected-db')).statusCode, 401, 'the session lives on')
})

t.test('claims update through regenerate; the database check sees revocation', async (t) => {
  const tab = await signedIn('regen@example.com')
  coreCalls.length = 0
  const merge = await tab.post('/merge')
  t.equal(merge.statusCode, 200, merge.body)
  t.ok(coreCalls.includes('POST /recipe/session/regenerate'))
  const after = await tab.get('/unverified-ok')
  t.equal(after.json().payload.custom, 'value')
  t.equal(after.json().payload.iss, 'http://localhost:3000/auth')

  const out = await tab.post('/auth/signout')
  t.equal(out.json().status, 'OK')
  t.equal(tab.jar.get('sAccessToken'), undefined, 'cookies cleared')
})

t.test('sign-out ends the session for the database check even if a copy of the access token survives', async (t) => {
  const tab = await signedIn('signout@example.com')
  const copy = browser(app, new CookieJar())
  copy.jar.cookies.set('sAccessToken', { value: tab.jar.get('sAccessToken')!, path: '/' })
  await tab.post('/auth/signout')
  t.equal((await copy.get('/unverified-ok')).statusCode, 200, 'stateless checks pass until the token expires (by design)')
  t.equal((await copy.get('/protected-db')).statusCode, 401, 'checkDatabase refuses it')
})
