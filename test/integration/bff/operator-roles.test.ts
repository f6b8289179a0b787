import { generateKeyPairSync, sign } from 'node:crypto'
import t from 'tap'
import { OPERATOR_ROLES, ROLE_PERMISSIONS } from '../../../shared/operator.ts'
import { keepOperatorRolesInSync } from '../../../server/bff/auth/operator-access.ts'
import { type browser, buildStack, LogCapture, operatorTab, signedInTab, TEST_AUTH_CORE_API_KEY, waitUntil, type Stack } from '../../helpers.ts'

// Roles (decision 028): the roles the BFF puts in place at start, the claims the access
// token carries from sign-in on, PUT /api/operator/users/{id}/roles with its rules and audit,
// and GET /api/user's roles.

const cdi = (stack: Stack, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  stack.authCore!.inject({
    method,
    url,
    headers: { 'api-key': TEST_AUTH_CORE_API_KEY, 'cdi-version': '5.4', ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload } : {}),
  })

const claimsOf = (tab: ReturnType<typeof browser>) =>
  JSON.parse(Buffer.from((tab.jar.get('sAccessToken') ?? '').split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, { v: string[]; t: number } | string>

const idOf = (tab: ReturnType<typeof browser>) => claimsOf(tab).sub as string

async function auditEntries(stack: Stack, target: string) {
  const { rows } = await stack.db.query<{ actor_id: string; actor_email: string; action: string; before: unknown; after: unknown; request_id: string }>(
    'SELECT actor_id, actor_email, action, before, after, request_id FROM api.audit_log WHERE target = $1 ORDER BY id',
    [target],
  )
  return rows
}

t.test('roles in the core and in the token', async (t) => {
  const stack = await buildStack(t, { auth: true })

  await t.test('the BFF puts the three roles in place at start, with exactly their permissions', async (t) => {
    for (const role of OPERATOR_ROLES) {
      const answer = await cdi(stack, 'GET', `/recipe/role/permissions?role=${role}`)
      t.same([...answer.json().permissions].sort(), [...ROLE_PERMISSIONS[role]].sort(), role)
    }
  })

  await t.test('and brings them back in line: missing permissions added, others removed', async (t) => {
    await cdi(stack, 'PUT', '/recipe/role', { role: 'editor', permissions: ['accounts:write', 'made:up'] })
    await cdi(stack, 'POST', '/recipe/role/permissions/remove', { role: 'support', permissions: ['audit:read'] })
    const sync = keepOperatorRolesInSync(stack.bff.log)
    await sync.firstAttempt
    sync.stop()
    t.same([...(await cdi(stack, 'GET', '/recipe/role/permissions?role=editor')).json().permissions].sort(), [...ROLE_PERMISSIONS.editor].sort())
    t.same([...(await cdi(stack, 'GET', '/recipe/role/permissions?role=support')).json().permissions].sort(), [...ROLE_PERMISSIONS.support].sort())
  })

  await t.test('a signed-in operator\'s token carries st-role and st-perm; GET /api/user answers the roles', async (t) => {
    const tab = await operatorTab(stack, 'ed@example.com', ['editor'])
    const claims = claimsOf(tab)
    t.same((claims['st-role'] as { v: string[] }).v, ['editor'])
    t.same([...(claims['st-perm'] as { v: string[] }).v].sort(), [...ROLE_PERMISSIONS.editor].sort())
    t.type((claims['st-perm'] as { t: number }).t, 'number')
    const user = await tab.get('/api/user')
    t.equal(user.statusCode, 200)
    t.same(user.json().roles, ['editor'])
    const plain = await signedInTab(stack, 'plain@example.com')
    t.same((await plain.get('/api/user')).json().roles, [])
  })
})

t.test('PUT /api/operator/users/{id}/roles', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const admin = await operatorTab(stack, 'admin@example.com', ['admin'])
  const adminId = idOf(admin)
  const person = await signedInTab(stack, 'person@example.com')
  const personId = idOf(person)

  await t.test('an admin sets exactly the roles; the change is audited with before and after', async (t) => {
    const granted = await admin.put(`/api/operator/users/${personId}/roles`, { roles: ['support', 'editor', 'editor'] })
    t.equal(granted.statusCode, 200, granted.body)
    t.same(granted.json(), { roles: ['editor', 'support'] })
    t.same((await cdi(stack, 'GET', `/recipe/user/roles?userId=${personId}`)).json().roles.sort(), ['editor', 'support'])
    const narrowed = await admin.put(`/api/operator/users/${personId}/roles`, { roles: ['support'] })
    t.same(narrowed.json(), { roles: ['support'] })
    const entries = await auditEntries(stack, `user:${personId}`)
    t.same(
      entries.map(({ actor_id, actor_email, action, before, after }) => ({ actor_id, actor_email, action, before, after })),
      [
        { actor_id: adminId, actor_email: 'admin@example.com', action: 'user.roles', before: { roles: [] }, after: { roles: ['editor', 'support'] } },
        { actor_id: adminId, actor_email: 'admin@example.com', action: 'user.roles', before: { roles: ['editor', 'support'] }, after: { roles: ['support'] } },
      ],
    )
    t.equal(entries[1]!.request_id, narrowed.headers['x-request-id'])
    // The same roles again change nothing, and write nothing.
    t.equal((await admin.put(`/api/operator/users/${personId}/roles`, { roles: ['support'] })).statusCode, 200)
    t.equal((await auditEntries(stack, `user:${personId}`)).length, 2)
  })

  await t.test('an unknown role is a validation error naming roles; an unknown account a 404', async (t) => {
    const unknownRole = await admin.put(`/api/operator/users/${personId}/roles`, { roles: ['owner'] })
    t.equal(unknownRole.statusCode, 400)
    t.equal(unknownRole.json().code, 'API_VALIDATION_FAILED')
    t.match(unknownRole.json().message, /^roles/)
    const missing = await admin.put(`/api/operator/users/${personId}/roles`, {})
    t.equal(missing.statusCode, 400)
    t.match(missing.json().message, /roles/)
    const nobody = await admin.put('/api/operator/users/00000000-0000-4000-8000-000000000000/roles', { roles: ['editor'] })
    t.equal(nobody.statusCode, 404)
    t.equal(nobody.json().code, 'API_USER_NOT_FOUND')
  })

  await t.test('the last admin keeps admin: 409 API_LAST_ADMIN, nothing changed', async (t) => {
    const last = await admin.put(`/api/operator/users/${adminId}/roles`, { roles: ['editor'] })
    t.equal(last.statusCode, 409)
    t.equal(last.json().code, 'API_LAST_ADMIN')
    t.same((await cdi(stack, 'GET', `/recipe/user/roles?userId=${adminId}`)).json().roles, ['admin'])
    // With a second admin, the first may step down.
    t.equal((await admin.put(`/api/operator/users/${personId}/roles`, { roles: ['admin'] })).statusCode, 200)
    const stepDown = await admin.put(`/api/operator/users/${adminId}/roles`, { roles: [] })
    t.equal(stepDown.statusCode, 200, stepDown.body)
    t.same(stepDown.json(), { roles: [] })
  })

  await t.test('only roles:write may: an editor and support are refused by the BFF and by the API', async (t) => {
    for (const role of ['editor', 'support'] as const) {
      const tab = await operatorTab(stack, `${role}-2@example.com`, [role])
      const refused = await tab.put(`/api/operator/users/${personId}/roles`, { roles: [role] })
      t.equal(refused.statusCode, 403, role)
      t.equal(refused.json().code, 'BFF_PERMISSION_DENIED', role)
      const direct = await fetch(`${stack.apiUrl}/api/operator/users/${personId}/roles`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tab.jar.get('sAccessToken')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ roles: [role] }),
      })
      t.equal(direct.status, 403, role)
      t.equal(((await direct.json()) as { code: string }).code, 'API_PERMISSION_DENIED', role)
    }
  })
})

t.test('a forged token claiming every permission is refused by the BFF and the API', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = await signedInTab(stack, 'forger@example.com')
  const real = claimsOf(tab)
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const header = JSON.parse(Buffer.from((tab.jar.get('sAccessToken') ?? '').split('.')[0]!, 'base64url').toString('utf8')) as object
  const now = Date.now()
  const unsigned = `${part(header)}.${part({ ...real, 'st-role': { v: ['admin'], t: now }, 'st-perm': { v: [...ROLE_PERMISSIONS.admin], t: now } })}`
  const forged = `${unsigned}.${sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url')}`
  tab.jar.cookies.set('sAccessToken', { value: forged, path: '/' })
  const viaBff = await tab.put(`/api/operator/users/${idOf(tab)}/roles`, { roles: ['admin'] })
  t.equal(viaBff.statusCode, 401, 'the BFF: not a session')
  const direct = await fetch(`${stack.apiUrl}/api/operator/users/${idOf(tab)}/roles`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${forged}`, 'content-type': 'application/json' },
    body: JSON.stringify({ roles: ['admin'] }),
  })
  t.equal(direct.status, 401, 'the API: not a session')
  t.same((await cdi(stack, 'GET', `/recipe/user/roles?userId=${idOf(tab)}`)).json().roles, [], 'nothing granted')
})

t.test('a core not reachable at start does not stop the BFF: the roles are tried again, logged once', async (t) => {
  const log = new LogCapture()
  const stack = await buildStack(t, { bffLogStream: log, apiLogStream: new LogCapture(), env: { LOG_LEVEL: 'info' } })
  t.equal((await stack.bff.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
  let attempts = 0
  const sync = keepOperatorRolesInSync(stack.bff.log, { retryMs: 5, onAttempt: () => attempts++ })
  t.teardown(() => sync.stop())
  await waitUntil(() => attempts >= 4)
  sync.stop()
  // The start's own attempt and this one: one line each, not one per attempt.
  const lines = log.lines.filter((line) => line.includes('"event":"operator-roles-not-synced"'))
  t.equal(lines.length, 2, lines.join('\n'))
})
