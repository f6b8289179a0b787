import { createHash, randomBytes } from 'node:crypto'
import type { Database } from '../../db/database.ts'

// Changes of an account's email waiting for the link sent to the new address. One per
// account, replaced by a newer request; the link's token is kept only as its SHA-256 and works
// once, until it expires. Times come from an injected clock, so tests can step past the edge.

export interface PendingEmailChange {
  userId: string
  recipeUserId: string
  tenantId: string
  newEmail: string
  locale: string
  expiresAt: number
}

export type Claim = { status: 'OK'; change: PendingEmailChange; tokenHash: string } | { status: 'EXPIRED' } | { status: 'INVALID' }

interface Row {
  user_id: string
  recipe_user_id: string
  tenant_id: string
  new_email: string
  locale: string
  expires_at: string | number
}

/** A confirmation holds its row this long; a crash in between frees the link again after it. */
const CLAIM_MS = 60_000
/** An expired change is kept this long, so its link says "expired" rather than "not valid". */
const KEEP_EXPIRED_MS = 7 * 24 * 3_600_000

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex')

function toChange(row: Row): PendingEmailChange {
  return { userId: row.user_id, recipeUserId: row.recipe_user_id, tenantId: row.tenant_id, newEmail: row.new_email, locale: row.locale, expiresAt: Number(row.expires_at) }
}

export class EmailChanges {
  private lastSweep = 0

  constructor(
    private readonly db: Database,
    private readonly validityMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records the change (replacing the account's previous one and its link); the token goes in the link. */
  async request(input: Omit<PendingEmailChange, 'expiresAt'>): Promise<{ token: string; change: PendingEmailChange }> {
    const now = this.now()
    await this.sweep(now)
    const token = randomBytes(32).toString('base64url')
    const expiresAt = now + this.validityMs
    await this.db.query(
      `INSERT INTO bff.email_changes (user_id, recipe_user_id, tenant_id, new_email, token_hash, locale, created_at, expires_at, claimed_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)
       ON CONFLICT (user_id) DO UPDATE SET recipe_user_id = $2, tenant_id = $3, new_email = $4, token_hash = $5, locale = $6, created_at = $7, expires_at = $8, claimed_until = NULL`,
      [input.userId, input.recipeUserId, input.tenantId, input.newEmail, hashOf(token), input.locale, now, expiresAt],
    )
    return { token, change: { ...input, expiresAt } }
  }

  /** A new link for the waiting change, valid from now; null when none is waiting. */
  async renew(userId: string, locale: string): Promise<{ token: string; change: PendingEmailChange } | null> {
    const now = this.now()
    const token = randomBytes(32).toString('base64url')
    const { rows } = await this.db.query<Row>(
      `UPDATE bff.email_changes SET token_hash = $2, locale = $3, created_at = $4, expires_at = $5, claimed_until = NULL
        WHERE user_id = $1 AND expires_at > $4 AND (claimed_until IS NULL OR claimed_until <= $4)
        RETURNING user_id, recipe_user_id, tenant_id, new_email, locale, expires_at`,
      [userId, hashOf(token), locale, now, now + this.validityMs],
    )
    return rows[0] ? { token, change: toChange(rows[0]) } : null
  }

  /** The change waiting for this account, unless it expired. */
  async pending(userId: string): Promise<PendingEmailChange | null> {
    const { rows } = await this.db.query<Row>(
      'SELECT user_id, recipe_user_id, tenant_id, new_email, locale, expires_at FROM bff.email_changes WHERE user_id = $1 AND expires_at > $2',
      [userId, this.now()],
    )
    return rows[0] ? toChange(rows[0]) : null
  }

  /** Forgets the account's waiting change; its link stops working. */
  async cancel(userId: string): Promise<void> {
    await this.db.query('DELETE FROM bff.email_changes WHERE user_id = $1', [userId])
  }

  /**
   * Takes the change a link names for one confirmation: no other request can use the link until
   * it is finished (gone) or released (a failure on the way, so the link still works).
   */
  async claim(token: string): Promise<Claim> {
    const now = this.now()
    const tokenHash = hashOf(token)
    const { rows } = await this.db.query<Row>(
      `UPDATE bff.email_changes SET claimed_until = $2 + $3::bigint
        WHERE token_hash = $1 AND expires_at > $2 AND (claimed_until IS NULL OR claimed_until <= $2)
        RETURNING user_id, recipe_user_id, tenant_id, new_email, locale, expires_at`,
      [tokenHash, now, CLAIM_MS],
    )
    if (rows[0]) return { status: 'OK', change: toChange(rows[0]), tokenHash }
    // An expired link keeps saying so (until the sweep), however often it is opened.
    const expired = await this.db.query('SELECT 1 FROM bff.email_changes WHERE token_hash = $1 AND expires_at <= $2', [tokenHash, now])
    return expired.rowCount > 0 ? { status: 'EXPIRED' } : { status: 'INVALID' }
  }

  /** The confirmation is over, done or refused for good: the link is spent. */
  async finish(tokenHash: string): Promise<void> {
    await this.db.query('DELETE FROM bff.email_changes WHERE token_hash = $1', [tokenHash])
  }

  /** The confirmation failed on the way (the core or the database did not answer): the link works again. */
  async release(tokenHash: string): Promise<void> {
    await this.db.query('UPDATE bff.email_changes SET claimed_until = NULL WHERE token_hash = $1', [tokenHash])
  }

  /** Forgets changes expired for a week, at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    await this.db.query('DELETE FROM bff.email_changes WHERE expires_at < $1', [now - KEEP_EXPIRED_MS])
  }
}
