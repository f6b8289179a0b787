import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { CoreServices } from '../services.ts'
import { query, trimmedName } from '../input.ts'

// The user-roles recipe, CDI 5.4 as the real core answers it; the semantics live in
// roles.ts. Roles and permissions are the app's (app-level endpoints: the public tenant only);
// the user's roles are the tenant's, named by the path's tenant segment.

/** The role-change feed's page size, as the revocation list's. */
const ROLE_CHANGES_PAGE = 10_000

const RoleAndPermissions = Type.Object({ role: Type.String(), permissions: Type.Optional(Type.Array(Type.String())) })
const Role = Type.Object({ role: Type.String() })
const UserAndRole = Type.Object({ userId: Type.String(), role: Type.String() })

export default async function roleRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { roles } = services
  const appLevel = { appLevel: true }

  app.put('/recipe/role', { config: appLevel, schema: { body: RoleAndPermissions } }, async (request) => {
    const role = trimmedName(request.body.role, 'role')
    const permissions = (request.body.permissions ?? []).map((p) => trimmedName(p, 'permissions'))
    return roles.createOrAddPermissions(request.core.appId, role, permissions)
  })

  app.post('/recipe/role/permissions/remove', { config: appLevel, schema: { body: RoleAndPermissions } }, async (request) => {
    const role = trimmedName(request.body.role, 'role')
    const permissions = request.body.permissions?.map((p) => trimmedName(p, 'permissions'))
    return roles.removePermissions(request.core.appId, role, permissions)
  })

  app.get('/recipe/role/permissions', { config: appLevel }, async (request) => roles.permissionsOf(request.core.appId, trimmedName(query.string(request.query, 'role'), 'role')))

  app.get('/recipe/permission/roles', { config: appLevel }, async (request) => ({
    status: 'OK',
    roles: await roles.rolesWithPermission(request.core.appId, trimmedName(query.string(request.query, 'permission'), 'permission')),
  }))

  app.post('/recipe/role/remove', { config: appLevel, schema: { body: Role } }, async (request) => ({
    status: 'OK',
    didRoleExist: await roles.deleteRole(request.core.appId, trimmedName(request.body.role, 'role')),
  }))

  app.get('/recipe/roles', { config: appLevel }, async (request) => ({ status: 'OK', roles: await roles.allRoles(request.core.appId) }))

  const userAndRole = (input: { userId: string; role: string }) => ({ userId: trimmedName(input.userId, 'userId'), role: trimmedName(input.role, 'role') })

  app.put('/recipe/user/role', { schema: { body: UserAndRole } }, async (request) => {
    const { userId, role } = userAndRole(request.body)
    return roles.addToUser(request.core.appId, request.core.tenantId, userId, role)
  })

  app.post('/recipe/user/role/remove', { schema: { body: UserAndRole } }, async (request) => {
    const { userId, role } = userAndRole(request.body)
    return roles.removeFromUser(request.core.appId, request.core.tenantId, userId, role)
  })

  app.get('/recipe/user/roles', async (request) => ({
    status: 'OK',
    roles: await roles.rolesOfUser(request.core.appId, request.core.tenantId, trimmedName(query.string(request.query, 'userId'), 'userId')),
  }))

  app.get('/recipe/role/users', async (request) =>
    roles.usersWithRole(request.core.appId, request.core.tenantId, trimmedName(query.string(request.query, 'role'), 'role')),
  )

  // Not CDI: the role-change feed the API and the BFF poll, like the revocation list (decision 009).
  app.get('/recipe/user/roles/changed', { config: appLevel }, async (request) => {
    const since = query.optInteger(request.query, 'since') ?? 0
    return { status: 'OK', ...(await roles.changedSince(request.core.appId, since, ROLE_CHANGES_PAGE)) }
  })
}
