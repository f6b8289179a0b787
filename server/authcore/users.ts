import type { Queryable } from '../db/database.ts'
import { uuid } from './crypto.ts'
import { removeRolesOfUsers } from './roles.ts'

// Users as the CDI shows them (AUTH-CORE.md §3 "User object", §5.1): one row per recipe user (a
// login method); a primary user gathers the login methods linked to it. Emails are stored
// normalised (trim + lowercase), as the SDK compares them.

export type RecipeId = 'emailpassword' | 'thirdparty'

export interface LoginMethod {
  recipeId: RecipeId
  recipeUserId: string
  tenantIds: string[]
  timeJoined: number
  verified: boolean
  email?: string
  thirdParty?: { id: string; userId: string }
}

export interface CdiUser {
  id: string
  isPrimaryUser: boolean
  tenantIds: string[]
  timeJoined: number
  emails: string[]
  phoneNumbers: string[]
  thirdParty: Array<{ id: string; userId: string }>
  webauthn: { credentialIds: string[] }
  loginMethods: LoginMethod[]
}

export interface UserRow {
  user_id: string
  primary_user_id: string
  is_linked_or_primary: boolean
  recipe_id: RecipeId
  time_joined: string | number
  email: string | null
  password_hash: string | null
  third_party_id: string | null
  third_party_user_id: string | null
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** Addresses SuperTokens generates for accounts without one; verified from the start. */
export function isFakeEmail(email: string): boolean {
  return email.endsWith('@stfakeemail.supertokens.com') || email.endsWith('.fakeemail.com')
}

/** What a user object needs, and no password hash. */
const USER_COLUMNS = `u.user_id, u.primary_user_id, u.is_linked_or_primary, u.recipe_id, u.time_joined, u.email,
  u.third_party_id, u.third_party_user_id,
  ARRAY(SELECT ut.tenant_id FROM authcore.user_tenants ut WHERE ut.app_id = u.app_id AND ut.user_id = u.user_id ORDER BY ut.tenant_id) AS tenant_ids,
  EXISTS (SELECT 1 FROM authcore.email_verified ev WHERE ev.app_id = u.app_id AND ev.user_id = u.user_id AND ev.email = u.email) AS verified`

type FullRow = Omit<UserRow, 'password_hash'> & { tenant_ids: string[]; verified: boolean }

function unique<T>(values: T[], key: (value: T) => string = String): T[] {
  const seen = new Set<string>()
  return values.filter((value) => {
    const k = key(value)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

function toUser(primaryId: string, rows: FullRow[]): CdiUser {
  const methods: LoginMethod[] = rows
    .map((row) => ({
      recipeId: row.recipe_id,
      recipeUserId: row.user_id,
      tenantIds: row.tenant_ids,
      timeJoined: Number(row.time_joined),
      verified: row.verified,
      ...(row.email !== null ? { email: row.email } : {}),
      ...(row.recipe_id === 'thirdparty' ? { thirdParty: { id: row.third_party_id!, userId: row.third_party_user_id! } } : {}),
    }))
    .sort((a, b) => a.timeJoined - b.timeJoined || a.recipeUserId.localeCompare(b.recipeUserId))
  return {
    id: primaryId,
    isPrimaryUser: rows.some((row) => row.is_linked_or_primary),
    tenantIds: unique(methods.flatMap((m) => m.tenantIds)),
    timeJoined: Math.min(...methods.map((m) => m.timeJoined)),
    emails: unique(methods.flatMap((m) => (m.email ? [m.email] : []))),
    phoneNumbers: [],
    thirdParty: unique(
      methods.flatMap((m) => (m.thirdParty ? [m.thirdParty] : [])),
      (tp) => `${tp.id}\u0000${tp.userId}`,
    ),
    webauthn: { credentialIds: [] },
    loginMethods: methods,
  }
}

/** Primary users by their ids, in the order given; unknown ids are left out. */
export async function usersByPrimaryIds(db: Queryable, appId: string, primaryIds: string[]): Promise<CdiUser[]> {
  if (primaryIds.length === 0) return []
  const { rows } = await db.query<FullRow>(`SELECT ${USER_COLUMNS} FROM authcore.users u WHERE u.app_id = $1 AND u.primary_user_id = ANY($2::text[])`, [appId, primaryIds])
  const groups = new Map<string, FullRow[]>()
  for (const row of rows) {
    const group = groups.get(row.primary_user_id) ?? []
    group.push(row)
    groups.set(row.primary_user_id, group)
  }
  return unique(primaryIds).flatMap((id) => {
    const group = groups.get(id)
    return group ? [toUser(id, group)] : []
  })
}

export async function findRecipeUser(db: Queryable, appId: string, userId: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('SELECT * FROM authcore.users WHERE app_id = $1 AND user_id = $2', [appId, userId])
  return rows[0] ?? null
}

/** The user a recipe or primary user id belongs to: one query, the SDK's most frequent call. */
export async function getUser(db: Queryable, appId: string, userId: string): Promise<CdiUser | null> {
  const { rows } = await db.query<FullRow>(
    `SELECT ${USER_COLUMNS} FROM authcore.users u
      WHERE u.app_id = $1 AND u.primary_user_id = (
        SELECT x.primary_user_id FROM authcore.users x WHERE x.app_id = $1 AND x.user_id = $2
        UNION ALL SELECT y.primary_user_id FROM authcore.users y WHERE y.app_id = $1 AND y.primary_user_id = $2
        LIMIT 1)`,
    [appId, userId],
  )
  const first = rows[0]
  return first ? toUser(first.primary_user_id, rows) : null
}

export interface AccountInfo {
  email?: string | undefined
  thirdPartyId?: string | undefined
  thirdPartyUserId?: string | undefined
}

/**
 * AUTH-CORE.md §3.1 `users/by-accountinfo`: users with a login method in this tenant matching
 * any given field (union) or, per primary user, every given field (intersection).
 */
export async function usersByAccountInfo(db: Queryable, appId: string, tenantId: string, info: AccountInfo, union: boolean): Promise<CdiUser[]> {
  const email = info.email !== undefined ? normaliseEmail(info.email) : undefined
  const tp = info.thirdPartyId !== undefined && info.thirdPartyUserId !== undefined ? { id: info.thirdPartyId, userId: info.thirdPartyUserId } : undefined
  if (email === undefined && tp === undefined) return []
  // One query: every login method of the primary users that have a matching one in this tenant,
  // each flagged with what it matches.
  const { rows } = await db.query<FullRow & { email_match: boolean; tp_match: boolean; in_tenant: boolean }>(
    `SELECT ${USER_COLUMNS},
            (u.email = $3) AS email_match,
            (u.third_party_id = $4 AND u.third_party_user_id = $5) AS tp_match,
            EXISTS (SELECT 1 FROM authcore.user_tenants t WHERE t.app_id = u.app_id AND t.user_id = u.user_id AND t.tenant_id = $2) AS in_tenant
       FROM authcore.users u
      WHERE u.app_id = $1 AND u.primary_user_id IN (
        SELECT m.primary_user_id FROM authcore.users m
          JOIN authcore.user_tenants mt ON mt.app_id = m.app_id AND mt.user_id = m.user_id AND mt.tenant_id = $2
         WHERE m.app_id = $1 AND (m.email = $3 OR (m.third_party_id = $4 AND m.third_party_user_id = $5)))`,
    [appId, tenantId, email ?? null, tp?.id ?? null, tp?.userId ?? null],
  )
  const groups = new Map<string, typeof rows>()
  for (const row of rows) {
    const group = groups.get(row.primary_user_id) ?? []
    group.push(row)
    groups.set(row.primary_user_id, group)
  }
  const users: CdiUser[] = []
  for (const [primaryId, group] of groups) {
    const inTenant = group.filter((row) => row.in_tenant)
    const emailMatch = email !== undefined && inTenant.some((row) => row.email_match)
    const tpMatch = tp !== undefined && inTenant.some((row) => row.tp_match)
    const matches = union ? emailMatch || tpMatch : (email === undefined || emailMatch) && (tp === undefined || tpMatch)
    if (matches) users.push(toUser(primaryId, group))
  }
  return users.sort((a, b) => a.timeJoined - b.timeJoined || a.id.localeCompare(b.id))
}

export async function markEmailVerified(db: Queryable, appId: string, userId: string, email: string): Promise<void> {
  await db.query('INSERT INTO authcore.email_verified (app_id, user_id, email) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [appId, userId, email])
}

/** EmailPassword sign-up; null when the email already has an EmailPassword user in the tenant. */
export async function createEmailPasswordUser(tx: Queryable, appId: string, tenantId: string, email: string, passwordHash: string): Promise<string | null> {
  const taken = await tx.query(
    "SELECT 1 FROM authcore.user_tenants WHERE app_id = $1 AND tenant_id = $2 AND recipe_id = 'emailpassword' AND email = $3",
    [appId, tenantId, email],
  )
  if (taken.rowCount > 0) return null
  const userId = uuid()
  await tx.query(
    `INSERT INTO authcore.users (app_id, user_id, primary_user_id, recipe_id, time_joined, email, password_hash)
     VALUES ($1, $2, $2, 'emailpassword', $3, $4, $5)`,
    [appId, userId, Date.now(), email, passwordHash],
  )
  await tx.query("INSERT INTO authcore.user_tenants (app_id, tenant_id, user_id, recipe_id, email) VALUES ($1, $2, $3, 'emailpassword', $4)", [appId, tenantId, userId, email])
  if (isFakeEmail(email)) await markEmailVerified(tx, appId, userId, email)
  return userId
}

export async function findEmailPasswordUser(db: Queryable, appId: string, tenantId: string, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    `SELECT u.* FROM authcore.users u JOIN authcore.user_tenants ut ON ut.app_id = u.app_id AND ut.user_id = u.user_id
      WHERE u.app_id = $1 AND ut.tenant_id = $2 AND ut.recipe_id = 'emailpassword' AND ut.email = $3`,
    [appId, tenantId, email],
  )
  return rows[0] ?? null
}

/**
 * Sign-in in one query: the EmailPassword login method with this email in the tenant, its password
 * hash, and the whole user it belongs to.
 */
export async function emailPasswordSignInCandidate(
  db: Queryable,
  appId: string,
  tenantId: string,
  email: string,
): Promise<{ recipeUserId: string; passwordHash: string; user: CdiUser } | null> {
  const { rows } = await db.query<FullRow & { login_hash: string | null }>(
    `SELECT ${USER_COLUMNS}, CASE WHEN u.user_id = m.user_id THEN u.password_hash END AS login_hash
       FROM authcore.users u
       JOIN (SELECT x.user_id, x.primary_user_id FROM authcore.users x
               JOIN authcore.user_tenants t ON t.app_id = x.app_id AND t.user_id = x.user_id
              WHERE x.app_id = $1 AND t.tenant_id = $2 AND t.recipe_id = 'emailpassword' AND t.email = $3) m
         ON u.primary_user_id = m.primary_user_id
      WHERE u.app_id = $1`,
    [appId, tenantId, email],
  )
  const login = rows.find((row) => row.login_hash !== null)
  if (!login) return null
  return { recipeUserId: login.user_id, passwordHash: login.login_hash!, user: toUser(login.primary_user_id, rows) }
}

/** Whether another primary user (not `primaryId`) already has a primary account with this email. */
export async function emailHeldByOtherPrimary(db: Queryable, appId: string, email: string, primaryId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM authcore.users WHERE app_id = $1 AND email = $2 AND is_linked_or_primary AND primary_user_id <> $3 LIMIT 1',
    [appId, email, primaryId],
  )
  return rowCount > 0
}

export type ThirdPartyResult = { status: 'OK'; createdNewUser: boolean; recipeUserId: string } | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string }

/** AUTH-CORE.md §5.6: find by (provider, provider's user id) in the tenant, else create. */
export async function thirdPartySignInUp(
  tx: Queryable,
  appId: string,
  tenantId: string,
  input: { thirdPartyId: string; thirdPartyUserId: string; email: string; isVerified: boolean },
): Promise<ThirdPartyResult> {
  const email = normaliseEmail(input.email)
  const { rows } = await tx.query<UserRow>(
    `SELECT u.* FROM authcore.users u JOIN authcore.user_tenants ut ON ut.app_id = u.app_id AND ut.user_id = u.user_id
      WHERE u.app_id = $1 AND ut.tenant_id = $2 AND ut.recipe_id = 'thirdparty' AND ut.third_party_id = $3 AND ut.third_party_user_id = $4`,
    [appId, tenantId, input.thirdPartyId, input.thirdPartyUserId],
  )
  const existing = rows[0]
  let userId: string
  let created = false
  if (existing) {
    userId = existing.user_id
    if (existing.email !== email) {
      if (existing.is_linked_or_primary && (await emailHeldByOtherPrimary(tx, appId, email, existing.primary_user_id))) {
        return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'Email already associated with another primary user.' }
      }
      await tx.query('UPDATE authcore.users SET email = $3 WHERE app_id = $1 AND user_id = $2', [appId, userId, email])
      await tx.query('UPDATE authcore.user_tenants SET email = $3 WHERE app_id = $1 AND user_id = $2', [appId, userId, email])
    }
  } else {
    userId = uuid()
    created = true
    await tx.query(
      `INSERT INTO authcore.users (app_id, user_id, primary_user_id, recipe_id, time_joined, email, third_party_id, third_party_user_id)
       VALUES ($1, $2, $2, 'thirdparty', $3, $4, $5, $6)`,
      [appId, userId, Date.now(), email, input.thirdPartyId, input.thirdPartyUserId],
    )
    await tx.query(
      `INSERT INTO authcore.user_tenants (app_id, tenant_id, user_id, recipe_id, email, third_party_id, third_party_user_id)
       VALUES ($1, $2, $3, 'thirdparty', $4, $5, $6)`,
      [appId, tenantId, userId, email, input.thirdPartyId, input.thirdPartyUserId],
    )
  }
  if (input.isVerified) await markEmailVerified(tx, appId, userId, email)
  return { status: 'OK', createdNewUser: created, recipeUserId: userId }
}

/**
 * AUTH-CORE.md §5.9: deletes the user (with every login method linked to it unless told not to)
 * and everything kept per deleted id.
 */
/**
 * Deletes a user (or one login method). Its sessions end like signed-out ones: their handles go to
 * the revocation list until `revokedUntil`, when their last access tokens have expired.
 */
export async function removeUser(tx: Queryable, appId: string, userId: string, removeAllLinkedAccounts: boolean, revokedUntil: number): Promise<void> {
  const row = await findRecipeUser(tx, appId, userId)
  let ids: string[]
  if (!row) {
    const linked = await tx.query<{ user_id: string }>('SELECT user_id FROM authcore.users WHERE app_id = $1 AND primary_user_id = $2', [appId, userId])
    ids = removeAllLinkedAccounts ? linked.rows.map((r) => r.user_id) : []
    if (ids.length === 0) ids = [userId]
  } else if (removeAllLinkedAccounts) {
    const linked = await tx.query<{ user_id: string }>('SELECT user_id FROM authcore.users WHERE app_id = $1 AND primary_user_id = $2', [appId, row.primary_user_id])
    ids = linked.rows.map((r) => r.user_id)
  } else {
    ids = [userId]
    // The remaining login methods keep their primary user; when the deleted one was that primary, the next oldest takes over.
    if (row.primary_user_id === userId) {
      const rest = await tx.query<{ user_id: string }>(
        'SELECT user_id FROM authcore.users WHERE app_id = $1 AND primary_user_id = $2 AND user_id <> $2 ORDER BY time_joined, user_id LIMIT 1',
        [appId, userId],
      )
      const heir = rest.rows[0]?.user_id
      if (heir) await tx.query('UPDATE authcore.users SET primary_user_id = $3 WHERE app_id = $1 AND primary_user_id = $2', [appId, userId, heir])
    }
  }
  const all = [...new Set(ids)]
  await tx.query(
    `WITH gone AS (DELETE FROM authcore.sessions WHERE app_id = $1 AND user_id = ANY($2::text[]) RETURNING session_handle)
     INSERT INTO authcore.revoked_sessions (app_id, session_handle, expires_at) SELECT $1, session_handle, $3 FROM gone ON CONFLICT DO NOTHING`,
    [appId, all, revokedUntil],
  )
  await removeRolesOfUsers(tx, appId, all)
  for (const table of ['user_metadata', 'email_verified', 'email_verification_tokens', 'totp_devices', 'totp_used_codes']) {
    await tx.query(`DELETE FROM authcore.${table} WHERE app_id = $1 AND user_id = ANY($2::text[])`, [appId, all])
  }
  // Cascades to tenant membership and password-reset tokens.
  await tx.query('DELETE FROM authcore.users WHERE app_id = $1 AND user_id = ANY($2::text[])', [appId, all])
}
