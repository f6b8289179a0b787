import type { FastifyRequest } from 'fastify'
import { operatorRoute, permissionsOf } from '../../../shared/operator.ts'
import type { RoleChanges } from '../../http/role-changes.ts'
import type { AuditActor } from './audit-log.ts'
import { ApiAuthUnavailable, ApiPermissionDenied } from '../errors.ts'
import type { SessionGuard } from '../session-guard.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The operator calling an /api/operator route, after its permission was checked. */
    operator?: AuditActor
  }
}

/**
 * The account's roles as they are now (decision 028). The token's `st-role` claim is
 * used while it is current: no change of the user's roles came after the BFF read it (the
 * role-change feed, server/http/role-changes.ts) and it is not older than an hour. Otherwise the
 * auth core is asked, and its answer kept for the user until the feed shows the next change.
 * The feed not read lately: 503, never a role that may have been taken away.
 */
export class CurrentRoles {
  private readonly cache = new Map<string, { roles: string[]; readAt: number }>()

  constructor(
    private readonly changes: RoleChanges,
    private readonly rolesInCore: (userId: string, requestId?: string) => Promise<string[]>,
    private readonly now: () => number = Date.now,
  ) {
    changes.on('change', (userId: string) => this.cache.delete(userId))
  }

  /**
   * The roles of the viewer of an authenticated request, and their permissions: the token's own
   * `st-perm` while its roles are current, else those ROLE_PERMISSIONS gives the roles now.
   */
  async of(request: FastifyRequest): Promise<{ roles: string[]; permissions: readonly string[] }> {
    const viewer = request.viewer!
    if (!this.changes.fresh) throw new ApiAuthUnavailable()
    if (this.changes.isCurrent(viewer.userId, viewer.rolesReadAt)) return { roles: viewer.roles, permissions: viewer.permissions }
    const kept = this.cache.get(viewer.userId)
    if (kept && this.changes.isCurrent(viewer.userId, kept.readAt)) return { roles: kept.roles, permissions: permissionsOf(kept.roles) }
    const readAt = this.now()
    const roles = await this.rolesInCore(viewer.userId, request.id)
    this.cache.set(viewer.userId, { roles, readAt })
    return { roles, permissions: permissionsOf(roles) }
  }

  /** This instance changed the user's roles: the next check asks the core. */
  changed(userId: string): void {
    this.changes.add(userId)
    this.cache.delete(userId)
  }
}

/**
 * The permission check of every operator route (decision 028): a fully signed-in,
 * active account that has the route's permission — the verified access token's `st-perm` while
 * its roles are current, else the permissions of the roles the auth core holds now.
 */
export function operatorAuthorizer(guard: SessionGuard, roles: CurrentRoles) {
  const authenticate = guard.authenticate('complete')
  return async (request: FastifyRequest): Promise<void> => {
    const route = operatorRoute(request.method === 'HEAD' ? 'GET' : request.method, request.routeOptions.url ?? '')
    // The plugin refuses such a route at start (index.ts); this is the last line, not the rule.
    if (!route) throw new ApiPermissionDenied()
    await authenticate(request)
    if (!(await roles.of(request)).permissions.includes(route.permission)) throw new ApiPermissionDenied()
    const user = await guard.activeUser(request)
    request.operator = { id: user.id, email: user.email }
  }
}
