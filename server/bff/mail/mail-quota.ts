import { createHash, randomUUID } from 'node:crypto'
import type { Database } from '../../db/database.ts'

// The hourly cap on reset and verification mails to one recipient (SECURITY.md "Sign-in
// abuse"). Each mail takes a place before it is handed to the mail server, in one atomic
// statement, so parallel requests cannot send more than the cap; a mail that could not be handed
// over gives its place back. The window slides: the cap holds for any hour, not per clock hour.

export interface MailGrant {
  key: string
  at: number
}

export function normaliseRecipient(address: string): string {
  return address.trim().toLowerCase()
}

const keyOf = (address: string) => createHash('sha256').update(normaliseRecipient(address)).digest('hex')

/** What a log line may say about a recipient. */
export const recipientHash = (address: string) => keyOf(address).slice(0, 16)

export class MailQuota {
  private lastSweep = 0

  constructor(
    private readonly db: Database,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A place for one mail to this recipient now, or null when the cap is reached. */
  async take(address: string): Promise<MailGrant | null> {
    const key = keyOf(address)
    const now = this.now()
    await this.sweep(now)
    const grant = randomUUID()
    // The mails still inside the window; the new one joins them only below the cap. The grant id
    // tells whether this very call was granted (RETURNING sees only the new row).
    const recent = 'ARRAY(SELECT s FROM unnest(q.sent_at) AS s WHERE s > $2::bigint - $3::bigint)'
    const granted = `cardinality(${recent}) < $4::int`
    const { rows } = await this.db.query<{ granted: boolean }>(
      `INSERT INTO bff.mail_quota AS q (recipient_key, sent_at, updated_at, grant_id)
       VALUES ($1, ARRAY[$2::bigint], $2::bigint, $5)
       ON CONFLICT (recipient_key) DO UPDATE SET
         sent_at = CASE WHEN ${granted} THEN ${recent} || $2::bigint ELSE ${recent} END,
         updated_at = $2::bigint,
         grant_id = CASE WHEN ${granted} THEN $5 ELSE q.grant_id END
       RETURNING grant_id = $5 AS granted`,
      [key, now, this.windowMs, this.limit, grant],
    )
    return rows[0]!.granted ? { key, at: now } : null
  }

  /** The mail was not handed over: its place is free again. */
  async giveBack(grant: MailGrant): Promise<void> {
    await this.db.query(
      `UPDATE bff.mail_quota SET sent_at = sent_at[1:array_position(sent_at, $2::bigint) - 1] || sent_at[array_position(sent_at, $2::bigint) + 1:]
        WHERE recipient_key = $1 AND array_position(sent_at, $2::bigint) IS NOT NULL`,
      [grant.key, grant.at],
    )
  }

  /** Mails counted for this recipient in the window now: the same lookup as take, changing nothing. */
  /** The account with this address was deleted: nothing of its count is kept. */
  async forget(address: string): Promise<void> {
    await this.db.query('DELETE FROM bff.mail_quota WHERE recipient_key = $1', [keyOf(address)])
  }

  async count(address: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      'SELECT cardinality(ARRAY(SELECT s FROM unnest(q.sent_at) AS s WHERE s > $2::bigint - $3::bigint))::int AS n FROM bff.mail_quota q WHERE recipient_key = $1',
      [keyOf(address), this.now(), this.windowMs],
    )
    return rows[0]?.n ?? 0
  }

  /** Forgets recipients with no mail in the window, at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    await this.db.query('DELETE FROM bff.mail_quota WHERE updated_at <= $1', [now - this.windowMs])
  }
}
