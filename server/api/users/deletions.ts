import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../db/database.ts'
import type { DeletionReason } from '../../../shared/account/profile.ts'
import type { DeletionSummary } from '../../../shared/types.ts'
import { isDatabaseUnreachable } from '../../db/reachability.ts'
import { RepeatedFailureLog } from '../../http/outage-log.ts'

// Account deletion, in an order that a crash cannot leave half-done:
//   1. the request is written (who, why, the language);
//   2. the auth-core user is removed — sessions, tokens, devices, metadata; from here nobody can
//      sign in as this person, and every instance refuses their sessions within a second;
//   3. every subscription Stripe still bills for the user is cancelled: a deleted
//      account is never charged again; Stripe unreachable, the request waits like step 2;
//   4. the user's drive goes: its rows, then its stored bytes;
//   5. in one transaction: the product's data goes (the record; library and avatar with it) with
//      the request, and an anonymous row keeps the reason, the comment, the language and the day.
// Steps 2 to 5 may be repeated, so a request found at start (a crash, a core that did not answer)
// is simply finished then, and again by a sweep every minute while the process runs.

export interface DeletionRecord {
  reason: string
  comment: string | null
  language: string
  day: string
}

export const DELETION_SWEEP_INTERVAL_MS = 60_000

export class AccountDeletions {
  private timer: NodeJS.Timeout | undefined
  /** Requests that cannot be finished yet, or a sweep that fails: one line when it begins, one when it ends. */
  private readonly unfinished: RepeatedFailureLog
  private readonly sweeps: RepeatedFailureLog

  constructor(
    private readonly db: Database,
    private readonly removeCoreUser: (userId: string) => Promise<void>,
    private readonly log: FastifyBaseLogger,
    /** Deletes the user's files and their stored bytes; may be repeated. */
    private readonly removeFiles: (userId: string) => Promise<void>,
    /** Cancels every subscription the user is still billed for; may be repeated. */
    private readonly cancelSubscriptions: (userId: string) => Promise<void> = async () => {},
    private readonly now: () => number = Date.now,
  ) {
    this.unfinished = new RepeatedFailureLog(log, 'finishing account deletions')
    this.sweeps = new RepeatedFailureLog(log, 'the account-deletion sweep')
  }

  /**
   * What deleting the account would remove beyond the record, as the profile says it
   * before the person confirms: the drive's files (the trash and uploads under way included, as
   * steps 4 and 5 remove them), the share links that work now, and the subscriptions step 3
   * cancels — the same rows billedSubscriptions reads — by program name.
   */
  async summary(userId: string): Promise<DeletionSummary> {
    const [files, shares, subscriptions] = await Promise.all([
      this.db.query<{ count: number | string; bytes: number | string }>(
        "SELECT count(*) AS count, coalesce(sum(size), 0) AS bytes FROM api.file_items WHERE user_id = $1 AND type = 'file'",
        [userId],
      ),
      this.db.query<{ count: number | string }>(
        `SELECT count(*) AS count FROM api.file_shares s JOIN api.file_items i ON i.id = s.item_id
         WHERE s.user_id = $1 AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > $2) AND i.trashed_at IS NULL`,
        [userId, new Date(this.now()).toISOString()],
      ),
      this.db.query<{ program_id: string; name: string }>(
        `SELECT DISTINCT ON (p.program_id) p.program_id, pr.name FROM api.purchases p JOIN api.programs pr ON pr.id = p.program_id
         WHERE p.user_id = $1 AND p.kind = 'subscription' AND p.status = 'active' ORDER BY p.program_id`,
        [userId],
      ),
    ])
    return {
      files: { count: Number(files.rows[0]?.count ?? 0), bytes: Number(files.rows[0]?.bytes ?? 0) },
      shareLinks: Number(shares.rows[0]?.count ?? 0),
      subscriptions: subscriptions.rows.map((row) => ({ programId: row.program_id, name: row.name })).sort((a, b) => a.name.localeCompare(b.name)),
    }
  }

  /** Steps 1–5 for this user; false when there is no such product record. Throws when the core cannot be reached (the request stays and is finished later). */
  async delete(userId: string, reason: DeletionReason, comment: string | null): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `INSERT INTO api.account_deletions (user_id, reason, comment, language)
       SELECT id, $2, $3, language FROM api.users WHERE id = $1
       ON CONFLICT (user_id) DO UPDATE SET reason = EXCLUDED.reason, comment = EXCLUDED.comment`,
      [userId, reason, comment],
    )
    if (rowCount === 0) return false
    await this.finish(userId)
    return true
  }

  /** Steps 2 to 5 of a request already written. */
  private async finish(userId: string): Promise<void> {
    await this.removeCoreUser(userId)
    await this.cancelSubscriptions(userId)
    // Files a request still being answered adds after this go with the record (ON DELETE
    // CASCADE); their bytes, if any, are left to the drive's sweep.
    await this.removeFiles(userId)
    await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ reason: string; comment: string | null; language: string }>(
        'DELETE FROM api.account_deletions WHERE user_id = $1 RETURNING reason, comment, language',
        [userId],
      )
      const request = rows[0]
      if (!request) return
      await tx.query('DELETE FROM api.users WHERE id = $1', [userId])
      await tx.query('INSERT INTO api.deletion_reasons (reason, comment, language, day) VALUES ($1, $2, $3, current_date)', [request.reason, request.comment, request.language])
    })
  }

  /** Finishes every request still written (oldest first); returns how many were finished. */
  async resume(): Promise<number> {
    const { rows } = await this.db.query<{ user_id: string }>('SELECT user_id FROM api.account_deletions ORDER BY requested_at LIMIT 100')
    let finished = 0
    let stuck: unknown = null
    for (const { user_id: userId } of rows) {
      try {
        await this.finish(userId)
        finished += 1
      } catch (err) {
        stuck ??= err
      }
    }
    if (finished > 0) this.log.info({ finished }, 'unfinished account deletions finished')
    if (stuck === null) this.unfinished.succeeded()
    else this.unfinished.failed(stuck, 'an account deletion could not be finished yet; it is tried again every minute')
    return finished
  }

  start(): void {
    // A database out of reach is its outage log's to tell, once; the sweep just runs again.
    const failed = (err: unknown) => {
      if (!isDatabaseUnreachable(err)) this.sweeps.failed(err, 'the account-deletion sweep failed')
    }
    this.timer = setInterval(() => void this.resume().then(() => this.sweeps.succeeded(), failed), DELETION_SWEEP_INTERVAL_MS)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
  }
}

/** The kept reasons, newest first (operators: `npm run accounts -- deletion-reasons`). */
export async function deletionReasons(db: Database, limit = 1000): Promise<DeletionRecord[]> {
  const { rows } = await db.query<{ reason: string; comment: string | null; language: string; day: Date | string }>(
    'SELECT reason, comment, language, day FROM api.deletion_reasons ORDER BY day DESC, id DESC LIMIT $1',
    [limit],
  )
  return rows.map((row) => ({ reason: row.reason, comment: row.comment, language: row.language, day: typeof row.day === 'string' ? row.day.slice(0, 10) : dayOf(row.day) }))
}

function dayOf(date: Date): string {
  // A DATE comes back as local midnight from pg; its calendar day is what was stored.
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`
}
