import type { FastifyInstance } from 'fastify'
import type { CoreServices } from '../services.ts'
import { asObject, body, query, trimmedName } from '../input.ts'

// The user-roles recipe (issue 28), CDI 5.4 as the real core answers it; the semantics live in
// roles.ts. Roles and permissions are the app's (app-level endpoints: the public tenant only);
// the user's roles are the tenant's, named by the path's tenant segment.

/** The role-change feed's page size, as the revocation list's. */
const ROLE_CHANGES_PAGE = 10_000

export default async function roleRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { roles } = services
  const appLevel = { config: { appLevel: true } }

  app.put('/recipe/role', appLevel, async (request) => {
    const input = asObject(request.body)
    const role = trimmedName(body.string(input, 'role'), 'role')
    const permissions = (body.optStringArray(input, 'permissions') ?? []).map((p) => trimmedName(p, 'permissions'))
    return roles.createOrAddPermissions(request.core.appId, role, permissions)
  })

  app.post('/recipe/role/permissions/remove', appLevel, async (request) => {
    const input = asObject(request.body)
    const role = trimmedName(body.string(input, 'role'), 'role')
    const permissions = body.optStringArray(input, 'permissions')?.map((p) => trimmedName(p, 'permissions'))
    return roles.removePermissions(request.core.appId, role, permissions)
  })

  app.get('/recipe/role/permissions', appLevel, async (request) => roles.permissionsOf(request.core.appId, trimmedName(query.string(request.query, 'role'), 'role')))

  app.get('/recipe/permission/roles', appLevel, async (request) => ({
    status: 'OK',
    roles: await roles.rolesWithPermission(request.core.appId, trimmedName(query.string(request.query, 'permission'), 'permission')),
  }))

  app.post('/recipe/role/remove', appLevel, async (request) => ({
    status: 'OK',
    didRoleExist: await roles.deleteRole(request.core.appId, trimmedName(body.string(asObject(request.body), 'role'), 'role')),
  }))

  app.get('/recipe/roles', appLevel, async (request) => ({ status: 'OK', roles: await roles.allRoles(request.core.appId) }))

  const userAndRole = (input: Record<string, unknown>) => ({
    userId: trimmedName(body.string(input, 'userId'), 'userId'),
    role: trimmedName(body.string(input, 'role'), 'role'),
  })

  app.put('/recipe/user/role', async (request) => {
    const { userId, role } = userAndRole(asObject(request.body))
    return roles.addToUser(request.core.appId, request.core.tenantId, userId, role)
  })

  app.post('/recipe/user/role/remove', async (request) => {
    const { userId, role } = userAndRole(asObject(request.body))
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
  app.get('/recipe/user/roles/changed', appLevel, async (request) => {
    const since = query.optInteger(request.query, 'since') ?? 0
    return { status: 'OK', ...(await roles.changedSince(request.core.appId, since, ROLE_CHANGES_PAGE)) }
  })
}
