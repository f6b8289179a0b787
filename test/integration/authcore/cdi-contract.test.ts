import t from 'tap'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { decodeJwt } from '../../../server/authcore/keys.ts'
import { base32Decode, totpCode } from '../../../server/authcore/totp.ts'
import { testCoreConfig, openTestDatabase, secondConnection, TestClock } from '../../helpers.ts'
import { TEST_SECRET } from './harness.ts'

// Contract tests on raw CDI 5.4 (AUTH-CORE.md §1, §3): transport rules, status strings, fields
// the SDK parses, and the semantics hardest to see through the SDK.

const db = await openTestDatabase(t)
// The core's clock is the test's: the TOTP codes below are computed from it.
const clock = new TestClock()
const core = await buildAuthCore({ config: testCoreConfig(), db, secret: TEST_SECRET, apiKeys: null, now: clock.now })
t.teardown(() => core.close())

const cdi = { 'cdi-version': '5.4', 'content-type': 'application/json; charset=utf-8' }
const get = async (url: string, headers: Record<string, string> = {}) => core.inject({ method: 'GET', url, headers: { ...cdi, ...headers } })
const send = async (method: 'POST' | 'PUT', url: string, payload: unknown, headers: Record<string, string> = {}) =>
  core.inject({ method, url, headers: { ...cdi, ...headers }, payload: JSON.stringify(payload) })
const json = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
  const response = method === 'GET' ? await get(url) : await send(method, url, payload)
  t.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`)
  return response.json() as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function newUser(email: string) {
  const body = await json('POST', '/public/recipe/signup', { email, password: 'Passw0rd!1' })
  return body.recipeUserId as string
}

async function newSession(userId: string, extra: Record<string, unknown> = {}) {
  return json('POST', '/public/recipe/session', { userId, userDataInJWT: { role: 'x' }, userDataInDatabase: { d: 1 }, useDynamicSigningKey: true, enableAntiCsrf: false, ...extra })
}

t.test("the session endpoints' bodies are refused as the core refuses them: 400, the first field at fault, in plain text", async (t) => {
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/public/recipe/session', [], 'Invalid Json Input'],
    ['POST', '/public/recipe/session', { userId: 'u', userDataInJWT: [], userDataInDatabase: {} }, "Field name 'userDataInJWT' is invalid in JSON input"],
    ['POST', '/public/recipe/session', { userId: 'u', userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: 'yes' }, "Field name 'enableAntiCsrf' is invalid in JSON input"],
    ['POST', '/public/recipe/session/verify', { accessToken: 'x' }, "Field name 'doAntiCsrfCheck' is invalid in JSON input"],
    ['POST', '/public/recipe/session/refresh', { refreshToken: 7 }, "Field name 'refreshToken' is invalid in JSON input"],
    ['POST', '/public/recipe/session/remove', { sessionHandles: ['a', 1] }, "Field name 'sessionHandles' is invalid in JSON input"],
    ['PUT', '/public/recipe/session/data', { sessionHandle: 'h' }, "Field name 'userDataInDatabase' is invalid in JSON input"],
    ['POST', '/public/recipe/jwt', { algorithm: 'RS256', validity: '60', payload: {}, jwksDomain: 'x' }, "Field name 'validity' is invalid in JSON input"],
  ]
  for (const [method, url, body, message] of cases) {
    const answer = await send(method as 'POST' | 'PUT', url, body)
    t.equal(answer.statusCode, 400, `${method} ${url} ${JSON.stringify(body)}`)
    t.match(answer.headers['content-type'], /^text\/plain/)
    t.equal(answer.body, message)
  }
  // An optional field sent as null is absent, as the core reads it; fields no one reads are ignored.
  const id = await newUser('null-optional@example.com')
  const created = await send('POST', '/public/recipe/session', { userId: id, userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: null, enableAntiCsrf: null, somethingNew: 1 })
  t.equal(created.statusCode, 200, created.body)
  t.equal(created.json().status, 'OK')
})

t.test('transport: version, hello, JWKS without a key, unknown paths, programmer errors as text', async (t) => {
  t.same((await get('/apiversion')).json(), { versions: ['5.4'] })
  const hello = await get('/hello')
  t.equal(hello.body, 'Hello')
  const jwks = await get('/.well-known/jwks.json')
  t.match(jwks.headers['cache-control'], /^max-age=\d+, must-revalidate$/)
  t.match(jwks.json(), { keys: [{ kty: 'RSA', kid: /^d-\d+$/, alg: 'RS256', use: 'sig', n: /^[A-Za-z0-9_-]+$/, e: 'AQAB' }] })
  const unknown = await get('/recipe/nothing-here')
  t.equal(unknown.statusCode, 404)
  t.match(unknown.headers['content-type'], /^text\/plain/)
  const missing = await send('POST', '/public/recipe/signup', { email: 'a@b.c' })
  t.equal(missing.statusCode, 400)
  t.equal(missing.body, "Field name 'password' is invalid in JSON input")
  const empty = await send('POST', '/public/recipe/signup', { email: 'a@b.c', password: '' })
  t.equal(empty.statusCode, 400)
  const garbage = await core.inject({ method: 'POST', url: '/public/recipe/signup', headers: cdi, payload: '{nope' })
  t.equal(garbage.statusCode, 400)
  t.notMatch(garbage.body, /at |\.ts|SyntaxError/, 'no stack or internals')
  const badTenant = await get('/nowhere/recipe/multitenancy/tenant/v2')
  t.same(badTenant.json(), { status: 'TENANT_NOT_FOUND_ERROR' })
  const badTenantCall = await send('POST', '/nowhere/recipe/signup', { email: 'a@b.c', password: 'x' })
  t.equal(badTenantCall.statusCode, 400)
  t.equal(badTenantCall.body, 'AppId or tenantId not found')
  const badApp = await get('/appid-ghost/apiversion')
  t.equal(badApp.statusCode, 400)
})

t.test('tenant read leaves unset factors out (null crashes the SDK)', async (t) => {
  const tenant = await json('GET', '/public/recipe/multitenancy/tenant/v2')
  t.same(tenant, { status: 'OK', tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} })
  t.notOk('firstFactors' in tenant)
})

t.test('users: the user object, lookups by account info, email normalisation', async (t) => {
  const id = await newUser('  Frank@Example.COM ')
  const { user } = await json('GET', `/user/id?userId=${id}`)
  t.match(user, {
    id,
    isPrimaryUser: false,
    tenantIds: ['public'],
    emails: ['frank@example.com'],
    phoneNumbers: [],
    thirdParty: [],
    webauthn: { credentialIds: [] },
    loginMethods: [{ recipeId: 'emailpassword', recipeUserId: id, tenantIds: ['public'], email: 'frank@example.com', verified: false }],
  })
  t.type(user.timeJoined, 'number')
  t.same(await json('GET', '/user/id?userId=nobody'), { status: 'UNKNOWN_USER_ID_ERROR' })
  const found = await json('GET', '/public/users/by-accountinfo?email=FRANK%40example.com&doUnionOfAccountInfo=false')
  t.equal(found.users.length, 1)
  t.equal((await get('/public/users/by-accountinfo?thirdPartyId=x&doUnionOfAccountInfo=true')).statusCode, 400, 'provider id without user id')
  const dup = await json('POST', '/public/recipe/signup', { email: 'frank@example.com', password: 'other' })
  t.same(dup, { status: 'EMAIL_ALREADY_EXISTS_ERROR' })
  t.same(await json('POST', '/public/recipe/signin', { email: 'frank@example.com', password: 'wrong' }), { status: 'WRONG_CREDENTIALS_ERROR' })
  const count = await json('GET', '/public/users/count')
  t.ok(count.count >= 1)
  const list = await json('GET', '/public/users?limit=1&timeJoinedOrder=ASC')
  t.equal(list.users.length, 1)
  t.same(await json('POST', '/user/remove', { userId: 'nobody-at-all' }), { status: 'OK' }, 'removing an unknown user is OK')
})

t.test('parallel sign-ups with one email make one user', async (t) => {
  const answers = await Promise.all([0, 1, 2, 3, 4].map(() => send('POST', '/public/recipe/signup', { email: 'race@example.com', password: 'Passw0rd!1' })))
  const statuses = answers.map((a) => a.json().status).sort()
  t.same(statuses, ['EMAIL_ALREADY_EXISTS_ERROR', 'EMAIL_ALREADY_EXISTS_ERROR', 'EMAIL_ALREADY_EXISTS_ERROR', 'EMAIL_ALREADY_EXISTS_ERROR', 'OK'])
})

t.test('sessions: v5 token layout, protected claims, info, data, removal', async (t) => {
  const id = await newUser('grace@example.com')
  const created = await newSession(id)
  t.match(created, {
    status: 'OK',
    session: { handle: /^[0-9a-f-]{36}$/, userId: id, recipeUserId: id, userDataInJWT: { role: 'x' }, tenantId: 'public' },
    accessToken: { token: /^ey/, expiry: Number, createdTime: Number },
    refreshToken: { token: String, expiry: Number, createdTime: Number },
  })
  t.notOk('antiCsrfToken' in created)
  t.equal(created.accessToken.createdTime % 1000, 0, 'times in whole seconds')
  const decoded = decodeJwt(created.accessToken.token)!
  t.same(Object.keys(decoded.header), ['alg', 'typ', 'version', 'kid'])
  t.match(decoded.header, { alg: 'RS256', typ: 'JWT', version: '5', kid: /^d-/ })
  t.same(Object.keys(decoded.payload), ['sub', 'exp', 'iat', 'tId', 'rsub', 'sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken', 'role'])
  t.equal(decoded.payload.parentRefreshTokenHash1, null)
  t.equal((decoded.payload.exp as number) - (decoded.payload.iat as number), 3600)

  const bad = await send('POST', '/public/recipe/session', { userId: id, userDataInJWT: { sub: 'me' }, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false })
  t.equal(bad.statusCode, 400, 'protected claims are refused')

  const handle = created.session.handle as string
  const info = await json('GET', `/recipe/session?sessionHandle=${handle}`)
  t.match(info, { status: 'OK', sessionHandle: handle, userId: id, recipeUserId: id, userDataInDatabase: { d: 1 }, userDataInJWT: { role: 'x' }, tenantId: 'public' })
  t.same(await json('PUT', '/recipe/session/data', { sessionHandle: handle, userDataInDatabase: { d: 2 } }), { status: 'OK' })
  t.same((await json('GET', `/recipe/session?sessionHandle=${handle}`)).userDataInDatabase, { d: 2 }, 'replaced, not merged')
  t.same(await json('PUT', '/recipe/jwt/data', { sessionHandle: handle, userDataInJWT: { role: 'y' } }), { status: 'OK' })

  const verify = await json('POST', '/recipe/session/verify', { accessToken: created.accessToken.token, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: true })
  t.equal(verify.status, 'OK')
  t.same(verify.session.userDataInJWT, { role: 'y' }, 'a payload changed in the database comes back in a new token')
  t.ok(verify.accessToken, 'with a new access token')

  const handles = await json('GET', `/recipe/session/user?userId=${id}&fetchSessionsForAllLinkedAccounts=true&fetchAcrossAllTenants=true`)
  t.same(handles.sessionHandles, [handle])
  t.equal((await send('POST', '/recipe/session/remove', { userId: id, sessionHandles: [handle] })).statusCode, 400, 'exactly one of userId and sessionHandles')
  t.same(await json('POST', '/recipe/session/remove', { userId: id }), { status: 'OK', sessionHandlesRevoked: [handle] })
  t.same(await json('GET', `/recipe/session?sessionHandle=${handle}`), { status: 'UNAUTHORISED', message: 'Session does not exist.' })
  const after = await json('POST', '/recipe/session/verify', { accessToken: created.accessToken.token, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: true })
  t.equal(after.status, 'UNAUTHORISED')
})

t.test('refresh: theft payload carries recipeUserId; anti-CSRF is checked before theft', async (t) => {
  const id = await newUser('heidi@example.com')
  const created = await newSession(id, { enableAntiCsrf: true })
  t.type(created.antiCsrfToken, 'string')
  const R = created.refreshToken.token as string
  const first = await json('POST', '/recipe/session/refresh', { refreshToken: R, antiCsrfToken: created.antiCsrfToken, enableAntiCsrf: true, useDynamicSigningKey: true })
  t.equal(first.status, 'OK')
  const child = first.refreshToken.token as string
  t.equal(decodeJwt(first.accessToken.token)!.payload.parentRefreshTokenHash1, decodeJwt(created.accessToken.token)!.payload.refreshTokenHash1)
  const again = await json('POST', '/recipe/session/refresh', { refreshToken: R, antiCsrfToken: created.antiCsrfToken, enableAntiCsrf: true, useDynamicSigningKey: true })
  t.equal(again.status, 'OK', 'the parent refreshes again until a child is used')
  const promote = await json('POST', '/recipe/session/refresh', { refreshToken: child, antiCsrfToken: first.antiCsrfToken, enableAntiCsrf: true, useDynamicSigningKey: true })
  t.equal(promote.status, 'OK')
  const wrongCsrf = await json('POST', '/recipe/session/refresh', { refreshToken: R, antiCsrfToken: promote.antiCsrfToken, enableAntiCsrf: true, useDynamicSigningKey: true })
  t.same(wrongCsrf, { status: 'UNAUTHORISED', message: 'Anti CSRF token missing, or not matching' })
  const theft = await json('POST', '/recipe/session/refresh', { refreshToken: R, antiCsrfToken: created.antiCsrfToken, enableAntiCsrf: true, useDynamicSigningKey: true })
  t.same(theft, { status: 'TOKEN_THEFT_DETECTED', session: { handle: created.session.handle, userId: id, recipeUserId: id } })
  const forged = await json('POST', '/recipe/session/refresh', { refreshToken: `${R.slice(0, -4)}AAAA`, enableAntiCsrf: false, useDynamicSigningKey: true })
  t.equal(forged.status, 'UNAUTHORISED', 'a tampered token is nobody\'s')
})

t.test('regenerate keeps exp and hashes; an expired token regenerates without a new token', async (t) => {
  const id = await newUser('ivan@example.com')
  const created = await newSession(id)
  const regen = await json('POST', '/recipe/session/regenerate', { accessToken: created.accessToken.token, userDataInJWT: { role: 'z' } })
  const before = decodeJwt(created.accessToken.token)!.payload
  const after = decodeJwt(regen.accessToken.token)!.payload
  t.equal(after.exp, before.exp)
  t.equal(after.refreshTokenHash1, before.refreshTokenHash1)
  t.equal(after.role, 'z')
  t.equal((await send('POST', '/recipe/session/regenerate', { accessToken: created.accessToken.token, userDataInJWT: { exp: 1 } })).statusCode, 400)
})

t.test('TOTP: parallel wrong codes cannot exceed the limit', async (t) => {
  const userId = 'totp-user'
  const device = await json('POST', '/recipe/totp/device', { userId, deviceName: 'd', skew: 1, period: 30 })
  const code = totpCode(base32Decode(device.secret), clock.totpStep())
  t.same(await json('POST', '/public/recipe/totp/device/verify', { userId, deviceName: 'd', totp: code }), { status: 'OK', wasAlreadyVerified: false })
  t.same(await json('POST', '/public/recipe/totp/device/verify', { userId, deviceName: 'd', totp: 'whatever' }), { status: 'OK', wasAlreadyVerified: true })
  const answers = await Promise.all(Array.from({ length: 12 }, () => send('POST', '/public/recipe/totp/verify', { userId, totp: '00000000' })))
  const statuses = answers.map((a) => a.json().status)
  t.equal(statuses.filter((s) => s === 'INVALID_TOTP_ERROR').length, 5)
  t.equal(statuses.filter((s) => s === 'LIMIT_REACHED_ERROR').length, 7)
  const counts = answers.map((a) => a.json().currentNumberOfFailedAttempts as number).filter((n, i) => statuses[i] === 'INVALID_TOTP_ERROR').sort()
  t.same(counts, [1, 2, 3, 4, 5])
  t.same(await json('POST', '/public/recipe/totp/verify', { userId: 'no-device', totp: '123456' }), { status: 'UNKNOWN_USER_ID_ERROR' })
  t.same(await json('POST', '/recipe/totp/device/remove', { userId, deviceName: 'd' }), { status: 'OK', didDeviceExist: true })
  t.same(await json('GET', `/recipe/totp/device/list?userId=${userId}`), { status: 'OK', devices: [] })
})

t.test('apps: isolated data, per-app settings, API keys, removal', async (t) => {
  const created = await json('PUT', '/recipe/multitenancy/app/v2', { appId: 'staging-1', coreConfig: { access_token_validity: 60, api_keys: 'staging-key-0123456789abcdef' } })
  t.same(created, { status: 'OK', createdNew: true })
  const refused = await get('/appid-staging-1/apiversion')
  t.equal(refused.statusCode, 401)
  t.equal(refused.body, 'Invalid API key\n')
  t.equal((await get('/appid-staging-1/hello')).statusCode, 200, 'hello needs no key')
  const key = { 'api-key': 'staging-key-0123456789abcdef' }
  t.equal((await get('/appid-staging-1/apiversion', { authorization: 'Bearer staging-key-0123456789abcdef' })).statusCode, 200, 'Authorization works too')
  const signup = await send('POST', '/appid-staging-1/public/recipe/signup', { email: 'frank@example.com', password: 'Passw0rd!1' }, key)
  t.equal(signup.json().status, 'OK', 'the same email is free in another app')
  const id = signup.json().recipeUserId as string
  t.same(await json('GET', `/user/id?userId=${id}`), { status: 'UNKNOWN_USER_ID_ERROR' }, 'and invisible from the public app')
  const session = await send('POST', '/appid-staging-1/public/recipe/session', { userId: id, userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false }, key)
  const payload = decodeJwt(session.json().accessToken.token)!.payload
  t.equal((payload.exp as number) - (payload.iat as number), 60, 'the app\'s own access-token lifetime')
  const list = await json('GET', '/recipe/multitenancy/app/list/v2')
  t.ok(list.apps.some((app: { appId: string }) => app.appId === 'staging-1'))
  t.equal((await send('PUT', '/recipe/multitenancy/app/v2', { appId: 'x', coreConfig: { made_up: 1 } })).statusCode, 400)
  t.same(await json('POST', '/recipe/multitenancy/app/remove', { appId: 'staging-1' }), { status: 'OK', didExist: true })
  t.same(await json('POST', '/recipe/multitenancy/app/remove', { appId: 'never-was' }), { status: 'OK', didExist: false })
  t.equal((await get('/appid-staging-1/apiversion', key)).statusCode, 400, 'gone with its data')
})

t.test('account linking: primary, link, conflicts, unlink', async (t) => {
  const a = await newUser('link-a@example.com')
  const b = await newUser('link-b@example.com')
  t.same(await json('GET', `/recipe/accountlinking/user/primary/check?recipeUserId=${a}`), { status: 'OK', wasAlreadyAPrimaryUser: false })
  const primary = await json('POST', '/recipe/accountlinking/user/primary', { recipeUserId: a })
  t.match(primary, { status: 'OK', wasAlreadyAPrimaryUser: false, user: { id: a, isPrimaryUser: true } })
  t.match(await json('GET', `/recipe/accountlinking/user/link/check?recipeUserId=${b}&primaryUserId=${b}`), { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' })
  const link = await json('POST', '/recipe/accountlinking/user/link', { recipeUserId: b, primaryUserId: a })
  t.match(link, { status: 'OK', accountsAlreadyLinked: false, user: { id: a, emails: ['link-a@example.com', 'link-b@example.com'] } })
  t.equal(link.user.loginMethods.length, 2)
  t.match(await json('GET', `/user/id?userId=${b}`), { user: { id: a } }, 'a linked login method answers with its primary user')
  t.same(await json('POST', '/recipe/accountlinking/user/unlink', { recipeUserId: b }), { status: 'OK', wasRecipeUserDeleted: false, wasLinked: true })
  t.match(await json('GET', `/user/id?userId=${b}`), { user: { id: b, isPrimaryUser: false } })
})

// Answers that differed from the real core, found by supertokens-node's own test suite.
t.test('POST /recipe/jwt keeps an iss the caller sets and adds jwksDomain only when there is none', async (t) => {
  const jwt = async (payload: Record<string, unknown>) =>
    decodeJwt((await json('POST', '/recipe/jwt', { payload, validity: 60, useStaticSigningKey: false, algorithm: 'RS256', jwksDomain: 'https://api.example.com' })).jwt as string)!.payload
  t.equal((await jwt({ sub: 'u1', iss: 'https://issuer.example.org' })).iss, 'https://issuer.example.org', 'the caller\'s iss')
  t.equal((await jwt({ sub: 'u1' })).iss, 'https://api.example.com', 'none given: the jwksDomain')
})

t.test('GET /users refuses a limit below 1, above 500 or not a number with the real core\'s 400 texts', async (t) => {
  const cases: Array<[string, string]> = [
    ['0', 'limit must a positive integer with min value 1'],
    ['-1', 'limit must a positive integer with min value 1'],
    ['501', 'max limit allowed is 500'],
    ['100000', 'max limit allowed is 500'],
    ['ten', "Field name 'limit' must be an int in the GET request"],
    ['1.5', "Field name 'limit' must be an int in the GET request"],
    ['', "Field name 'limit' must be an int in the GET request"],
  ]
  for (const [limit, message] of cases) {
    const response = await get(`/public/users?limit=${encodeURIComponent(limit)}`)
    t.equal(response.statusCode, 400, `limit=${limit}`)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.equal(response.body, message, `limit=${limit}`)
  }
  t.equal((await get('/public/users?limit=500')).statusCode, 200, 'the largest page')
  t.equal((await get('/public/users?limit=1')).statusCode, 200, 'the smallest page')
  t.equal((await get('/public/users')).statusCode, 200, 'no limit: the default')
})

t.test('a missing or wrong API key is refused with exactly "Invalid API key" and a newline, on the wire', async (t) => {
  t.same(await json('PUT', '/recipe/multitenancy/app/v2', { appId: 'keyed-1', coreConfig: { api_keys: 'keyed-key-0123456789abcdef' } }), { status: 'OK', createdNew: true })
  t.teardown(() => core.inject({ method: 'POST', url: '/recipe/multitenancy/app/remove', headers: cdi, payload: { appId: 'keyed-1' } }))
  const wire = await buildAuthCore({ config: testCoreConfig(), db, secret: TEST_SECRET, apiKeys: null })
  t.teardown(() => wire.close())
  const address = await wire.listen({ host: '127.0.0.1', port: 0 })
  for (const headers of [{}, { 'api-key': 'wrong-key-0123456789abcdef' }, { authorization: 'Bearer wrong-key-0123456789abcdef' }] as Array<Record<string, string>>) {
    const response = await fetch(`${address}/appid-keyed-1/apiversion`, { headers: { 'cdi-version': '5.4', ...headers } })
    t.equal(response.status, 401)
    t.equal(await response.text(), 'Invalid API key\n', JSON.stringify(headers))
  }
  const allowed = await fetch(`${address}/appid-keyed-1/apiversion`, { headers: { 'cdi-version': '5.4', 'api-key': 'keyed-key-0123456789abcdef' } })
  t.equal(allowed.status, 200)
})

t.test('two core instances on one database give the same answers', async (t) => {
  const other = await buildAuthCore({ config: testCoreConfig(), db: await secondConnection(t, db), secret: TEST_SECRET, apiKeys: null })
  t.teardown(() => other.close())
  const id = await newUser('judy@example.com')
  const created = await newSession(id)
  const jwksA = (await get('/.well-known/jwks.json')).json()
  const jwksB = (await other.inject('/.well-known/jwks.json')).json()
  t.same(jwksB, jwksA, 'one key set')
  const verifyAtB = await other.inject({ method: 'POST', url: '/recipe/session/verify', headers: cdi, payload: { accessToken: created.accessToken.token, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: true } })
  t.equal(verifyAtB.json().status, 'OK')
  const refreshAtB = await other.inject({ method: 'POST', url: '/recipe/session/refresh', headers: cdi, payload: { refreshToken: created.refreshToken.token, enableAntiCsrf: false, useDynamicSigningKey: true } })
  t.equal(refreshAtB.json().status, 'OK')
  t.same((await other.inject(`/user/id?userId=${id}`)).json(), await json('GET', `/user/id?userId=${id}`))
})

t.test('verify refuses forged, foreign and mismatched tokens with TRY_REFRESH_TOKEN', async (t) => {
  const id = await newUser('kate@example.com')
  const created = await newSession(id, { enableAntiCsrf: true })
  const token = created.accessToken.token as string
  const verify = (accessToken: string, extra: Record<string, unknown> = {}) =>
    json('POST', '/recipe/session/verify', { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false, ...extra })
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(token)!.payload, sub: 'someone-else' })).toString('base64url')
  t.equal((await verify(`${header}.${forgedPayload}.${signature}`)).status, 'TRY_REFRESH_TOKEN', 'a changed payload')
  const foreignHeader = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', version: '5', kid: 'd-1' })).toString('base64url')
  t.equal((await verify(`${foreignHeader}.${payload}.${signature}`)).status, 'TRY_REFRESH_TOKEN', 'an unknown key id')
  t.equal((await verify('not-a-jwt')).status, 'TRY_REFRESH_TOKEN')
  const csrf = await verify(token, { doAntiCsrfCheck: true, enableAntiCsrf: true, antiCsrfToken: 'wrong' })
  t.equal(csrf.status, 'TRY_REFRESH_TOKEN', 'anti-CSRF mismatch')
  const ok = await verify(token, { doAntiCsrfCheck: true, enableAntiCsrf: true, antiCsrfToken: created.antiCsrfToken })
  t.equal(ok.status, 'OK')
})

t.test('email verification, metadata and email changes at the edges', async (t) => {
  const id = await newUser('leo@example.com')
  await newUser('mia@example.com')
  const token = await json('POST', '/public/recipe/user/email/verify/token', { userId: id, email: 'LEO@example.com' })
  t.equal(token.status, 'OK')
  t.same(await json('POST', '/public/recipe/user/email/verify', { method: 'token', token: token.token }), { status: 'OK', userId: id, email: 'leo@example.com' })
  t.same(await json('GET', `/recipe/user/email/verify?userId=${id}&email=leo%40example.com`), { status: 'OK', isVerified: true })
  t.same(await json('GET', `/recipe/user/email/verify?userId=${id}&email=LEO%40example.com`), { status: 'OK', isVerified: false }, 'the read is not normalised, as in the real core')
  t.same(await json('POST', '/public/recipe/user/email/verify/token', { userId: id, email: 'leo@example.com' }), { status: 'EMAIL_ALREADY_VERIFIED_ERROR' })
  t.same(await json('POST', '/recipe/user/email/verify/remove', { userId: id, email: 'leo@example.com' }), { status: 'OK' })
  t.same((await json('GET', `/recipe/user/email/verify?userId=${id}&email=leo%40example.com`)).isVerified, false, 'unverified again')

  t.same(await json('GET', '/recipe/user/metadata?userId=never-seen'), { status: 'OK', metadata: {} })
  t.same(await json('PUT', '/recipe/user', { recipeUserId: id, email: 'mia@example.com' }), { status: 'EMAIL_ALREADY_EXISTS_ERROR' })
  t.same(await json('PUT', '/recipe/user', { recipeUserId: 'nobody', password: 'x' }), { status: 'UNKNOWN_USER_ID_ERROR' })
  t.equal((await send('PUT', '/recipe/user', { recipeUserId: id })).statusCode, 400, 'neither email nor password')
  t.same(await json('PUT', '/recipe/user', { recipeUserId: id, email: 'Leo.New@example.com', password: 'N3w-password!' }), { status: 'OK' })
  t.same((await json('POST', '/public/recipe/signin', { email: 'leo.new@example.com', password: 'N3w-password!' })).status, 'OK')
  t.same(await json('POST', '/public/recipe/user/password/reset/token', { userId: 'nobody', email: 'x@y.z' }), { status: 'UNKNOWN_USER_ID_ERROR' })
  t.same(await json('POST', '/public/recipe/user/password/reset/token/consume', { token: 'bogus' }), { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' })
})

t.test('the reset link check (ours, beside consume): consume\'s answers, nothing used up, expiry included', async (t) => {
  const id = await newUser('rita@example.com')
  const check = async (token: string) => json('POST', '/public/recipe/user/password/reset/token/check', { token })
  const { token } = await json('POST', '/public/recipe/user/password/reset/token', { userId: id, email: 'rita@example.com' })
  t.same(await check(token), { status: 'OK' })
  t.same(await check(token), { status: 'OK' }, 'checking twice uses nothing')
  t.same(await check('bogus'), { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' })
  t.match(await json('POST', '/public/recipe/user/password/reset/token/consume', { token }), { status: 'OK', userId: id })
  t.same(await check(token), { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' }, 'a used one')
  const { token: late } = await json('POST', '/public/recipe/user/password/reset/token', { userId: id, email: 'rita@example.com' })
  await db.query('UPDATE authcore.password_reset_tokens SET expiry = $1', [Date.now() - 1])
  t.same(await check(late), { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' }, 'an expired one')
  t.equal((await send('POST', '/public/recipe/user/password/reset/token/check', {})).statusCode, 400, 'a token is required')
})
