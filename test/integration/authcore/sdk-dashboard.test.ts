import Fastify from 'fastify'
import t from 'tap'
import supertokens from 'supertokens-node'
import Dashboard from 'supertokens-node/recipe/dashboard'
import EmailPassword from 'supertokens-node/recipe/emailpassword'
import { errorHandler, plugin } from 'supertokens-node/framework/fastify'
import { startCore } from './harness.ts'
import { resetSupertokensForTests } from '../../../server/bff/auth/supertokens.ts'

// The user-management dashboard as supertokens-node 24.0.3's Dashboard recipe drives
// our core, signed in with a dashboard account kept in the core (no API key for the dashboard):
// sign-in, the session check on each call, the search tags, the users search, sign-out.

const { core, url } = await startCore(t)
const coreCalls: string[] = []
// Whoever set the SDK up before in this process (a BFF, another file: scripts/tap-group.mjs).
await resetSupertokensForTests()
supertokens.init({
  framework: 'fastify',
  supertokens: {
    connectionURI: url,
    networkInterceptor: (request) => {
      const query = new URLSearchParams(Object.entries(request.params ?? {}).filter(([, v]) => v !== undefined) as Array<[string, string]>).toString()
      coreCalls.push(`${request.method.toUpperCase()} ${new URL(request.url).pathname}${query ? `?${query}` : ''}`)
      return request
    },
  },
  appInfo: { appName: 'Softshelf', apiDomain: 'http://localhost:3000', websiteDomain: 'http://localhost:3000', apiBasePath: '/auth' },
  recipeList: [EmailPassword.init(), Dashboard.init()],
})
const app = Fastify()
await app.register(plugin)
app.setErrorHandler(errorHandler())
await app.ready()
t.teardown(() => app.close())

const raw = async (method: 'POST' | 'PUT', path: string, payload: unknown) =>
  (await core.inject({ method, url: path, headers: { 'cdi-version': '5.4', 'content-type': 'application/json; charset=utf-8' }, payload: JSON.stringify(payload) })).json()

t.test('sign-in with a dashboard account kept in the core; wrong password; unknown email', async (t) => {
  t.match(await raw('POST', '/recipe/dashboard/user', { email: 'Ops@Example.com', password: 'dashboard-pass1' }), { status: 'OK', user: { email: 'ops@example.com' } })
  const wrong = await app.inject({ method: 'POST', url: '/auth/dashboard/api/signin', payload: { email: 'ops@example.com', password: 'nope-nope1' } })
  t.equal(wrong.statusCode, 200)
  t.same(wrong.json(), { status: 'INVALID_CREDENTIALS_ERROR' })
  const unknown = await app.inject({ method: 'POST', url: '/auth/dashboard/api/signin', payload: { email: 'who@example.com', password: 'dashboard-pass1' } })
  t.same(unknown.json(), { status: 'INVALID_CREDENTIALS_ERROR' })
  const ok = await app.inject({ method: 'POST', url: '/auth/dashboard/api/signin', payload: { email: ' OPS@example.com ', password: 'dashboard-pass1' } })
  t.equal(ok.json().status, 'OK', ok.body)
  t.match(ok.json().sessionId, /^[0-9a-f-]{36}$/)
  t.ok(coreCalls.includes('POST /recipe/dashboard/signin'))
})

async function signedIn() {
  const response = await app.inject({ method: 'POST', url: '/auth/dashboard/api/signin', payload: { email: 'ops@example.com', password: 'dashboard-pass1' } })
  return { authorization: `Bearer ${response.json().sessionId as string}` }
}

t.test('a dashboard call needs the session: the core verifies it each time', async (t) => {
  const tags = await app.inject({ method: 'GET', url: '/auth/dashboard/api/search/tags', headers: await signedIn() })
  t.equal(tags.statusCode, 200, tags.body)
  t.same(tags.json(), { status: 'OK', tags: ['email', 'phone', 'provider'] })
  t.ok(coreCalls.includes('POST /recipe/dashboard/session/verify') && coreCalls.includes('GET /user/search/tags'))
  const forged = await app.inject({ method: 'GET', url: '/auth/dashboard/api/search/tags', headers: { authorization: 'Bearer 00000000-0000-4000-8000-000000000000' } })
  t.equal(forged.statusCode, 401, 'an unknown session is refused')
})

t.test('the users search: prefixes of the address or its domain, several terms, provider and email together', async (t) => {
  const signUp = async (email: string) => (await raw('POST', '/public/recipe/signup', { email, password: 'Passw0rd!1' })).recipeUserId as string
  const thirdParty = async (thirdPartyId: string, id: string, email: string) =>
    (await raw('POST', '/public/recipe/signinup', { thirdPartyId, thirdPartyUserId: id, email: { id: email, isVerified: true } })).recipeUserId as string
  const tom = await signUp('tom@alpha.example')
  const tina = await signUp('tina@beta.example')
  const bob = await signUp('bob@tango.example')
  const ann = await signUp('ann@gamma.example')
  const octo = await thirdParty('github', 'gh-1', 'octo@tango.example')
  const goo = await thirdParty('google', 'g-1', 'goo@alpha.example')
  const headers = await signedIn()
  const search = async (query: string) => {
    const response = await app.inject({ method: 'GET', url: `/auth/dashboard/api/users?limit=20&${query}`, headers })
    t.equal(response.statusCode, 200, `${query}: ${response.body}`)
    return (response.json().users as Array<{ id: string }>).map((u) => u.id).sort()
  }
  t.same(await search('email=t'), [tom, tina, bob, octo].sort(), 'the local part or the domain begins with t — not "ann@gamma" nor "goo@alpha" (no t at a start)')
  t.same(await search('email=T'), [tom, tina, bob, octo].sort(), 'case does not matter')
  t.same(await search('email=ann;goo'), [ann, goo].sort(), 'two terms: either')
  t.same(await search('email=alpha'), [tom, goo].sort(), 'the domain')
  t.same(await search('email=lpha'), [], 'not the middle of a word')
  t.same(await search('provider=git'), [octo], 'a provider by its start')
  t.same(await search('provider=github;google'), [octo, goo].sort())
  t.same(await search('provider=github;google&email=alpha'), [goo], 'email and provider: both')
  t.same(await search('phone=%2B1'), [], 'no login method here has a phone number')
  t.same(await search('phone=%2B1&provider=github'), [], 'phone and provider: both')
  t.same(await search('email=%25'), [], 'a "%" is itself, not any text')
  t.ok(coreCalls.some((c) => c.startsWith('GET /public/users?') && c.includes('email=ann%3Bgoo')), 'the SDK passes the terms on as they were typed')
})

t.test('sign-out ends the dashboard session in the core', async (t) => {
  const headers = await signedIn()
  const out = await app.inject({ method: 'POST', url: '/auth/dashboard/api/signout', headers })
  t.equal(out.statusCode, 200, out.body)
  t.same(out.json(), { status: 'OK' })
  t.ok(coreCalls.some((c) => c.startsWith('DELETE /recipe/dashboard/session?sessionId=')))
  const after = await app.inject({ method: 'GET', url: '/auth/dashboard/api/search/tags', headers })
  t.equal(after.statusCode, 401)
})
