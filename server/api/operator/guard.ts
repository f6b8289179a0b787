import type { FastifyRequest } from 'fastify'
import { operatorRoute, type OperatorPermission } from '../../../shared/operator.ts'
import type { AuditActor } from './audit-log.ts'
import { ApiPermissionDenied } from '../errors.ts'
import type { SessionGuard } from '../session-guard.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The operator calling an /api/operator route, after its permission was checked. */
    operator?: AuditActor
  }
}

/**
 * The permission check of every operator route (issue 28, decision 028): a fully signed-in,
 * active account whose verified access token carries the route's permission (`st-perm`).
 */
export function operatorAuthorizer(guard: SessionGuard) {
  const authenticate = guard.authenticate('complete')
  return async (request: FastifyRequest): Promise<void> => {
    const route = operatorRoute(request.method === 'HEAD' ? 'GET' : request.method, request.routeOptions.url ?? '')
    // The plugin refuses such a route at start (index.ts); this is the last line, not the rule.
    if (!route) throw new ApiPermissionDenied()
    await authenticate(request)
    if (!hasPermission(request, route.permission)) throw new ApiPermissionDenied()
    const user = await guard.activeUser(request)
    request.operator = { id: user.id, email: user.email }
  }
}

function hasPermission(request: FastifyRequest, permission: OperatorPermission): boolean {
  return request.viewer?.permissions.includes(permission) === true
}

/** The roles of the account a request is from, as its verified token carries them. */
export function operatorRoles(request: FastifyRequest): string[] {
  return request.viewer?.roles ?? []
}
