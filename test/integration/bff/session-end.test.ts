import t from 'tap'
import { browser, buildStack, lastMailLink, signedInTab, TEST_AUTH_CORE_API_KEY, formFields } from '../../helpers.ts'

// Only a session's access token is a session, and a session that ended —
// signed out, or every session of an account whose password was reset — opens neither the
// product API (another instance than the BFF that ended it: it learns from the core's
// revocation list) nor a page, although its access token has not expired.

const PASSWORD = 'correct horse battery'

const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
const core = stack.authCore!

/** The product API called directly with a bearer token, as another instance would be. */
const asApi = (token: string, method: 'GET' | 'PUT' = 'PUT') =>
  stack.api.inject({ method, url: '/api/user', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: method === 'PUT' ? '{}' : undefined })

const signedIn = (email: string) => signedInTab(stack, email, PASSWORD)

t.test('the auth core asks every caller for its key', async (t) => {
  const open = await core.inject({ method: 'GET', url: '/users', headers: { 'cdi-version': '5.4' } })
  t.equal(open.statusCode, 401)
  const keyed = await core.inject({ method: 'GET', url: '/users', headers: { 'cdi-version': '5.4', 'api-key': TEST_AUTH_CORE_API_KEY } })
  t.equal(keyed.statusCode, 200)
})

t.test('a JWT the core signs for another purpose is no session, whatever its payload claims', async (t) => {
  const tab = await signedIn('forge@example.com')
  const real = tab.jar.get('sAccessToken')!
  const claims = JSON.parse(Buffer.from(real.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>
  const { exp: _exp, iat: _iat, ...payload } = claims
  const minted = await core.inject({
    method: 'POST',
    url: '/recipe/jwt',
    headers: { 'cdi-version': '5.4', 'api-key': TEST_AUTH_CORE_API_KEY, 'content-type': 'application/json' },
    payload: JSON.stringify({ payload, validity: 3600, useStaticSigningKey: false, algorithm: 'RS256', jwksDomain: 'http://localhost:3000/auth' }),
  })
  const forged = minted.json().jwt as string
  t.ok(forged, 'the core signs it (with the API key)')
  t.equal((await asApi(real, 'GET')).statusCode, 200, 'the real token opens the API')
  t.equal((await asApi(forged, 'GET')).statusCode, 401, 'the forged one does not: GET /api/user')
  t.equal((await asApi(forged)).statusCode, 401, 'nor PUT /api/user')
  const post = await stack.api.inject({ method: 'POST', url: '/api/user/program/blender', headers: { authorization: `Bearer ${forged}` } })
  t.equal(post.statusCode, 401, 'nor the library')
  const page = await stack.bff.inject({ method: 'GET', url: '/@/library', headers: { cookie: `sAccessToken=${forged}` } })
  t.notMatch(page.body, /My library/, 'no signed-in page renders for it (at most the refresh page, whose refresh then fails)')
  t.notMatch(page.body, /forge@example\.com/)
})

t.test('after sign-out the old access token opens neither the API nor a page', async (t) => {
  const tab = await signedIn('leaving@example.com')
  const token = tab.jar.get('sAccessToken')!
  const cookie = `sAccessToken=${token}`
  t.equal((await asApi(token)).statusCode, 200)
  t.match((await stack.bff.inject({ method: 'GET', url: '/@/library', headers: { cookie } })).body, /leaving@example\.com/)

  const read = stack.api.revokedSessions.nextRead()
  t.equal((await tab.post('/auth/signout')).statusCode, 200)
  const page = await stack.bff.inject({ method: 'GET', url: '/@/library', headers: { cookie } })
  t.not(page.statusCode, 200, 'the BFF that signed it out refuses the page at once')
  t.notMatch(page.body, /leaving@example\.com/)
  await read
  await stack.api.revokedSessions.nextRead()
  t.equal((await asApi(token)).statusCode, 401, 'the API refuses it after its next read of the list (every 500 ms)')
  t.equal((await asApi(token, 'GET')).json().code, 'API_SESSION_REQUIRED')
})

t.test('a password reset ends every session of the account', async (t) => {
  const first = await signedIn('reset@example.com')
  const second = browser(stack.bff)
  t.equal((await second.post('/auth/signin', formFields({ email: 'reset@example.com', password: PASSWORD }))).json().status, 'OK')
  const tokens = [first.jar.get('sAccessToken')!, second.jar.get('sAccessToken')!]

  const stranger = browser(stack.bff)
  t.equal((await stranger.post('/auth/user/password/reset/token', formFields({ email: 'reset@example.com' }))).json().status, 'OK')
  const token = lastMailLink(stack, 'reset@example.com').searchParams.get('token')
  t.equal((await stranger.post('/auth/user/password/reset', { method: 'token', token, ...formFields({ password: 'a brand new password' }) })).json().status, 'OK')

  for (const tab of [first, second]) t.equal((await tab.post('/auth/session/refresh')).statusCode, 401, 'an earlier session cannot refresh')
  await stack.api.revokedSessions.nextRead()
  for (const old of tokens) t.equal((await asApi(old)).statusCode, 401, 'nor use its access token')
  const page = await stack.bff.inject({ method: 'GET', url: '/@/library', headers: { cookie: `sAccessToken=${tokens[0]}` } })
  t.notMatch(page.body, /reset@example\.com/, 'nor open a page')
  t.equal((await browser(stack.bff).post('/auth/signin', formFields({ email: 'reset@example.com', password: 'a brand new password' }))).json().status, 'OK', 'the new password signs in')
  // A browser still holding the ended session's access cookie signs in all the same.
  const stale = await stack.bff.inject({
    method: 'POST',
    url: '/auth/signin',
    headers: { cookie: `sAccessToken=${tokens[0]}`, rid: 'anti-csrf', 'fdi-version': '4.2', origin: 'http://localhost:3000', 'content-type': 'application/json' },
    payload: JSON.stringify(formFields({ email: 'reset@example.com', password: 'a brand new password' })),
  })
  t.equal(stale.statusCode, 200, stale.body)
  t.equal(stale.json().status, 'OK', 'with the ended session\'s cookie still in the browser')
})
