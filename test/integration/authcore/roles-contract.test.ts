import { Writable } from 'node:stream'
import t from 'tap'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { ROLE_CHANGE_RETENTION_MS } from '../../../server/authcore/roles.ts'
import { testCoreConfig, openTestDatabase } from '../../helpers.ts'
import { TEST_SECRET } from './harness.ts'

// The user-roles recipe on raw CDI 5.4: every spelling the router takes, the real
// core's 400 texts, the app-level rule, the role-change feed the BFF and the API poll, deleting a
// user, and the bulk-import export.

const db = await openTestDatabase(t)
let wall = Date.now()
const OPERATOR = 'roles-contract-operator-token-0123456789'
const core = await buildAuthCore({ config: testCoreConfig(), db, secret: TEST_SECRET, apiKeys: null, operatorToken: OPERATOR, now: () => wall })
t.teardown(() => core.close())

const cdi = { 'cdi-version': '5.4', 'content-type': 'application/json; charset=utf-8' }
const get = async (url: string) => core.inject({ method: 'GET', url, headers: cdi })
const send = async (method: 'POST' | 'PUT', url: string, payload: unknown) => core.inject({ method, url, headers: cdi, payload: JSON.stringify(payload) })
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown): Promise<Record<string, any>> => {
  const response = method === 'GET' ? await get(url) : await send(method, url, payload)
  t.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`)
  return response.json()
}
const changedSince = async (since: number, prefix = '') => json('GET', `${prefix}/recipe/user/roles/changed?since=${since}`)
const changedUsers = async (since: number) => ((await changedSince(since)).changed as Array<{ userId: string }>).map((c) => c.userId).sort()
const dbClock = async () => Number((await db.query<{ now: string }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now')).rows[0]!.now)
/**
 * A point on the database's clock (changes are stamped with it) after every change made so far and
 * before every change made next: the next millisecond, once the clock has reached it.
 */
const dbNow = async () => {
  const mark = (await dbClock()) + 1
  while ((await dbClock()) < mark);
  return mark
}

t.test('every spelling: with and without the tenant, the /appid- prefix, trailing slash', async (t) => {
  t.same(await json('PUT', '/recipe/role', { role: 'spelled', permissions: ['p'] }), { status: 'OK', createdNewRole: true })
  t.same(await json('PUT', '/appid-public/recipe/role', { role: 'spelled', permissions: ['q'] }), { status: 'OK', createdNewRole: false })
  t.same(await json('GET', '/recipe/role/permissions/?role=spelled'), { status: 'OK', permissions: ['p', 'q'] })
  t.same(await json('PUT', '/public/recipe/user/role', { userId: 'u1', role: 'spelled' }), { status: 'OK', didUserAlreadyHaveRole: false })
  t.same(await json('PUT', '/recipe/user/role', { userId: 'u1', role: 'spelled' }), { status: 'OK', didUserAlreadyHaveRole: true }, 'no tenant is the public tenant')
  t.same(await json('PUT', '/appid-public/public/recipe/user/role', { userId: 'u1', role: 'spelled' }), { status: 'OK', didUserAlreadyHaveRole: true })
  t.same(await json('GET', '/public/recipe/user/roles?userId=u1'), { status: 'OK', roles: ['spelled'] })
  t.same(await json('GET', '/recipe/user/roles?userId=u1'), { status: 'OK', roles: ['spelled'] })
  t.same(await json('GET', '/public/recipe/role/users?role=spelled'), { status: 'OK', users: ['u1'] })
  t.same(await json('GET', '/recipe/role/users?role=spelled'), { status: 'OK', users: ['u1'] })
  t.same(await json('GET', '/public/recipe/roles'), { status: 'OK', roles: ['spelled'] })
  t.same(await json('GET', '/public/recipe/permission/roles?permission=q'), { status: 'OK', roles: ['spelled'] })
  t.same(await json('POST', '/public/recipe/user/role/remove', { userId: 'u1', role: 'spelled' }), { status: 'OK', didUserHaveRole: true })
  t.same(await json('POST', '/recipe/user/role/remove', { userId: 'u1', role: 'spelled' }), { status: 'OK', didUserHaveRole: false })
  t.same(await json('POST', '/public/recipe/role/permissions/remove', { role: 'spelled' }), { status: 'OK' }, 'no permissions named: all go')
  t.same(await json('GET', '/recipe/role/permissions?role=spelled'), { status: 'OK', permissions: [] })
  t.same(await json('POST', '/public/recipe/role/remove', { role: 'spelled' }), { status: 'OK', didRoleExist: true })
  t.same(await json('POST', '/recipe/role/remove', { role: 'spelled' }), { status: 'OK', didRoleExist: false })
  t.same(await json('POST', '/recipe/role/permissions/remove', { role: 'spelled', permissions: ['p'] }), { status: 'UNKNOWN_ROLE_ERROR' })
  t.same(await json('POST', '/recipe/user/role/remove', { userId: 'u1', role: 'spelled' }), { status: 'UNKNOWN_ROLE_ERROR' })
  t.same(await json('PUT', '/recipe/user/role', { userId: 'u1', role: 'spelled' }), { status: 'UNKNOWN_ROLE_ERROR' })
  t.same(await json('GET', '/recipe/role/users?role=spelled'), { status: 'UNKNOWN_ROLE_ERROR' })
})

t.test('names are trimmed like the real core; roles are case-sensitive', async (t) => {
  t.same(await json('PUT', '/recipe/role', { role: '  padded  ', permissions: [' read ', 'read'] }), { status: 'OK', createdNewRole: true })
  t.same(await json('GET', '/recipe/role/permissions?role=padded'), { status: 'OK', permissions: ['read'] })
  t.same(await json('GET', '/recipe/role/permissions?role=Padded'), { status: 'UNKNOWN_ROLE_ERROR' })
  t.same(await json('PUT', '/recipe/user/role', { userId: ' u2 ', role: 'padded ' }), { status: 'OK', didUserAlreadyHaveRole: false })
  t.same(await json('GET', '/recipe/user/roles?userId=u2'), { status: 'OK', roles: ['padded'] })
  t.same(await json('GET', '/recipe/role/users?role=%20padded'), { status: 'OK', users: ['u2'] })
  t.same(await json('PUT', '/recipe/role', { role: 'padded', permissions: null }), { status: 'OK', createdNewRole: false }, 'permissions may be null')
})

t.test('missing and invalid fields: the real core\'s plain-text 400s', async (t) => {
  const cases: Array<[method: 'GET' | 'POST' | 'PUT', url: string, payload: unknown, text: string]> = [
    ['PUT', '/recipe/role', {}, "Field name 'role' is invalid in JSON input"],
    ['PUT', '/recipe/role', { role: 7 }, "Field name 'role' is invalid in JSON input"],
    ['PUT', '/recipe/role', { role: '   ' }, "Field name 'role' cannot be an empty String"],
    ['PUT', '/recipe/role', { role: 'r', permissions: 'a' }, "Field name 'permissions' is invalid in JSON input"],
    ['PUT', '/recipe/role', { role: 'r', permissions: ['a', 3] }, "Field name 'permissions' is invalid in JSON input"],
    ['PUT', '/recipe/role', { role: 'r', permissions: [' '] }, "Field name 'permissions' cannot be an empty String"],
    ['POST', '/recipe/role/permissions/remove', { permissions: [] }, "Field name 'role' is invalid in JSON input"],
    ['POST', '/recipe/role/permissions/remove', { role: 'r', permissions: {} }, "Field name 'permissions' is invalid in JSON input"],
    ['GET', '/recipe/role/permissions', undefined, "Field name 'role' is missing in GET request"],
    ['GET', '/recipe/role/permissions?role=', undefined, "Field name 'role' cannot be an empty String"],
    ['GET', '/recipe/permission/roles', undefined, "Field name 'permission' is missing in GET request"],
    ['POST', '/recipe/role/remove', {}, "Field name 'role' is invalid in JSON input"],
    ['PUT', '/public/recipe/user/role', { role: 'r' }, "Field name 'userId' is invalid in JSON input"],
    ['PUT', '/public/recipe/user/role', { userId: 'u' }, "Field name 'role' is invalid in JSON input"],
    ['PUT', '/public/recipe/user/role', { userId: '', role: 'r' }, "Field name 'userId' cannot be an empty String"],
    ['POST', '/public/recipe/user/role/remove', { userId: 'u', role: null }, "Field name 'role' is invalid in JSON input"],
    ['GET', '/public/recipe/user/roles', undefined, "Field name 'userId' is missing in GET request"],
    ['GET', '/public/recipe/role/users', undefined, "Field name 'role' is missing in GET request"],
    ['GET', '/recipe/user/roles/changed?since=soon', undefined, "Field name 'since' is invalid in GET request"],
  ]
  for (const [method, url, payload, text] of cases) {
    const response = method === 'GET' ? await get(url) : await send(method, url, payload)
    t.equal(response.statusCode, 400, `${method} ${url} ${JSON.stringify(payload)}`)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.equal(response.body, text)
  }
  const notJson = await core.inject({ method: 'PUT', url: '/recipe/role', headers: cdi, payload: '[1]' })
  t.equal(notJson.statusCode, 400)
  t.equal(notJson.body, 'Invalid Json Input')
})

t.test('roles are the app\'s: another tenant may hold them but not define them; unknown tenants are refused', async (t) => {
  await db.query("INSERT INTO authcore.tenants (app_id, tenant_id) VALUES ('public', 'second')")
  await json('PUT', '/recipe/role', { role: 'app-wide', permissions: ['x'] })
  for (const [method, url, payload] of [
    ['PUT', '/second/recipe/role', { role: 'app-wide', permissions: [] }],
    ['GET', '/second/recipe/roles', undefined],
    ['GET', '/second/recipe/role/permissions?role=app-wide', undefined],
    ['POST', '/second/recipe/role/remove', { role: 'app-wide' }],
  ] as const) {
    const response = method === 'GET' ? await get(url) : await send(method, url, payload)
    t.equal(response.statusCode, 403, url)
    t.equal(response.body, 'Only public tenantId can call this app specific API')
  }
  t.same(await json('PUT', '/second/recipe/user/role', { userId: 'u3', role: 'app-wide' }), { status: 'OK', didUserAlreadyHaveRole: false })
  t.same(await json('GET', '/second/recipe/user/roles?userId=u3'), { status: 'OK', roles: ['app-wide'] })
  t.same(await json('GET', '/public/recipe/user/roles?userId=u3'), { status: 'OK', roles: [] }, 'a user\'s roles are per tenant')
  t.same(await json('GET', '/second/recipe/role/users?role=app-wide'), { status: 'OK', users: ['u3'] })
  t.same(await json('GET', '/recipe/role/users?role=app-wide'), { status: 'OK', users: [] })
  const unknown = await send('PUT', '/nowhere/recipe/user/role', { userId: 'u3', role: 'app-wide' })
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.body, 'AppId or tenantId not found')
  // Apps are isolated: another app neither sees the role nor may grant it.
  await json('PUT', '/recipe/multitenancy/app/v2', { appId: 'roles-other', coreConfig: {} })
  t.same(await json('GET', '/appid-roles-other/recipe/roles'), { status: 'OK', roles: [] })
  t.same(await json('PUT', '/appid-roles-other/public/recipe/user/role', { userId: 'u3', role: 'app-wide' }), { status: 'UNKNOWN_ROLE_ERROR' })
})

t.test('the feed: a change for each user a change touches, none for what changes nothing', async (t) => {
  await json('PUT', '/recipe/role', { role: 'feed-a', permissions: ['one'] })
  await json('PUT', '/recipe/role', { role: 'feed-b', permissions: [] })
  let since = await dbNow()
  await json('PUT', '/public/recipe/user/role', { userId: 'f1', role: 'feed-a' })
  t.same(await changedUsers(since), ['f1'], 'a grant')
  await json('PUT', '/public/recipe/user/role', { userId: 'f2', role: 'feed-a' })
  await json('PUT', '/public/recipe/user/role', { userId: 'f3', role: 'feed-b' })

  since = await dbNow()
  await json('PUT', '/public/recipe/user/role', { userId: 'f1', role: 'feed-a' })
  await json('POST', '/public/recipe/user/role/remove', { userId: 'f3', role: 'feed-a' })
  await json('PUT', '/recipe/role', { role: 'feed-a', permissions: ['one'] })
  await json('POST', '/recipe/role/permissions/remove', { role: 'feed-a', permissions: ['never'] })
  t.same(await changedUsers(since), [], 'a grant held already, a removal of a role not held, permissions that were there or were not: nothing changed')

  since = await dbNow()
  await json('PUT', '/recipe/role', { role: 'feed-a', permissions: ['two'] })
  t.same(await changedUsers(since), ['f1', 'f2'], 'a permission added: every holder of the role')
  since = await dbNow()
  await json('POST', '/recipe/role/permissions/remove', { role: 'feed-a', permissions: ['one'] })
  t.same(await changedUsers(since), ['f1', 'f2'], 'a permission taken away')
  since = await dbNow()
  await json('POST', '/public/recipe/user/role/remove', { userId: 'f2', role: 'feed-a' })
  t.same(await changedUsers(since), ['f2'], 'a removal')
  await json('PUT', '/second/recipe/user/role', { userId: 'f3', role: 'feed-a' })
  since = await dbNow()
  await json('POST', '/recipe/role/remove', { role: 'feed-a' })
  t.same(await changedUsers(since), ['f1', 'f3'], 'a role removed: each of its holders, in every tenant')

  const page = await changedSince(since)
  t.match(page, { status: 'OK', more: false })
  t.ok(page.changed.every((c: { changedAt: number }) => c.changedAt >= since && c.changedAt <= page.until), 'changedAt on the database clock, until the newest')
  t.same(await changedSince(page.until + 1), { status: 'OK', changed: [], until: page.until + 1, more: false }, 'nothing newer: until stays where it was asked')
  t.same((await changedSince(page.until, '/public')).changed.length > 0, true, 'the tenant-prefixed spelling reads the same feed')
  t.same((await changedSince(0, '/appid-roles-other')).changed, [], 'another app\'s feed is its own')
})

t.test('the feed pages by its clock: 10 000 at most, then more', async (t) => {
  await json('PUT', '/recipe/multitenancy/app/v2', { appId: 'roles-paging', coreConfig: {} })
  await db.query(`INSERT INTO authcore.role_changes (app_id, user_id, changed_at) SELECT 'roles-paging', 'bulk-' || lpad(i::text, 5, '0'), 1000 + i FROM generate_series(1, 10002) AS i`)
  const first = await changedSince(0, '/appid-roles-paging')
  t.equal(first.changed.length, 10_000)
  t.equal(first.more, true)
  t.same(first.changed[0], { userId: 'bulk-00001', changedAt: 1001 })
  t.equal(first.until, 11_000)
  const second = await changedSince(first.until, '/appid-roles-paging')
  t.same(second, { status: 'OK', changed: [{ userId: 'bulk-10000', changedAt: 11_000 }, { userId: 'bulk-10001', changedAt: 11_001 }, { userId: 'bulk-10002', changedAt: 11_002 }], until: 11_002, more: false })
})

t.test('changes older than a day are swept', async (t) => {
  await json('PUT', '/recipe/multitenancy/app/v2', { appId: 'roles-sweep', coreConfig: {} })
  await json('PUT', '/appid-roles-sweep/recipe/role', { role: 'r', permissions: [] })
  await json('PUT', '/appid-roles-sweep/public/recipe/user/role', { userId: 'kept', role: 'r' })
  const stamped = (await changedSince(0, '/appid-roles-sweep')).changed[0].changedAt as number
  await db.query("INSERT INTO authcore.role_changes (app_id, user_id, changed_at) VALUES ('roles-sweep', 'old', $1)", [stamped - ROLE_CHANGE_RETENTION_MS - 1])
  wall = stamped + 120_000
  t.same(((await changedSince(0, '/appid-roles-sweep')).changed as Array<{ userId: string }>).map((c) => c.userId), ['kept'], 'the day-old row is gone')
  wall = stamped + ROLE_CHANGE_RETENTION_MS + 240_000
  t.same((await changedSince(0, '/appid-roles-sweep')).changed, [], 'and in a day, every row')
  wall = Date.now()
})

t.test('deleting a user removes its roles and notes the change; the export carries them', async (t) => {
  const signUp = async (email: string) => (await json('POST', '/public/recipe/signup', { email, password: 'Passw0rd!1' })).recipeUserId as string
  const holder = await signUp('holder@example.com')
  const kept = await signUp('kept@example.com')
  await json('PUT', '/recipe/role', { role: 'exported', permissions: ['e'] })
  await json('PUT', '/public/recipe/user/role', { userId: holder, role: 'exported' })
  await json('PUT', '/second/recipe/user/role', { userId: holder, role: 'exported' })
  await json('PUT', '/public/recipe/user/role', { userId: holder, role: 'app-wide' })
  await json('PUT', '/public/recipe/user/role', { userId: kept, role: 'exported' })

  const exported = await core.inject({ method: 'GET', url: '/internal/users/export', headers: { authorization: `Bearer ${OPERATOR}` } })
  t.equal(exported.statusCode, 200)
  const users = exported.json().users as Array<{ externalUserId: string; userRoles: unknown }>
  t.same(users.find((u) => u.externalUserId === holder)?.userRoles, [
    { role: 'app-wide', tenantIds: ['public'] },
    { role: 'exported', tenantIds: ['public', 'second'] },
  ])
  t.same(users.find((u) => u.externalUserId === kept)?.userRoles, [{ role: 'exported', tenantIds: ['public'] }])

  const since = await dbNow()
  t.same(await json('POST', '/user/remove', { userId: holder }), { status: 'OK' })
  t.same(await json('GET', `/public/recipe/user/roles?userId=${holder}`), { status: 'OK', roles: [] })
  t.same(await json('GET', `/second/recipe/user/roles?userId=${holder}`), { status: 'OK', roles: [] })
  t.same(await json('GET', '/public/recipe/role/users?role=exported'), { status: 'OK', users: [kept] })
  t.same(await changedUsers(since), [holder], 'the deleted user\'s roles changed; nobody else\'s')
})

t.test('the feed is polled twice a second by every instance: its reads write no log line, other calls do', async (t) => {
  const lines: string[] = []
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter((line) => line !== ''))
      done()
    },
  })
  const logged = await buildAuthCore({ config: testCoreConfig('info'), db, secret: TEST_SECRET, apiKeys: null, logStream })
  t.teardown(() => logged.close())
  await logged.ready()
  lines.length = 0
  for (const url of ['/recipe/user/roles/changed?since=0', '/public/recipe/user/roles/changed?since=0', '/appid-public/recipe/user/roles/changed']) {
    t.equal((await logged.inject({ url, headers: cdi })).statusCode, 200, url)
  }
  t.same(lines, [], 'nothing for the feed, in any spelling')
  t.equal((await logged.inject({ url: '/recipe/roles', headers: cdi })).statusCode, 200)
  t.ok(lines.some((line) => line.includes('/recipe/roles')), 'a roles read is logged as any call')
})

t.test('at once: one creation wins; grants racing a removal leave no holder of a role that is gone, and each grant that stood is in the feed', async (t) => {
  const creations = await Promise.all(Array.from({ length: 8 }, () => send('PUT', '/recipe/role', { role: 'raced', permissions: ['p'] })))
  t.ok(creations.every((r) => r.statusCode === 200), creations.map((r) => r.body).join(' '))
  t.equal(creations.filter((r) => r.json().createdNewRole === true).length, 1, 'created once')

  const since = await dbNow()
  const grants = Array.from({ length: 12 }, (_, i) => send('PUT', '/public/recipe/user/role', { userId: `racer-${i}`, role: 'raced' }))
  const removal = send('POST', '/recipe/role/remove', { role: 'raced' })
  const answers = await Promise.all([...grants, removal])
  t.ok(answers.every((r) => r.statusCode === 200), 'no error: ' + answers.filter((r) => r.statusCode !== 200).map((r) => r.body).join(' '))
  const granted = answers.slice(0, 12).flatMap((r, i) => (r.json().status === 'OK' ? [`racer-${i}`] : []))
  t.ok(answers.slice(0, 12).every((r) => ['OK', 'UNKNOWN_ROLE_ERROR'].includes(r.json().status)))
  t.same(await json('GET', '/recipe/role/users?role=raced'), { status: 'UNKNOWN_ROLE_ERROR' }, 'the role is gone')
  const held = await db.query("SELECT 1 FROM authcore.user_roles WHERE role = 'raced'")
  t.equal(held.rowCount, 0, 'and nobody holds it')
  t.same(await changedUsers(since), [...granted].sort(), 'every grant that stood before the removal is noted (the removal noted them again)')
})
