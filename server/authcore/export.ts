import type { Queryable } from '../db/database.ts'
import type { SecretBox } from './crypto.ts'

// Operator export: every user of an app in SuperTokens' bulk-import format, so the
// users, their password hashes, verification state, TOTP devices, metadata and roles can move to a
// real SuperTokens core. The output holds secrets: the command writes it owner-readable only.

interface BulkLoginMethod {
  recipeId: 'emailpassword' | 'thirdparty'
  tenantIds: string[]
  isVerified: boolean
  isPrimary: boolean
  timeJoinedInMSSinceEpoch: number
  email: string
  passwordHash?: string
  hashingAlgorithm?: 'bcrypt' | 'argon2'
  thirdPartyId?: string
  thirdPartyUserId?: string
}

export interface BulkImportUser {
  externalUserId: string
  userMetadata: Record<string, unknown>
  /** The user's roles and the tenants it holds each in (the roles themselves and their permissions are not part of the format). */
  userRoles: Array<{ role: string; tenantIds: string[] }>
  totpDevices: Array<{ secretKey: string; period: number; skew: number; deviceName: string }>
  loginMethods: BulkLoginMethod[]
}

export async function exportUsers(db: Queryable, box: SecretBox, appId: string): Promise<{ users: BulkImportUser[] }> {
  const { rows } = await db.query<{
    user_id: string
    primary_user_id: string
    is_linked_or_primary: boolean
    recipe_id: 'emailpassword' | 'thirdparty'
    time_joined: string
    email: string
    password_hash: string | null
    third_party_id: string | null
    third_party_user_id: string | null
    tenant_ids: string[]
    verified: boolean
  }>(
    `SELECT u.*, ARRAY(SELECT ut.tenant_id FROM authcore.user_tenants ut WHERE ut.app_id = u.app_id AND ut.user_id = u.user_id ORDER BY ut.tenant_id) AS tenant_ids,
            EXISTS (SELECT 1 FROM authcore.email_verified ev WHERE ev.app_id = u.app_id AND ev.user_id = u.user_id AND ev.email = u.email) AS verified
       FROM authcore.users u WHERE u.app_id = $1 ORDER BY u.time_joined, u.user_id`,
    [appId],
  )
  const metadata = new Map(
    (await db.query<{ user_id: string; metadata: Record<string, unknown> }>('SELECT user_id, metadata FROM authcore.user_metadata WHERE app_id = $1', [appId])).rows.map((r) => [
      r.user_id,
      r.metadata,
    ]),
  )
  const devices = (
    await db.query<{ user_id: string; device_name: string; secret_encrypted: string; period: number; skew: number }>(
      'SELECT user_id, device_name, secret_encrypted, period, skew FROM authcore.totp_devices WHERE app_id = $1 AND verified ORDER BY created_at',
      [appId],
    )
  ).rows
  const roles = new Map<string, Array<{ role: string; tenantIds: string[] }>>()
  for (const r of (
    await db.query<{ user_id: string; role: string; tenant_ids: string[] }>(
      `SELECT user_id, role, array_agg(tenant_id ORDER BY tenant_id) AS tenant_ids FROM authcore.user_roles WHERE app_id = $1
        GROUP BY user_id, role ORDER BY user_id, role COLLATE "C"`,
      [appId],
    )
  ).rows) {
    const list = roles.get(r.user_id) ?? []
    list.push({ role: r.role, tenantIds: r.tenant_ids })
    roles.set(r.user_id, list)
  }
  const users = new Map<string, BulkImportUser>()
  for (const row of rows) {
    let user = users.get(row.primary_user_id)
    if (!user) {
      user = {
        externalUserId: row.primary_user_id,
        userMetadata: metadata.get(row.primary_user_id) ?? {},
        userRoles: [],
        totpDevices: devices
          .filter((d) => d.user_id === row.primary_user_id)
          .map((d) => ({ secretKey: box.open(`totp:${appId}`, d.secret_encrypted) ?? '', period: d.period, skew: d.skew, deviceName: d.device_name })),
        loginMethods: [],
      }
      users.set(row.primary_user_id, user)
    }
    // Roles held under any of its ids (a login method may have had some before it was linked).
    for (const held of roles.get(row.user_id) ?? []) {
      const same = user.userRoles.find((r) => r.role === held.role)
      if (same) same.tenantIds = [...new Set([...same.tenantIds, ...held.tenantIds])].sort()
      else user.userRoles.push({ role: held.role, tenantIds: [...held.tenantIds] })
    }
    user.loginMethods.push({
      recipeId: row.recipe_id,
      tenantIds: row.tenant_ids,
      isVerified: row.verified,
      // In the bulk format the primary flag marks the login method whose id the user keeps.
      isPrimary: row.is_linked_or_primary && row.user_id === row.primary_user_id,
      timeJoinedInMSSinceEpoch: Number(row.time_joined),
      email: row.email,
      ...(row.recipe_id === 'emailpassword'
        ? { passwordHash: row.password_hash!, hashingAlgorithm: row.password_hash!.startsWith('$argon2') ? ('argon2' as const) : ('bcrypt' as const) }
        : { thirdPartyId: row.third_party_id!, thirdPartyUserId: row.third_party_user_id! }),
    })
  }
  return { users: [...users.values()] }
}
