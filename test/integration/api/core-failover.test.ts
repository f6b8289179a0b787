import type net from 'node:net'
import t, { type Test } from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { TEST_AUTH_CORE_API_KEY, TEST_AUTH_CORE_SECRET, buildStack, freePort, signedInTab, testBuildInfo, within } from '../../helpers.ts'

// AUTH_CORE_URL with several cores ("a;b"): the API reads the signing keys (JWKS), the revocation
// list and the accounts' sign-in methods from whichever answers, whether the first never did or
// stops answering mid-run.

const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000' } })
const stackCore = `http://127.0.0.1:${(stack.authCore!.server.address() as net.AddressInfo).port}`

async function apiWithCores(t: Test, coreUrl: string): Promise<{ url: string; revocationRead: () => Promise<void> }> {
  const api = await buildApi({ config: stack.config, db: stack.db, buildInfo: testBuildInfo, authCoreUrl: coreUrl, authCoreApiKey: TEST_AUTH_CORE_API_KEY })
  await api.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => api.close())
  return { url: `http://127.0.0.1:${(api.server.address() as net.AddressInfo).port}`, revocationRead: () => within(api.revokedSessions.nextRead(), 5_000) }
}

async function call(apiUrl: string, path: string, token: string): Promise<Response> {
  return fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } })
}

t.test('the first core never answers: the API uses the second for keys, revocations and sign-in methods', async (t) => {
  const dead = `http://127.0.0.1:${await freePort()}`
  const api = await apiWithCores(t, `${dead};${stackCore}`)
  const tab = await signedInTab(stack, 'first-dead@example.com')
  const token = tab.jar.get('sAccessToken')!
  const me = await call(api.url, '/api/user', token)
  t.equal(me.status, 200, 'the token is checked with the second core\'s keys')
  t.equal(((await me.json()) as { email: string }).email, 'first-dead@example.com')
  const exported = await call(api.url, '/api/user/export', token)
  t.equal(exported.status, 200, 'the export reads the sign-in methods from the second core')
  t.match((await exported.json()) as object, { signInMethods: [{ method: 'emailpassword', email: 'first-dead@example.com' }] })

  // A sign-out reaches this API through the second core's revocation list.
  t.equal((await tab.post('/auth/signout')).statusCode, 200)
  await api.revocationRead()
  await api.revocationRead()
  const after = await call(api.url, '/api/user', token)
  t.equal(after.status, 401, 'the ended session is refused')
  t.match((await after.json()) as object, { code: 'API_SESSION_REQUIRED' })
})

t.test('the core the API used stops: the next one answers', async (t) => {
  const first = await buildAuthCore({
    config: stack.config,
    db: stack.db,
    secret: TEST_AUTH_CORE_SECRET,
    apiKeys: [TEST_AUTH_CORE_API_KEY],
    publicDefaults: { passwordHashingAlg: stack.config.authCorePasswordHashing },
  })
  await first.listen({ host: '127.0.0.1', port: 0 })
  let firstOpen = true
  t.teardown(async () => {
    if (firstOpen) await first.close()
  })
  const api = await apiWithCores(t, `http://127.0.0.1:${(first.server.address() as net.AddressInfo).port};${stackCore}`)
  const tab = await signedInTab(stack, 'first-stops@example.com')
  const token = tab.jar.get('sAccessToken')!
  t.equal((await call(api.url, '/api/user', token)).status, 200, 'with the first core up')

  await first.close()
  firstOpen = false
  await api.revocationRead()
  t.equal((await call(api.url, '/api/user', token)).status, 200, 'the revocation list stays fresh: read from the second core')
  const exported = await call(api.url, '/api/user/export', token)
  t.equal(exported.status, 200, 'the sign-in methods come from the second core')
  t.match((await exported.json()) as object, { signInMethods: [{ email: 'first-stops@example.com' }] })
  t.equal((await tab.post('/auth/signout')).statusCode, 200)
  await api.revocationRead()
  await api.revocationRead()
  t.equal((await call(api.url, '/api/user', token)).status, 401, 'and a sign-out still reaches the API')
})
