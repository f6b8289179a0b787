import type { Database, Queryable } from '../db/database.ts'

// SuperTokens' user-roles recipe as the real core answers it: roles and their
// permissions are the app's, a user holds roles per tenant, and a role or a user need not exist
// elsewhere (any user id may hold a role). Every change to what a user holds — a role granted or
// taken away, a role removed, a role's permissions changed — is noted in the role-change feed in
// the same transaction, for each user it touches, so the BFF and the API read that user's roles
// again within their polling interval.

/** How long a noted change is kept: far longer than any reader lags. */
export const ROLE_CHANGE_RETENTION_MS = 24 * 60 * 60 * 1000

export type UnknownRole = { status: 'UNKNOWN_ROLE_ERROR' }
const UNKNOWN_ROLE: UnknownRole = { status: 'UNKNOWN_ROLE_ERROR' }

/** Notes a change for every user the SELECT (of `user_id`s, $1 being the app) names. */
async function noteChanges(tx: Queryable, appId: string, usersSql: string, params: unknown[]): Promise<void> {
  await tx.query(
    `INSERT INTO authcore.role_changes (app_id, user_id) SELECT DISTINCT $1::text, changed.user_id FROM (${usersSql}) changed
     ON CONFLICT (app_id, user_id) DO UPDATE SET changed_at = EXCLUDED.changed_at`,
    [appId, ...params],
  )
}

/** Deleting users (POST /user/remove): their roles go, and the change is noted. */
export async function removeRolesOfUsers(tx: Queryable, appId: string, userIds: string[]): Promise<void> {
  await noteChanges(tx, appId, 'SELECT user_id FROM authcore.user_roles WHERE app_id = $1 AND user_id = ANY($2::text[])', [userIds])
  await tx.query('DELETE FROM authcore.user_roles WHERE app_id = $1 AND user_id = ANY($2::text[])', [appId, userIds])
}

export class RoleService {
  private lastSweep = 0

  constructor(
    private readonly db: Database,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /**
   * Locks the role for the transaction; false when there is none. A grant holds it shared; a
   * change of its permissions or its removal holds it alone, so the users it notes include every
   * grant committed before it, and a grant made after reads the new permissions.
   */
  private async holdRole(tx: Queryable, appId: string, role: string, mode: 'KEY SHARE' | 'UPDATE'): Promise<boolean> {
    const { rowCount } = await tx.query(`SELECT 1 FROM authcore.roles WHERE app_id = $1 AND role = $2 FOR ${mode}`, [appId, role])
    return rowCount > 0
  }

  /** PUT /recipe/role: creates the role, or adds the permissions it lacks. */
  async createOrAddPermissions(appId: string, role: string, permissions: string[]): Promise<{ status: 'OK'; createdNewRole: boolean }> {
    return this.db.transaction(async (tx) => {
      const insert = async () => (await tx.query('INSERT INTO authcore.roles (app_id, role) VALUES ($1, $2) ON CONFLICT DO NOTHING', [appId, role])).rowCount > 0
      let created = await insert()
      // It was there: hold it. Removed meanwhile (the lock waited for that): create it after all.
      if (!created && !(await this.holdRole(tx, appId, role, 'UPDATE'))) created = await insert()
      const added = await tx.query(
        `INSERT INTO authcore.role_permissions (app_id, role, permission) SELECT $1, $2, p FROM unnest($3::text[]) AS p ON CONFLICT DO NOTHING`,
        [appId, role, [...new Set(permissions)]],
      )
      if (added.rowCount > 0) await noteChanges(tx, appId, 'SELECT user_id FROM authcore.user_roles WHERE app_id = $1 AND role = $2', [role])
      return { status: 'OK' as const, createdNewRole: created }
    })
  }

  /** POST /recipe/role/permissions/remove: the permissions named, or all of them when none are. */
  async removePermissions(appId: string, role: string, permissions: string[] | undefined): Promise<{ status: 'OK' } | UnknownRole> {
    return this.db.transaction(async (tx) => {
      if (!(await this.holdRole(tx, appId, role, 'UPDATE'))) return UNKNOWN_ROLE
      const removed =
        permissions === undefined
          ? await tx.query('DELETE FROM authcore.role_permissions WHERE app_id = $1 AND role = $2', [appId, role])
          : await tx.query('DELETE FROM authcore.role_permissions WHERE app_id = $1 AND role = $2 AND permission = ANY($3::text[])', [appId, role, permissions])
      if (removed.rowCount > 0) await noteChanges(tx, appId, 'SELECT user_id FROM authcore.user_roles WHERE app_id = $1 AND role = $2', [role])
      return { status: 'OK' as const }
    })
  }

  async permissionsOf(appId: string, role: string): Promise<{ status: 'OK'; permissions: string[] } | UnknownRole> {
    const { rows } = await this.db.query<{ permission: string | null }>(
      `SELECT p.permission FROM authcore.roles r LEFT JOIN authcore.role_permissions p ON p.app_id = r.app_id AND p.role = r.role
        WHERE r.app_id = $1 AND r.role = $2 ORDER BY p.permission COLLATE "C"`,
      [appId, role],
    )
    if (rows.length === 0) return UNKNOWN_ROLE
    return { status: 'OK', permissions: rows.flatMap((r) => (r.permission === null ? [] : [r.permission])) }
  }

  async rolesWithPermission(appId: string, permission: string): Promise<string[]> {
    const { rows } = await this.db.query<{ role: string }>('SELECT role FROM authcore.role_permissions WHERE app_id = $1 AND permission = $2 ORDER BY role COLLATE "C"', [
      appId,
      permission,
    ])
    return rows.map((r) => r.role)
  }

  /** POST /recipe/role/remove: the role, its permissions, and every user's holding of it. */
  async deleteRole(appId: string, role: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await this.holdRole(tx, appId, role, 'UPDATE'))) return false
      await noteChanges(tx, appId, 'SELECT user_id FROM authcore.user_roles WHERE app_id = $1 AND role = $2', [role])
      const { rowCount } = await tx.query('DELETE FROM authcore.roles WHERE app_id = $1 AND role = $2', [appId, role])
      return rowCount > 0
    })
  }

  async allRoles(appId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ role: string }>('SELECT role FROM authcore.roles WHERE app_id = $1 ORDER BY role COLLATE "C"', [appId])
    return rows.map((r) => r.role)
  }

  async addToUser(appId: string, tenantId: string, userId: string, role: string): Promise<{ status: 'OK'; didUserAlreadyHaveRole: boolean } | UnknownRole> {
    return this.db.transaction(async (tx) => {
      if (!(await this.holdRole(tx, appId, role, 'KEY SHARE'))) return UNKNOWN_ROLE
      const { rowCount } = await tx.query('INSERT INTO authcore.user_roles (app_id, tenant_id, user_id, role) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
        appId,
        tenantId,
        userId,
        role,
      ])
      if (rowCount > 0) await noteChanges(tx, appId, 'SELECT $2::text AS user_id', [userId])
      return { status: 'OK' as const, didUserAlreadyHaveRole: rowCount === 0 }
    })
  }

  async removeFromUser(appId: string, tenantId: string, userId: string, role: string): Promise<{ status: 'OK'; didUserHaveRole: boolean } | UnknownRole> {
    return this.db.transaction(async (tx) => {
      if (!(await this.holdRole(tx, appId, role, 'KEY SHARE'))) return UNKNOWN_ROLE
      const { rowCount } = await tx.query('DELETE FROM authcore.user_roles WHERE app_id = $1 AND tenant_id = $2 AND user_id = $3 AND role = $4', [
        appId,
        tenantId,
        userId,
        role,
      ])
      if (rowCount > 0) await noteChanges(tx, appId, 'SELECT $2::text AS user_id', [userId])
      return { status: 'OK' as const, didUserHaveRole: rowCount > 0 }
    })
  }

  async rolesOfUser(appId: string, tenantId: string, userId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ role: string }>(
      'SELECT role FROM authcore.user_roles WHERE app_id = $1 AND tenant_id = $2 AND user_id = $3 ORDER BY role COLLATE "C"',
      [appId, tenantId, userId],
    )
    return rows.map((r) => r.role)
  }

  async usersWithRole(appId: string, tenantId: string, role: string): Promise<{ status: 'OK'; users: string[] } | UnknownRole> {
    const { rows } = await this.db.query<{ user_id: string | null }>(
      `SELECT u.user_id FROM authcore.roles r LEFT JOIN authcore.user_roles u ON u.app_id = r.app_id AND u.role = r.role AND u.tenant_id = $3
        WHERE r.app_id = $1 AND r.role = $2 ORDER BY u.user_id COLLATE "C"`,
      [appId, role, tenantId],
    )
    if (rows.length === 0) return UNKNOWN_ROLE
    return { status: 'OK', users: rows.flatMap((r) => (r.user_id === null ? [] : [r.user_id])) }
  }

  /**
   * The role-change feed from `since` (the database's ms clock) on, oldest first: the users to
   * read again. `until` is the newest change returned; a reader asks again from a little before
   * it, since a change committed late can carry an earlier time. Like the revocation list.
   */
  async changedSince(appId: string, since: number, limit: number): Promise<{ changed: Array<{ userId: string; changedAt: number }>; until: number; more: boolean }> {
    const now = this.now()
    if (now - this.lastSweep > 60_000) {
      this.lastSweep = now
      await this.db.query('DELETE FROM authcore.role_changes WHERE changed_at < $1', [now - ROLE_CHANGE_RETENTION_MS])
    }
    const { rows } = await this.db.query<{ user_id: string; changed_at: string | number }>(
      `SELECT user_id, changed_at FROM authcore.role_changes WHERE app_id = $1 AND changed_at >= $2 ORDER BY changed_at, user_id COLLATE "C" LIMIT $3`,
      [appId, since, limit + 1],
    )
    const page = rows.slice(0, limit)
    const until = page.length > 0 ? Number(page[page.length - 1]!.changed_at) : since
    return { changed: page.map((r) => ({ userId: r.user_id, changedAt: Number(r.changed_at) })), until, more: rows.length > limit }
  }
}
