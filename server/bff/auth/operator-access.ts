import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import Session from 'supertokens-node/recipe/session'
import UserRoles from 'supertokens-node/recipe/userroles'
import { matchOperatorRoute, OPERATOR_ROLES, ROLE_PERMISSIONS } from '../../../shared/operator.ts'
import type { RoleChanges } from '../../http/role-changes.ts'
import { BffAuthCoreUnavailable, BffNotFound, BffPermissionDenied } from '../errors.ts'

// The BFF's side of the operator console's permissions (decision 028): the roles
// exist in the auth core with exactly the permissions of shared/operator.ts, and no request
// under /api/operator is proxied before the session's permission for its route is checked here
// (the API checks it again).

/** How often, and how many times, the roles are tried again when the core could not be reached at start. */
const ROLE_SYNC_RETRY_MS = 5_000
const ROLE_SYNC_ATTEMPTS = 120

/** Makes the core's roles match ROLE_PERMISSIONS: created when missing, permissions added and removed. */
export async function syncOperatorRoles(): Promise<void> {
  for (const role of OPERATOR_ROLES) {
    const wanted = ROLE_PERMISSIONS[role]
    await UserRoles.createNewRoleOrAddPermissions(role, [...wanted])
    const held = await UserRoles.getPermissionsForRole(role)
    const extra = held.status === 'OK' ? held.permissions.filter((permission) => !(wanted as readonly string[]).includes(permission)) : []
    if (extra.length > 0) await UserRoles.removePermissionsFromRole(role, extra)
  }
}

/**
 * The roles brought in line at start. A core that cannot be reached does not stop the BFF: the
 * sync is tried again every few seconds (for ten minutes), with one line when it fails and one
 * when it works. Resolves after the first attempt, or after `boundMs`.
 */
export function keepOperatorRolesInSync(
  log: FastifyBaseLogger,
  options: { boundMs?: number; retryMs?: number; onAttempt?: (synced: boolean) => void } = {},
): { firstAttempt: Promise<void>; stop(): void } {
  const { boundMs = 2_000, retryMs = ROLE_SYNC_RETRY_MS } = options
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  let failed = false
  let attempts = 0
  let settle: () => void = () => {}
  const settled = new Promise<void>((resolve) => (settle = resolve))
  const attempt = async (): Promise<void> => {
    attempts++
    try {
      await syncOperatorRoles()
      if (failed) log.info({ event: 'operator-roles-synced' }, 'the operator roles are in place in the auth core')
      settle()
      options.onAttempt?.(true)
      return
    } catch (err) {
      if (!failed) log.warn({ err, event: 'operator-roles-not-synced' }, `the operator roles could not be put in place in the auth core; trying again every ${retryMs / 1000} s`)
      failed = true
    }
    settle()
    options.onAttempt?.(false)
    if (stopped) return
    if (attempts >= ROLE_SYNC_ATTEMPTS) {
      log.error({ event: 'operator-roles-not-synced' }, 'the operator roles could not be put in place in the auth core: restart the BFF once the core is reachable')
      return
    }
    timer = setTimeout(() => void attempt(), retryMs)
    timer.unref()
  }
  void attempt()
  return {
    firstAttempt: Promise.race([settled, new Promise<void>((resolve) => setTimeout(resolve, boundMs).unref())]),
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}

/**
 * Whether a path, as the API's router would read it, falls under /api/operator: decoded, any
 * case, repeated slashes as one. Broader than the API's router on purpose — whatever might reach
 * an operator route is checked (or refused) here.
 */
export function isOperatorPath(rawUrl: string): boolean {
  const path = pathOf(rawUrl)
  if (!path.includes('%')) return OPERATOR_AREA.test(path)
  let decoded = path
  try {
    decoded = decodeURIComponent(path)
  } catch {
    // Kept as it is: the proxy refuses a path it cannot decode (safeApiPath).
  }
  return OPERATOR_AREA.test(decoded) || OPERATOR_AREA.test(path)
}

const OPERATOR_AREA = /^\/+api\/+operator(?:[/?#;]|$)/i

function pathOf(rawUrl: string): string {
  const end = rawUrl.search(/[?#]/)
  return end === -1 ? rawUrl : rawUrl.slice(0, end)
}

/** The route row a request's path (the API router's reading: percent-decoded segments) names exactly. */
function routeOf(method: string, rawUrl: string) {
  let path: string
  try {
    path = pathOf(rawUrl)
      .split('/')
      .map((segment) => decodeURIComponent(segment))
      .join('/')
  } catch {
    return undefined
  }
  return matchOperatorRoute(method, path)
}

interface PermissionClaimValue {
  v?: unknown
  t?: unknown
}

/**
 * The check before an /api/operator request is proxied: a session (the SDK's getSession, its
 * 401 and claim errors as on any SDK route), roles read again from the core when the role-change
 * feed says they changed since the token's claims were (the browser gets the new token), and the
 * permission of the route's row. Answers the access token to send to the API (the new one).
 */
export async function checkOperatorAccess(request: FastifyRequest, reply: FastifyReply, roleChanges: RoleChanges): Promise<string> {
  const rawUrl = request.raw.url ?? ''
  const route = routeOf(request.method, rawUrl)
  if (!route) throw new BffNotFound(request.method, pathOf(rawUrl))
  const session = await Session.getSession(request, reply)
  if (!roleChanges.fresh) throw new BffAuthCoreUnavailable()
  const readAt = (session.getAccessTokenPayload()['st-perm'] as PermissionClaimValue | undefined)?.t
  if (!roleChanges.isCurrent(session.getUserId(), typeof readAt === 'number' ? readAt : undefined)) {
    await session.fetchAndSetClaim(UserRoles.UserRoleClaim)
    await session.fetchAndSetClaim(UserRoles.PermissionClaim)
  }
  const permissions = (session.getAccessTokenPayload()['st-perm'] as PermissionClaimValue | undefined)?.v
  if (!Array.isArray(permissions) || !permissions.includes(route.permission)) throw new BffPermissionDenied()
  return session.getAccessToken()
}
