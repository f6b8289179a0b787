import t from 'tap'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { DASHBOARD_SESSION_MS } from '../../../server/authcore/dashboard.ts'
import { testCoreConfig, openTestDatabase } from '../../helpers.ts'
import { TEST_SECRET } from './harness.ts'

// The dashboard's core endpoints on raw CDI 5.4: its accounts, sign-in and sessions,
// the search tags and the users search, at their edges, on a clock the test moves.

const db = await openTestDatabase(t)
let wall = Date.now()
const core = await buildAuthCore({ config: testCoreConfig(), db, secret: TEST_SECRET, apiKeys: null, now: () => wall })
t.teardown(() => core.close())

const cdi = { 'cdi-version': '5.4', 'content-type': 'application/json; charset=utf-8' }
const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  core.inject({ method, url, headers: cdi, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) })
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<Record<string, any>> => {
  const response = await call(method, url, payload)
  t.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`)
  return response.json()
}

t.test('dashboard accounts: created, refused as the real core refuses, listed', async (t) => {
  const created = await json('POST', '/recipe/dashboard/user', { email: ' Admin@Example.com', password: 'first-pass1' })
  t.match(created, { status: 'OK', user: { userId: /^[0-9a-f-]{36}$/, email: 'admin@example.com', timeJoined: wall } })
  t.same(Object.keys(created.user).sort(), ['email', 'timeJoined', 'userId'], 'no hash')
  t.same(await json('POST', '/recipe/dashboard/user', { email: 'admin@example.com', password: 'other-pass1' }), { status: 'EMAIL_ALREADY_EXISTS_ERROR' })
  t.same(await json('POST', '/recipe/dashboard/user', { email: 'not-an-email', password: 'first-pass1' }), { status: 'INVALID_EMAIL_ERROR' })
  for (const [password, message] of [
    ['short1', 'Password must contain at least 8 characters, including a number'],
    [`a1${'x'.repeat(98)}`, "Password's length must be lesser than 100 characters"],
    ['12345678', 'Password must contain at least one alphabet'],
    ['abcdefgh', 'Password must contain at least one number'],
  ]) {
    t.same(await json('POST', '/recipe/dashboard/user', { email: 'weak@example.com', password }), { status: 'PASSWORD_WEAK_ERROR', message })
  }
  wall += 1000
  await json('POST', '/appid-public/recipe/dashboard/user', { email: 'second@example.com', password: 'second-pass1' })
  const list = await json('GET', '/public/recipe/dashboard/users')
  t.same(
    list.users.map((u: { email: string }) => u.email),
    ['admin@example.com', 'second@example.com'],
    'oldest first, every spelling of the path',
  )
  const stored = await db.query<{ password_hash: string }>('SELECT password_hash FROM authcore.dashboard_users')
  t.ok(stored.rows.every((r) => r.password_hash.startsWith('$')), 'passwords only as hashes')
})

t.test('sign-in, the session check, sign-out, the session\'s 30 days', async (t) => {
  t.same(await json('POST', '/recipe/dashboard/signin', { email: 'admin@example.com', password: 'wrong-pass1' }), { status: 'INVALID_CREDENTIALS_ERROR' })
  t.same(await json('POST', '/recipe/dashboard/signin', { email: 'nobody@example.com', password: 'first-pass1' }), { status: 'INVALID_CREDENTIALS_ERROR' })
  const { sessionId } = (await json('POST', '/recipe/dashboard/signin', { email: 'ADMIN@example.com ', password: 'first-pass1' })) as { sessionId: string }
  t.match(sessionId, /^[0-9a-f-]{36}$/)
  const stored = await db.query<{ session_id_hash: string }>('SELECT session_id_hash FROM authcore.dashboard_sessions')
  t.notOk(stored.rows.some((r) => r.session_id_hash.includes(sessionId)), 'the id is kept only as a hash')
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId }), { status: 'OK', email: 'admin@example.com' })
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId: 'made-up' }), { status: 'INVALID_SESSION_ERROR' })
  wall += DASHBOARD_SESSION_MS - 1
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId }), { status: 'OK', email: 'admin@example.com' }, 'just inside its 30 days')
  wall += 1
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId }), { status: 'INVALID_SESSION_ERROR' }, 'over at 30 days')

  const next = (await json('POST', '/recipe/dashboard/signin', { email: 'admin@example.com', password: 'first-pass1' })).sessionId as string
  const other = (await json('POST', '/recipe/dashboard/signin', { email: 'admin@example.com', password: 'first-pass1' })).sessionId as string
  const bodiless = await core.inject({ method: 'DELETE', url: `/recipe/dashboard/session?sessionId=${next}`, headers: cdi })
  t.equal(bodiless.statusCode, 200, 'a DELETE that says JSON and sends nothing, as the SDK sends it')
  t.same(bodiless.json(), { status: 'OK' })
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId: next }), { status: 'INVALID_SESSION_ERROR' }, 'signed out')
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId: other }), { status: 'OK', email: 'admin@example.com' }, 'the other session stays')
  t.same(await json('DELETE', `/recipe/dashboard/session?sessionId=${next}`), { status: 'OK' }, 'again: still OK')
  const broken = await core.inject({ method: 'DELETE', url: `/recipe/dashboard/session?sessionId=${other}`, headers: cdi, payload: '{nope' })
  t.equal(broken.statusCode, 400, 'a body that is there is still read as JSON')
})

t.test('updates by id or email; a new password ends the sessions; deletion', async (t) => {
  const { users } = (await json('GET', '/recipe/dashboard/users')) as { users: Array<{ userId: string; email: string }> }
  const second = users.find((u) => u.email === 'second@example.com')!
  const session = (await json('POST', '/recipe/dashboard/signin', { email: 'second@example.com', password: 'second-pass1' })).sessionId as string
  t.match(await json('PUT', '/recipe/dashboard/user', { userId: second.userId, newEmail: 'Renamed@example.com' }), { status: 'OK', user: { userId: second.userId, email: 'renamed@example.com' } })
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId: session }), { status: 'OK', email: 'renamed@example.com' }, 'a new email keeps the session')
  t.same(await json('PUT', '/recipe/dashboard/user', { email: 'renamed@example.com', newEmail: 'admin@example.com' }), { status: 'EMAIL_ALREADY_EXISTS_ERROR' })
  t.same(await json('PUT', '/recipe/dashboard/user', { email: 'renamed@example.com', newEmail: 'bad' }), { status: 'INVALID_EMAIL_ERROR' })
  t.same(await json('PUT', '/recipe/dashboard/user', { email: 'renamed@example.com', newPassword: 'short' }), {
    status: 'PASSWORD_WEAK_ERROR',
    message: 'Password must contain at least 8 characters, including a number',
  })
  t.same(await json('PUT', '/recipe/dashboard/user', { email: 'ghost@example.com', newPassword: 'third-pass1' }), { status: 'UNKNOWN_USER_ERROR' })
  t.same(await json('PUT', '/recipe/dashboard/user', { userId: 'ghost', newPassword: 'third-pass1' }), { status: 'UNKNOWN_USER_ERROR' })
  t.match(await json('PUT', '/recipe/dashboard/user', { email: ' RENAMED@example.com', newPassword: 'third-pass1' }), { status: 'OK' })
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId: session }), { status: 'INVALID_SESSION_ERROR' }, 'a new password ends its sessions')
  t.same(await json('POST', '/recipe/dashboard/signin', { email: 'renamed@example.com', password: 'second-pass1' }), { status: 'INVALID_CREDENTIALS_ERROR' })
  const fresh = (await json('POST', '/recipe/dashboard/signin', { email: 'renamed@example.com', password: 'third-pass1' })).sessionId as string

  t.same(await json('DELETE', '/recipe/dashboard/user?email=Renamed%40example.com'), { status: 'OK', didUserExist: true })
  t.same(await json('POST', '/recipe/dashboard/session/verify', { sessionId: fresh }), { status: 'INVALID_SESSION_ERROR' }, 'its sessions go with it')
  t.same(await json('DELETE', '/recipe/dashboard/user?email=renamed%40example.com'), { status: 'OK', didUserExist: false })
  t.same(await json('DELETE', `/recipe/dashboard/user?userId=${second.userId}`), { status: 'OK', didUserExist: false })
  t.same((await json('GET', '/recipe/dashboard/users')).users.map((u: { email: string }) => u.email), ['admin@example.com'])
})

t.test('missing fields are 400s in plain text; another tenant may not call them', async (t) => {
  const cases: Array<[method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload: unknown, text: string]> = [
    ['POST', '/recipe/dashboard/signin', { email: 'a@b.co' }, "Field name 'password' is invalid in JSON input"],
    ['POST', '/recipe/dashboard/signin', { password: 'x' }, "Field name 'email' is invalid in JSON input"],
    ['POST', '/recipe/dashboard/session/verify', {}, "Field name 'sessionId' is invalid in JSON input"],
    ['DELETE', '/recipe/dashboard/session', undefined, "Field name 'sessionId' is missing in GET request"],
    ['POST', '/recipe/dashboard/user', { email: 'a@b.co' }, "Field name 'password' is invalid in JSON input"],
    ['PUT', '/recipe/dashboard/user', { newPassword: 'abcdefg1' }, "Either field 'email' or 'userId' must be present"],
    ['PUT', '/recipe/dashboard/user', { userId: 3 }, "Field name 'userId' is invalid in JSON input"],
    ['DELETE', '/recipe/dashboard/user', undefined, "Either field 'email' or 'userId' must be present"],
  ]
  for (const [method, url, payload, text] of cases) {
    const response = await call(method, url, payload)
    t.equal(response.statusCode, 400, `${method} ${url}`)
    t.equal(response.body, text)
  }
  await db.query("INSERT INTO authcore.tenants (app_id, tenant_id) VALUES ('public', 'second')")
  const tenant = await call('POST', '/second/recipe/dashboard/signin', { email: 'admin@example.com', password: 'first-pass1' })
  t.equal(tenant.statusCode, 403)
  t.equal(tenant.body, 'Only public tenantId can call this app specific API')
  // Apps keep their own dashboard accounts.
  await json('PUT', '/recipe/multitenancy/app/v2', { appId: 'dash-other', coreConfig: {} })
  t.same(await json('GET', '/appid-dash-other/recipe/dashboard/users'), { status: 'OK', users: [] })
  t.same(await json('POST', '/appid-dash-other/recipe/dashboard/signin', { email: 'admin@example.com', password: 'first-pass1' }), { status: 'INVALID_CREDENTIALS_ERROR' })
})

t.test('search tags, and the users search with its tags, recipes and pages', async (t) => {
  t.same(await json('GET', '/user/search/tags'), { status: 'OK', tags: ['email', 'phone', 'provider'] })
  t.same(await json('GET', '/public/user/search/tags'), { status: 'OK', tags: ['email', 'phone', 'provider'] })
  const ids: Record<string, string> = {}
  for (const email of ['ted@one.example', 'tia@two.example', 'al@tee.example', 'x_y@one.example', 'xzy@one.example']) {
    wall += 1
    ids[email] = (await json('POST', '/public/recipe/signup', { email, password: 'Passw0rd!1' })).recipeUserId
  }
  wall += 1
  ids.tp = (await json('POST', '/public/recipe/signinup', { thirdPartyId: 'GitHub', thirdPartyUserId: 'g1', email: { id: 'tp@tee.example', isVerified: false } })).recipeUserId
  const search = async (query: string) => ((await json('GET', `/public/users?${query}`)).users as Array<{ id: string }>).map((u) => u.id)
  t.same(await search('email=t'), [ids['ted@one.example'], ids['tia@two.example'], ids['al@tee.example'], ids.tp], 'oldest first')
  t.same(await search('email=t&timeJoinedOrder=DESC'), [ids.tp, ids['al@tee.example'], ids['tia@two.example'], ids['ted@one.example']])
  t.same(await search('email=%20T%20;%20;tee'), [ids['ted@one.example'], ids['tia@two.example'], ids['al@tee.example'], ids.tp], 'terms trimmed, empty ones dropped')
  t.same(await search('email=ted%40one'), [ids['ted@one.example']], 'a term with its "@" matches from the start')
  t.same(await search('email=x_y'), [ids['x_y@one.example']], 'an "_" is itself')
  t.same(await search('email=t&includeRecipeIds=thirdparty'), [ids.tp], 'and the recipe filter')
  t.same(await search('provider=GitHub'), [ids.tp])
  t.same(await search('provider=github'), [], 'provider ids keep their case')
  t.same(await search('provider=Git&email=al'), [], 'both tags on the same login method')
  t.same(await search('email=;'), (await search('')), 'no term at all: no filter')
  const first = await json('GET', '/public/users?email=t&limit=3')
  t.equal(first.users.length, 3)
  const rest = await json('GET', `/public/users?email=t&limit=3&paginationToken=${first.nextPaginationToken}`)
  t.same(rest.users.map((u: { id: string }) => u.id), [ids.tp], 'pages of a search')
  t.notOk('nextPaginationToken' in rest)
})
