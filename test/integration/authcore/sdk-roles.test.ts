import t from 'tap'
import supertokens from 'supertokens-node'
import Session from 'supertokens-node/recipe/session'
import UserRoles from 'supertokens-node/recipe/userroles'
import { startCore } from './harness.ts'
import { resetSupertokensForTests } from '../../../server/bff/auth/supertokens.ts'

// The user-roles recipe through supertokens-node 24.0.3's own UserRoles functions
// against our core: what the SDK's userroles tests assert, and the claims a new session carries.

const { url } = await startCore(t)
const coreCalls: string[] = []
// Whoever set the SDK up before in this process (a BFF, another file: scripts/tap-group.mjs).
await resetSupertokensForTests()
supertokens.init({
  supertokens: {
    connectionURI: url,
    networkInterceptor: (request) => {
      coreCalls.push(`${request.method.toUpperCase()} ${new URL(request.url).pathname}`)
      return request
    },
  },
  appInfo: { appName: 'Softshelf', apiDomain: 'http://localhost:3000', websiteDomain: 'http://localhost:3000', apiBasePath: '/auth' },
  recipeList: [Session.init({ getTokenTransferMethod: () => 'header' }), UserRoles.init()],
})

t.test('a role is created with permissions, once; more permissions are added to it', async (t) => {
  t.same(await UserRoles.createNewRoleOrAddPermissions('editor', ['read', 'write']), { status: 'OK', createdNewRole: true })
  t.same(await UserRoles.createNewRoleOrAddPermissions('editor', []), { status: 'OK', createdNewRole: false }, 'the same role again')
  t.same(await UserRoles.getPermissionsForRole('editor'), { status: 'OK', permissions: ['read', 'write'] })
  t.same(await UserRoles.createNewRoleOrAddPermissions('editor', ['write', 'publish']), { status: 'OK', createdNewRole: false })
  t.same(await UserRoles.getPermissionsForRole('editor'), { status: 'OK', permissions: ['publish', 'read', 'write'] }, 'added, none twice')
  t.same(await UserRoles.createNewRoleOrAddPermissions('empty', []), { status: 'OK', createdNewRole: true })
  t.same(await UserRoles.getPermissionsForRole('empty'), { status: 'OK', permissions: [] })
  t.ok(coreCalls.includes('PUT /recipe/role') && coreCalls.includes('GET /recipe/role/permissions'), 'the app-level paths, without a tenant')
})

t.test('permissions are removed; an unknown role answers UNKNOWN_ROLE_ERROR', async (t) => {
  await UserRoles.createNewRoleOrAddPermissions('trimmed', ['a', 'b', 'c'])
  t.same(await UserRoles.removePermissionsFromRole('trimmed', ['a', 'c', 'never-had']), { status: 'OK' })
  t.same(await UserRoles.getPermissionsForRole('trimmed'), { status: 'OK', permissions: ['b'] })
  t.same(await UserRoles.removePermissionsFromRole('ghost', ['a']), { status: 'UNKNOWN_ROLE_ERROR' })
  t.same(await UserRoles.getPermissionsForRole('ghost'), { status: 'UNKNOWN_ROLE_ERROR' })
})

t.test('roles that have a permission', async (t) => {
  await UserRoles.createNewRoleOrAddPermissions('p-one', ['shared', 'only-one'])
  await UserRoles.createNewRoleOrAddPermissions('p-two', ['shared'])
  t.same(await UserRoles.getRolesThatHavePermission('shared'), { status: 'OK', roles: ['p-one', 'p-two'] })
  t.same(await UserRoles.getRolesThatHavePermission('only-one'), { status: 'OK', roles: ['p-one'] })
  t.same(await UserRoles.getRolesThatHavePermission('nobody-has-it'), { status: 'OK', roles: [] })
})

t.test('a role given to a user twice; taken away; users that have a role', async (t) => {
  await UserRoles.createNewRoleOrAddPermissions('support', ['users.read'])
  t.same(await UserRoles.addRoleToUser('public', 'user-a', 'support'), { status: 'OK', didUserAlreadyHaveRole: false })
  t.same(await UserRoles.addRoleToUser('public', 'user-a', 'support'), { status: 'OK', didUserAlreadyHaveRole: true })
  t.same(await UserRoles.addRoleToUser('public', 'user-b', 'support'), { status: 'OK', didUserAlreadyHaveRole: false })
  t.same(await UserRoles.addRoleToUser('public', 'user-a', 'editor'), { status: 'OK', didUserAlreadyHaveRole: false })
  t.same(await UserRoles.addRoleToUser('public', 'user-a', 'no-such-role'), { status: 'UNKNOWN_ROLE_ERROR' })
  t.same(await UserRoles.getRolesForUser('public', 'user-a'), { status: 'OK', roles: ['editor', 'support'] })
  t.same(await UserRoles.getUsersThatHaveRole('public', 'support'), { status: 'OK', users: ['user-a', 'user-b'] })
  t.same(await UserRoles.getUsersThatHaveRole('public', 'no-such-role'), { status: 'UNKNOWN_ROLE_ERROR' })
  t.ok(coreCalls.includes('PUT /public/recipe/user/role') && coreCalls.includes('GET /public/recipe/role/users'), 'the tenant-prefixed paths the SDK builds')

  t.same(await UserRoles.removeUserRole('public', 'user-a', 'support'), { status: 'OK', didUserHaveRole: true })
  t.same(await UserRoles.removeUserRole('public', 'user-a', 'support'), { status: 'OK', didUserHaveRole: false })
  t.same(await UserRoles.removeUserRole('public', 'user-a', 'no-such-role'), { status: 'UNKNOWN_ROLE_ERROR' })
  t.same(await UserRoles.getRolesForUser('public', 'user-a'), { status: 'OK', roles: ['editor'] })
  t.same(await UserRoles.getRolesForUser('public', 'nobody'), { status: 'OK', roles: [] })
  t.same(await UserRoles.getUsersThatHaveRole('public', 'support'), { status: 'OK', users: ['user-b'] })
})

t.test('deleting a role: didRoleExist, and its users lose it', async (t) => {
  await UserRoles.createNewRoleOrAddPermissions('doomed', ['x'])
  await UserRoles.addRoleToUser('public', 'user-c', 'doomed')
  await UserRoles.addRoleToUser('public', 'user-c', 'support')
  t.ok((await UserRoles.getAllRoles()).roles.includes('doomed'))
  t.same(await UserRoles.deleteRole('doomed'), { status: 'OK', didRoleExist: true })
  t.same(await UserRoles.deleteRole('doomed'), { status: 'OK', didRoleExist: false })
  t.same(await UserRoles.getRolesForUser('public', 'user-c'), { status: 'OK', roles: ['support'] })
  t.notOk((await UserRoles.getAllRoles()).roles.includes('doomed'))
  t.same(await UserRoles.getRolesThatHavePermission('x'), { status: 'OK', roles: [] })
  t.same(await UserRoles.getPermissionsForRole('doomed'), { status: 'UNKNOWN_ROLE_ERROR' })
  // Made again, it starts empty: nobody holds it, no permission is left over.
  t.same(await UserRoles.createNewRoleOrAddPermissions('doomed', []), { status: 'OK', createdNewRole: true })
  t.same(await UserRoles.getUsersThatHaveRole('public', 'doomed'), { status: 'OK', users: [] })
  t.same(await UserRoles.getPermissionsForRole('doomed'), { status: 'OK', permissions: [] })
})

t.test('every role of the app', async (t) => {
  const all = await UserRoles.getAllRoles()
  t.equal(all.status, 'OK')
  t.same(all.roles, ['doomed', 'editor', 'empty', 'p-one', 'p-two', 'support', 'trimmed'])
})

t.test('a new session carries the roles and their permissions as the SDK claims them', async (t) => {
  await UserRoles.createNewRoleOrAddPermissions('claims-a', ['catalogue.write', 'audit.read'])
  await UserRoles.createNewRoleOrAddPermissions('claims-b', ['audit.read', 'users.read'])
  await UserRoles.addRoleToUser('public', 'claims-user', 'claims-a')
  await UserRoles.addRoleToUser('public', 'claims-user', 'claims-b')
  const session = await Session.createNewSessionWithoutRequestResponse('public', supertokens.convertToRecipeUserId('claims-user'))
  const payload = session.getAccessTokenPayload()
  t.same(payload['st-role'].v, ['claims-a', 'claims-b'])
  t.same([...payload['st-perm'].v].sort(), ['audit.read', 'catalogue.write', 'users.read'])

  // Taken away, the claim reads it again when asked to.
  await UserRoles.removeUserRole('public', 'claims-user', 'claims-b')
  await session.fetchAndSetClaim(UserRoles.UserRoleClaim)
  await session.fetchAndSetClaim(UserRoles.PermissionClaim)
  t.same(session.getAccessTokenPayload()['st-role'].v, ['claims-a'])
  t.same([...session.getAccessTokenPayload()['st-perm'].v].sort(), ['audit.read', 'catalogue.write'])
})
