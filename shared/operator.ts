// The operator console's roles and permissions (decision 028). Roles live in the auth
// core (SuperTokens' user-roles recipe); the access token carries them and their permissions as
// the SDK's `st-role` and `st-perm` claims. Every operator route is a row of OPERATOR_ROUTES with
// the one permission it needs: the API refuses to start with an operator route missing here, and
// the BFF checks the same row before it proxies.

export const OPERATOR_ROLES = ['admin', 'editor', 'support'] as const
export type OperatorRole = (typeof OPERATOR_ROLES)[number]

export const OPERATOR_PERMISSIONS = [
  /** Read the catalogue as editors see it: retired programs, revisions. */
  'catalogue:read',
  /** Add, change, revert and retire programs, their logos and screenshots. */
  'catalogue:write',
  /** Find accounts and look at one. */
  'accounts:read',
  /** Disable and enable accounts, end their sessions, resend the verification mail. */
  'accounts:write',
  /** Grant and take away roles. */
  'roles:write',
  /** Announce or clear maintenance. */
  'maintenance:write',
  /** Read the audit log. */
  'audit:read',
] as const
export type OperatorPermission = (typeof OPERATOR_PERMISSIONS)[number]

/** What each role may do; created in the auth core at start when missing, and brought to this. */
export const ROLE_PERMISSIONS: Record<OperatorRole, readonly OperatorPermission[]> = {
  admin: OPERATOR_PERMISSIONS,
  editor: ['catalogue:read', 'catalogue:write'],
  support: ['accounts:read', 'accounts:write', 'audit:read'],
}

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && (OPERATOR_ROLES as readonly string[]).includes(value)
}

export interface OperatorRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The path as Fastify writes it (`:id` a parameter), under /api/operator. */
  url: string
  permission: OperatorPermission
}

/** Every operator route, sorted by path then method. */
export const OPERATOR_ROUTES: readonly OperatorRoute[] = [
  { method: 'GET', url: '/api/operator/audit', permission: 'audit:read' },
  { method: 'GET', url: '/api/operator/audit.csv', permission: 'audit:read' },
  { method: 'GET', url: '/api/operator/feeds', permission: 'catalogue:read' },
  { method: 'POST', url: '/api/operator/feeds/sync', permission: 'catalogue:write' },
  { method: 'PUT', url: '/api/operator/maintenance', permission: 'maintenance:write' },
  { method: 'GET', url: '/api/operator/programs', permission: 'catalogue:read' },
  { method: 'POST', url: '/api/operator/programs', permission: 'catalogue:write' },
  { method: 'DELETE', url: '/api/operator/programs/:id', permission: 'catalogue:write' },
  { method: 'GET', url: '/api/operator/programs/:id', permission: 'catalogue:read' },
  { method: 'PATCH', url: '/api/operator/programs/:id', permission: 'catalogue:write' },
  { method: 'DELETE', url: '/api/operator/programs/:id/logo', permission: 'catalogue:write' },
  { method: 'PUT', url: '/api/operator/programs/:id/logo', permission: 'catalogue:write' },
  { method: 'GET', url: '/api/operator/programs/:id/media', permission: 'catalogue:read' },
  { method: 'GET', url: '/api/operator/programs/:id/releases', permission: 'catalogue:read' },
  { method: 'POST', url: '/api/operator/programs/:id/releases', permission: 'catalogue:write' },
  { method: 'POST', url: '/api/operator/programs/:id/revert', permission: 'catalogue:write' },
  { method: 'GET', url: '/api/operator/programs/:id/revisions', permission: 'catalogue:read' },
  { method: 'POST', url: '/api/operator/programs/:id/screenshots', permission: 'catalogue:write' },
  { method: 'DELETE', url: '/api/operator/programs/:id/screenshots/:sid', permission: 'catalogue:write' },
  { method: 'PATCH', url: '/api/operator/programs/:id/screenshots/:sid', permission: 'catalogue:write' },
  { method: 'GET', url: '/api/operator/proposed-changes', permission: 'catalogue:read' },
  { method: 'POST', url: '/api/operator/proposed-changes/:id/accept', permission: 'catalogue:write' },
  { method: 'POST', url: '/api/operator/proposed-changes/:id/reject', permission: 'catalogue:write' },
  { method: 'GET', url: '/api/operator/users', permission: 'accounts:read' },
  { method: 'GET', url: '/api/operator/users/:id', permission: 'accounts:read' },
  { method: 'POST', url: '/api/operator/users/:id/disable', permission: 'accounts:write' },
  { method: 'POST', url: '/api/operator/users/:id/enable', permission: 'accounts:write' },
  { method: 'PUT', url: '/api/operator/users/:id/roles', permission: 'roles:write' },
  { method: 'POST', url: '/api/operator/users/:id/sessions/end', permission: 'accounts:write' },
  { method: 'POST', url: '/api/operator/users/:id/verification/resend', permission: 'accounts:write' },
]

/** The row of an operator route, by method and Fastify path; undefined for any other. */
export function operatorRoute(method: string, url: string): OperatorRoute | undefined {
  return OPERATOR_ROUTES.find((route) => route.method === method && route.url === url)
}

/**
 * The row a request's path falls under (a concrete path: `/api/operator/programs/abc`), for the
 * BFF, which has no route of its own to ask. The path is the one the API's router will see: no
 * query, and `HEAD` answered like `GET`. A path under /api/operator that no row matches is
 * refused by the BFF before it is proxied.
 */
export function matchOperatorRoute(method: string, path: string): OperatorRoute | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method
  const segments = path.split('/')
  return OPERATOR_ROUTES.find((route) => {
    if (route.method !== wanted) return false
    const pattern = route.url.split('/')
    return pattern.length === segments.length && pattern.every((part, i) => (part.startsWith(':') ? segments[i] !== '' : part === segments[i]))
  })
}

/** The permissions a set of roles gives. */
export function permissionsOf(roles: readonly string[]): OperatorPermission[] {
  const granted = new Set<OperatorPermission>()
  for (const role of roles) if (isOperatorRole(role)) for (const permission of ROLE_PERMISSIONS[role]) granted.add(permission)
  return OPERATOR_PERMISSIONS.filter((permission) => granted.has(permission))
}
