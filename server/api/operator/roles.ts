import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { OPERATOR_ROLES, type OperatorRole } from '../../../shared/operator.ts'
import type { Database } from '../../db/database.ts'
import type { coreAccounts } from '../users/core-accounts.ts'
import { ApiUserNotFound, ApiAuthUnavailable, ApiLastAdmin, USER_NOT_FOUND } from '../errors.ts'
import { StringEnum } from '../../../shared/web/string-enum.ts'
import { recordAudit, type AuditActor } from './audit-log.ts'
import type { CurrentRoles } from './guard.ts'
import type { OperatorRoutesOptions } from './options.ts'

// Roles (decision 028): PUT /api/operator/users/{id}/roles (admin only, `roles:write`),
// and the same change for the operator command (`npm run accounts -- role add|remove|list`,
// through /internal, app.ts). The roles live in the auth core: the change is made there through
// its CDI, and audited once the core has confirmed it (the core is not in our transaction). Every
// instance applies it within a second through the role-change feed (server/http/role-changes.ts).

/** Who the operator command acts as in the audit log. */
export const OPERATOR_COMMAND_ACTOR: AuditActor = { id: 'operator-command', email: 'npm run accounts' }

export interface RoleChangeDeps {
  db: Database
  core: ReturnType<typeof coreAccounts>
  roles: CurrentRoles
  log: FastifyBaseLogger
}

/** Role changes are made one at a time in an instance: the last-admin rule reads, then writes. */
let queue: Promise<unknown> = Promise.resolve()
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work)
  queue = run.catch(() => {})
  return run
}

/**
 * Gives the account exactly `wanted` of the operator roles (other roles it may hold in the core
 * are left alone), refusing to take `admin` from the last admin; audited as `user.roles` when
 * anything changed. Answers the account's operator roles after the change.
 */
export function setOperatorRoles(deps: RoleChangeDeps, userId: string, wanted: readonly OperatorRole[], actor: AuditActor, requestId: string): Promise<OperatorRole[]> {
  return oneAtATime(async () => {
    const { core } = deps
    if (!(await core.userExists(userId, requestId))) throw new ApiUserNotFound(USER_NOT_FOUND.named)
    const held = await core.userRoles(userId, requestId)
    const before = OPERATOR_ROLES.filter((role) => held.includes(role))
    const after = OPERATOR_ROLES.filter((role) => wanted.includes(role))
    const adding = after.filter((role) => !before.includes(role))
    const removing = before.filter((role) => !after.includes(role))
    if (adding.length === 0 && removing.length === 0) return after
    if (removing.includes('admin') && !(await core.usersWithRole('admin', requestId)).some((id) => id !== userId)) throw new ApiLastAdmin()
    for (const role of adding) {
      // The BFF creates the roles at its start; not there yet, nothing can be granted.
      if (!(await core.addUserRole(userId, role, requestId))) throw new ApiAuthUnavailable()
    }
    for (const role of removing) await core.removeUserRole(userId, role, requestId)
    // Another instance may have taken `admin` from the other last admin at the same moment: the
    // app is never left without one — this change gives it back and is refused.
    if (removing.includes('admin') && (await core.usersWithRole('admin', requestId)).length === 0) {
      await core.addUserRole(userId, 'admin', requestId)
      deps.roles.changed(userId)
      throw new ApiLastAdmin()
    }
    deps.roles.changed(userId)
    // Said before the entry is written: if that fails, the change (made in the core) is still on record.
    deps.log.info({ event: 'user-roles', userId, before, after, actor: actor.id }, 'an account\'s roles changed')
    await recordAudit(deps.db, { actor, action: 'user.roles', target: `user:${userId}`, before: { roles: before }, after: { roles: after }, requestId })
    return after
  })
}

const RolesBody = Type.Object(
  {
    roles: Type.Array(StringEnum(OPERATOR_ROLES), { maxItems: OPERATOR_ROLES.length * 2, description: 'Exactly the roles the account is to have; [] takes them all away.' }),
  },
  { additionalProperties: false },
)
const RolesAnswer = Type.Object({ roles: Type.Array(StringEnum(OPERATOR_ROLES), { description: 'The account\'s operator roles now.' }) })

async function rolesRoutes(app: FastifyInstance, opts: OperatorRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.put(
    '/api/operator/users/:id/roles',
    {
      schema: {
        summary: 'Set an account\'s roles',
        description: 'Admin only (`roles:write`). Sets exactly these roles in the auth core; every instance applies them within a second. 409 `API_LAST_ADMIN` when this would take `admin` from the last admin.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
        body: RolesBody,
        response: { 200: RolesAnswer },
      },
    },
    async (request) => {
      const roles = await setOperatorRoles({ db: app.db, core: opts.core, roles: opts.roles, log: request.log }, request.params.id, request.body.roles, request.operator!, request.id)
      return { roles }
    },
  )
}

/**
 * The operator command's role endpoints (scripts/accounts.ts), inside app.ts's /internal scope
 * (the operator token): `PUT /internal/users/roles { email, role, granted }` gives or takes one
 * role, under the same rules and audit as the console; `GET /internal/roles?role=` lists who has
 * each role (or one).
 */
export function internalRoleRoutes(internal: FastifyInstance, deps: Omit<RoleChangeDeps, 'log'>): void {
  const api = internal.withTypeProvider<TypeBoxTypeProvider>()
  const accountOf = async (email: string) => {
    const { rows } = await deps.db.query<{ id: string; email: string }>('SELECT id, email FROM api.users WHERE email = $1', [email.trim().toLowerCase()])
    return rows[0]
  }
  api.put(
    '/internal/users/roles',
    { schema: { body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }), role: StringEnum(OPERATOR_ROLES), granted: Type.Boolean() }, { additionalProperties: false }) } },
    async (request) => {
      const account = await accountOf(request.body.email)
      if (!account) throw new ApiUserNotFound(USER_NOT_FOUND.named)
      const held = await deps.core.userRoles(account.id, request.id)
      const current = OPERATOR_ROLES.filter((role) => held.includes(role))
      const wanted = request.body.granted ? [...current, request.body.role] : current.filter((role) => role !== request.body.role)
      const roles = await setOperatorRoles({ ...deps, log: request.log }, account.id, wanted, OPERATOR_COMMAND_ACTOR, request.id)
      return { email: account.email, roles }
    },
  )
  api.get(
    '/internal/roles',
    { schema: { querystring: Type.Object({ role: Type.Optional(StringEnum(OPERATOR_ROLES)) }, { additionalProperties: false }) } },
    async (request) => {
      const listed = request.query.role ? [request.query.role] : OPERATOR_ROLES
      const roles = []
      for (const role of listed) {
        const ids = await deps.core.usersWithRole(role, request.id)
        const { rows } = ids.length === 0 ? { rows: [] } : await deps.db.query<{ id: string; email: string }>('SELECT id, email FROM api.users WHERE id = ANY($1::text[])', [ids])
        const emails = new Map(rows.map((row) => [row.id, row.email]))
        const users = ids.map((id) => ({ id, email: emails.get(id) ?? null })).sort((a, b) => (a.email ?? a.id).localeCompare(b.email ?? b.id))
        roles.push({ role, users })
      }
      return { roles }
    },
  )
}

export default fp(rolesRoutes, { name: 'operator-roles-routes', encapsulate: true, decorators: { fastify: ['db'] } })
