import { randomBytes } from 'node:crypto'
import type { Database } from '../db/database.ts'
import { sha256Hex } from './crypto.ts'
import { markEmailVerified, normaliseEmail } from './users.ts'

// Email-verification and password-reset tokens (AUTH-CORE.md §5.4, §5.5). Only their SHA-256
// is stored; each is single use, and using one removes its siblings.

/** 128 URL-safe characters, as the real core's verification tokens. */
function newToken(): string {
  return Buffer.from(randomBytes(48).toString('hex')).toString('base64url')
}

export async function createEmailVerificationToken(
  db: Database,
  scope: { appId: string; tenantId: string; lifetimeMs: number },
  userId: string,
  rawEmail: string,
): Promise<{ status: 'OK'; token: string } | { status: 'EMAIL_ALREADY_VERIFIED_ERROR' }> {
  const email = normaliseEmail(rawEmail)
  const verified = await db.query('SELECT 1 FROM authcore.email_verified WHERE app_id = $1 AND user_id = $2 AND email = $3', [scope.appId, userId, email])
  if (verified.rowCount > 0) return { status: 'EMAIL_ALREADY_VERIFIED_ERROR' }
  const token = newToken()
  await db.query(
    'INSERT INTO authcore.email_verification_tokens (app_id, tenant_id, token_hash, user_id, email, expiry) VALUES ($1, $2, $3, $4, $5, $6)',
    [scope.appId, scope.tenantId, sha256Hex(token), userId, email, Date.now() + scope.lifetimeMs],
  )
  return { status: 'OK', token }
}

export async function consumeEmailVerificationToken(
  db: Database,
  scope: { appId: string; tenantId: string },
  token: string,
): Promise<{ status: 'OK'; userId: string; email: string } | { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' }> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ user_id: string; email: string; expiry: string }>(
      'SELECT user_id, email, expiry FROM authcore.email_verification_tokens WHERE app_id = $1 AND tenant_id = $2 AND token_hash = $3 FOR UPDATE',
      [scope.appId, scope.tenantId, sha256Hex(token)],
    )
    const row = rows[0]
    if (!row) return { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' as const }
    await tx.query('DELETE FROM authcore.email_verification_tokens WHERE app_id = $1 AND tenant_id = $2 AND user_id = $3 AND email = $4', [
      scope.appId,
      scope.tenantId,
      row.user_id,
      row.email,
    ])
    if (Number(row.expiry) < Date.now()) return { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' as const }
    await markEmailVerified(tx, scope.appId, row.user_id, row.email)
    return { status: 'OK' as const, userId: row.user_id, email: row.email }
  })
}

export async function createPasswordResetToken(
  db: Database,
  scope: { appId: string; lifetimeMs: number },
  userId: string,
  rawEmail: string | undefined,
): Promise<{ status: 'OK'; token: string } | { status: 'UNKNOWN_USER_ID_ERROR' }> {
  const exists = await db.query('SELECT 1 FROM authcore.users WHERE app_id = $1 AND user_id = $2', [scope.appId, userId])
  if (exists.rowCount === 0) return { status: 'UNKNOWN_USER_ID_ERROR' }
  const token = randomBytes(48).toString('base64url')
  await db.query('INSERT INTO authcore.password_reset_tokens (app_id, token_hash, user_id, email, expiry) VALUES ($1, $2, $3, $4, $5)', [
    scope.appId,
    sha256Hex(token),
    userId,
    rawEmail === undefined ? null : normaliseEmail(rawEmail),
    Date.now() + scope.lifetimeMs,
  ])
  return { status: 'OK', token }
}

export async function consumePasswordResetToken(
  db: Database,
  scope: { appId: string },
  token: string,
): Promise<{ status: 'OK'; userId: string; email?: string } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' }> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ user_id: string; email: string | null; expiry: string }>(
      'SELECT user_id, email, expiry FROM authcore.password_reset_tokens WHERE app_id = $1 AND token_hash = $2 FOR UPDATE',
      [scope.appId, sha256Hex(token)],
    )
    const row = rows[0]
    if (!row) return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' as const }
    // Single use, and every other reset link of the user dies with it.
    await tx.query('DELETE FROM authcore.password_reset_tokens WHERE app_id = $1 AND user_id = $2', [scope.appId, row.user_id])
    if (Number(row.expiry) < Date.now()) return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' as const }
    return { status: 'OK' as const, userId: row.user_id, ...(row.email !== null ? { email: row.email } : {}) }
  })
}

/**
 * Whether a reset token can still be used, without using it (decision 025; not in CDI 5.4): the
 * reset page says at once that a link is spent or expired instead of failing on submit. The
 * answers are consume's, without whose the token is.
 */
export async function checkPasswordResetToken(
  db: Database,
  scope: { appId: string },
  token: string,
): Promise<{ status: 'OK' } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' }> {
  const { rows } = await db.query<{ expiry: string }>('SELECT expiry FROM authcore.password_reset_tokens WHERE app_id = $1 AND token_hash = $2', [scope.appId, sha256Hex(token)])
  const row = rows[0]
  return row && Number(row.expiry) >= Date.now() ? { status: 'OK' } : { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' }
}
