import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Database, Queryable } from '../../db/database.ts'
import { RepeatedFailureLog } from '../../http/outage-log.ts'
import { DEFAULT_LOCALE, isLocale, type Locale } from '../../../shared/locales.ts'
import {
  NOTIFICATION_MAIL_MAX_ITEMS,
  UNSUBSCRIBE_TOKEN_MAX_AGE_MS,
  type Notification,
  type NotificationMailClaim,
  type NotificationType,
} from '../../../shared/catalogue/living.ts'
import type { CoreUser } from '../users/core-accounts.ts'

// Notification mail (decision 030): which accounts a mail is due to, for the BFF's mail
// worker, which writes one mail per account to its outbox and then says so; and the signed token
// of the one-click unsubscribe link (RFC 8058) those mails carry.
//
// An account is due a mail when it has notifications no mail carried yet (mailed_at NULL) and its
// setting is 'immediate', or 'daily' with no mail queued in the last 24 hours; never when it is
// disabled, and never to an address the auth core does not say is verified. Accounts are claimed
// under a lease (notification_mail_accounts, migration 025), so two workers never take one at once;
// a claim not acknowledged when its lease runs out (the worker died) is taken again as the same
// claim, with the same notifications and id, and the outbox keeps one mail of it.

/** How long a worker holds an account it claimed. */
export const NOTIFICATION_MAIL_LEASE_MS = 2 * 60_000
/** After an acknowledgement the account is left alone this long (a claimer that read it just before does not mail it again). */
const AFTER_ACK_MS = 30_000
/** The daily digest: at most one mail in this long. */
export const DAILY_DIGEST_MS = 24 * 60 * 60_000
/** An account the core says is unverified is not asked about again before this long. */
export const UNVERIFIED_RECHECK_MS = 6 * 60 * 60_000
/** Accounts one claim returns at most. */
export const NOTIFICATION_MAIL_CLAIM_MAX = 500
/** Accounts with unmailed notifications one claim looks at, at most (a claim's work is bounded). */
const SCAN_CHUNK = 1_000
const SCAN_CHUNKS_MAX = 20
/** Calls to the auth core at once while checking addresses. */
const CORE_CONCURRENCY = 8

export interface NotificationMailOptions {
  db: Database
  /** The account as the auth core has it (verified or not); null when the core has none. */
  coreUser: (userId: string) => Promise<CoreUser | null>
  log: FastifyBaseLogger
  now: () => number
}

interface UnsubscribePayload {
  /** The account. */
  u: string
  /** When the token was issued, seconds since the epoch. */
  i: number
  /** The account's language then (only the page's language: the BFF shows the link's page in it). */
  l: string
}

export type UnsubscribeCheck = { userId: string; language: Locale } | 'invalid' | 'expired'

/** The unsubscribe links' key (migration 025): written by the first instance, shared by all. */
export async function unsubscribeKey(db: Queryable): Promise<Buffer> {
  await db.query(`INSERT INTO api.notification_mail_keys (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, [randomBytes(32).toString('base64url')])
  const { rows } = await db.query<{ secret: string }>(`SELECT secret FROM api.notification_mail_keys WHERE id = 1`)
  return Buffer.from(rows[0]!.secret, 'base64url')
}

export class UnsubscribeTokens {
  constructor(
    private readonly key: Buffer,
    private readonly now: () => number,
  ) {}

  private signature(payload: string): Buffer {
    return createHmac('sha256', this.key).update(`unsubscribe.${payload}`).digest()
  }

  issue(userId: string, language: string): string {
    const payload = Buffer.from(JSON.stringify({ u: userId, i: Math.floor(this.now() / 1000), l: language } satisfies UnsubscribePayload)).toString('base64url')
    return `${payload}.${this.signature(payload).toString('base64url')}`
  }

  /** The account a token names, when it is ours ('invalid' otherwise) and not older than UNSUBSCRIBE_TOKEN_MAX_AGE_MS ('expired'). */
  check(token: string): UnsubscribeCheck {
    const match = /^([A-Za-z0-9_-]{1,700})\.([A-Za-z0-9_-]{43})$/.exec(token)
    if (!match) return 'invalid'
    // Compared as written (see share-tokens.ts): another spelling of the same signature is not ours.
    const given = Buffer.from(match[2]!)
    const wanted = Buffer.from(this.signature(match[1]!).toString('base64url'))
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'invalid'
    let payload: Partial<UnsubscribePayload>
    try {
      payload = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8')) as Partial<UnsubscribePayload>
    } catch {
      return 'invalid'
    }
    if (typeof payload.u !== 'string' || typeof payload.i !== 'number') return 'invalid'
    const age = this.now() - payload.i * 1000
    if (age > UNSUBSCRIBE_TOKEN_MAX_AGE_MS) return 'expired'
    return { userId: payload.u, language: isLocale(payload.l) ? payload.l : DEFAULT_LOCALE }
  }
}

interface NotificationRow {
  id: string
  user_id: string
  type: NotificationType
  program_id: string
  at: Date | string
  data: Notification['data']
  read_at: Date | string | null
  total?: number
}

function notificationOf(row: NotificationRow): Notification {
  return { id: String(row.id), type: row.type, programId: row.program_id, at: new Date(row.at).toISOString(), read: row.read_at !== null, data: row.data }
}

export class NotificationMail {
  private readonly db: Database
  private readonly coreUser: NotificationMailOptions['coreUser']
  private readonly now: () => number
  /** The core out of reach while checking addresses: one line when it begins, one when it ends. */
  private readonly coreFailures: RepeatedFailureLog
  /** Where the next claim's scan of accounts with unmailed notifications begins (this instance's). */
  private scanCursor = ''

  constructor(
    options: NotificationMailOptions,
    readonly tokens: UnsubscribeTokens,
  ) {
    this.db = options.db
    this.coreUser = options.coreUser
    this.now = options.now
    this.coreFailures = new RepeatedFailureLog(options.log, 'checking notification mail addresses with the auth core', { event: 'notification-mail' })
  }

  /** Up to `limit` accounts a mail is due to, each claimed for NOTIFICATION_MAIL_LEASE_MS. */
  async claim(limit: number): Promise<NotificationMailClaim[]> {
    const now = this.now()
    const userIds = await this.dueAccounts(limit, now)
    if (userIds.length === 0) return []
    await this.db.query(`INSERT INTO api.notification_mail_accounts (user_id) SELECT unnest($1::text[]) ON CONFLICT (user_id) DO NOTHING`, [userIds])
    // One statement: an account another worker holds (its lease running, or its transaction
    // locking the row now) is skipped, and the lease is checked again on the row as it is now.
    const { rows: claimed } = await this.db.query<{ user_id: string; claim_id: string | null; claim_notifications: string[] | null; verified_email: string | null }>(
      `UPDATE api.notification_mail_accounts m SET claimed_until = $2
        WHERE m.user_id IN (SELECT user_id FROM api.notification_mail_accounts WHERE user_id = ANY($1::text[]) ORDER BY user_id FOR UPDATE SKIP LOCKED)
          AND (m.claimed_until IS NULL OR m.claimed_until <= $3) AND (m.skipped_until IS NULL OR m.skipped_until <= $3)
        RETURNING m.user_id, m.claim_id, m.claim_notifications, m.verified_email`,
      [userIds, new Date(now + NOTIFICATION_MAIL_LEASE_MS), new Date(now)],
    )
    if (claimed.length === 0) return []
    // The account as it is now: its setting may have changed since it was read.
    const { rows: users } = await this.db.query<{ id: string; email: string; language: string }>(
      `SELECT id, email, language FROM api.users
        WHERE id = ANY($1::text[]) AND disabled_at IS NULL AND notify <> 'off' AND (notify = 'immediate' OR notified_at IS NULL OR notified_at <= $2)`,
      [claimed.map((row) => row.user_id), new Date(now - DAILY_DIGEST_MS)],
    )
    const byId = new Map(users.map((user) => [user.id, user]))
    const release: string[] = claimed.filter((row) => !byId.has(row.user_id)).map((row) => row.user_id)
    const skip: string[] = []
    const verified = new Map<string, string>()
    const toAsk: Array<{ userId: string; email: string }> = []
    for (const row of claimed) {
      const user = byId.get(row.user_id)
      if (!user) continue
      if (row.verified_email !== null && row.verified_email === user.email) verified.set(row.user_id, user.email)
      else toAsk.push({ userId: row.user_id, email: user.email })
    }
    // Only accounts whose address the core has not yet said is verified are asked about, a few at
    // once; an account's address is asked about again only when it changes.
    const newlyVerified: Array<{ userId: string; email: string }> = []
    for (let start = 0; start < toAsk.length; start += CORE_CONCURRENCY) {
      const answers = await Promise.allSettled(toAsk.slice(start, start + CORE_CONCURRENCY).map(({ userId }) => this.coreUser(userId)))
      answers.forEach((answer, index) => {
        const { userId } = toAsk[start + index]!
        if (answer.status === 'rejected') {
          // The core out of reach: the lease runs out and the account is tried again then.
          this.coreFailures.failed(answer.reason, 'the auth core could not be asked whether addresses are verified; those accounts get their mail later')
          return
        }
        this.coreFailures.succeeded()
        const user = answer.value
        if (user?.verified && user.email) {
          verified.set(userId, user.email)
          newlyVerified.push({ userId, email: user.email })
        } else skip.push(userId)
      })
    }
    if (newlyVerified.length > 0) {
      await this.db.query(
        `UPDATE api.notification_mail_accounts m SET verified_email = x.email FROM unnest($1::text[], $2::text[]) AS x(user_id, email) WHERE m.user_id = x.user_id`,
        [newlyVerified.map((v) => v.userId), newlyVerified.map((v) => v.email)],
      )
    }
    if (skip.length > 0) {
      await this.db.query(`UPDATE api.notification_mail_accounts SET claimed_until = NULL, skipped_until = $2 WHERE user_id = ANY($1::text[])`, [skip, new Date(now + UNVERIFIED_RECHECK_MS)])
    }

    // What each mail carries: a claim taken again carries what it carried (those not mailed since);
    // a new one the oldest unmailed notifications, up to the cap.
    const again = claimed.filter((row) => verified.has(row.user_id) && row.claim_id !== null)
    const fresh = claimed.filter((row) => verified.has(row.user_id) && row.claim_id === null)
    const items = new Map<string, Notification[]>()
    const totals = new Map<string, number>()
    if (again.length > 0) {
      const { rows } = await this.db.query<NotificationRow>(
        `SELECT id, user_id, type, program_id, at, data, read_at FROM api.notifications
          WHERE id = ANY($1::bigint[]) AND mailed_at IS NULL ORDER BY user_id, id`,
        [again.flatMap((row) => row.claim_notifications ?? [])],
      )
      for (const row of rows) items.set(row.user_id, [...(items.get(row.user_id) ?? []), notificationOf(row)])
    }
    if (fresh.length > 0) {
      const { rows } = await this.db.query<NotificationRow>(
        `SELECT id, user_id, type, program_id, at, data, read_at, total FROM (
           SELECT n.*, row_number() OVER (PARTITION BY user_id ORDER BY id) AS k, count(*) OVER (PARTITION BY user_id)::int AS total
             FROM api.notifications n WHERE user_id = ANY($1::text[]) AND mailed_at IS NULL) x
          WHERE k <= $2 ORDER BY user_id, id`,
        [fresh.map((row) => row.user_id), NOTIFICATION_MAIL_MAX_ITEMS],
      )
      for (const row of rows) {
        items.set(row.user_id, [...(items.get(row.user_id) ?? []), notificationOf(row)])
        totals.set(row.user_id, Number(row.total))
      }
    }
    if (again.length > 0) {
      const { rows } = await this.db.query<{ user_id: string; total: number }>(
        `SELECT user_id, count(*)::int AS total FROM api.notifications WHERE user_id = ANY($1::text[]) AND mailed_at IS NULL GROUP BY user_id`,
        [again.map((row) => row.user_id)],
      )
      for (const row of rows) totals.set(row.user_id, Number(row.total))
    }
    const claims: NotificationMailClaim[] = []
    const newClaims: Array<{ user_id: string; claim_id: string; ids: string[] }> = []
    for (const row of [...again, ...fresh]) {
      const notifications = items.get(row.user_id) ?? []
      if (notifications.length === 0) {
        // Nothing left to tell (mailed meanwhile): the claim ends here.
        release.push(row.user_id)
        continue
      }
      const claimId = row.claim_id ?? randomUUID()
      if (row.claim_id === null) newClaims.push({ user_id: row.user_id, claim_id: claimId, ids: notifications.map((n) => n.id) })
      const user = byId.get(row.user_id)!
      claims.push({
        claimId,
        userId: row.user_id,
        email: verified.get(row.user_id)!,
        language: isLocale(user.language) ? user.language : DEFAULT_LOCALE,
        notifications,
        more: Math.max(0, (totals.get(row.user_id) ?? notifications.length) - notifications.length),
        unsubscribeToken: this.tokens.issue(row.user_id, user.language),
      })
    }
    if (newClaims.length > 0) {
      await this.db.query(
        `UPDATE api.notification_mail_accounts m SET claim_id = x.claim_id, claim_notifications = x.ids
           FROM jsonb_to_recordset($1::jsonb) AS x(user_id text, claim_id text, ids bigint[]) WHERE m.user_id = x.user_id`,
        [JSON.stringify(newClaims)],
      )
    }
    if (release.length > 0) {
      await this.db.query(`UPDATE api.notification_mail_accounts SET claimed_until = NULL, claim_id = NULL, claim_notifications = NULL WHERE user_id = ANY($1::text[])`, [release])
    }
    return claims
  }

  /**
   * The accounts with unmailed notifications a mail is due to now, in user id order, read a chunk
   * at a time from the unmailed notifications' index: at most SCAN_CHUNKS_MAX chunks per claim.
   */
  private async dueAccounts(limit: number, now: number): Promise<string[]> {
    const due: string[] = []
    // Each claim goes on from where the last one stopped, and wraps around at the end: the index
    // keeps the entries of notifications mailed a moment ago until they are vacuumed, and a scan
    // from the start every time would walk them all again (quadratic in a fan-out of 100,000).
    let cursor = this.scanCursor
    let wrapped = cursor === ''
    for (let chunk = 0; chunk < SCAN_CHUNKS_MAX && due.length < limit; chunk++) {
      const { rows } = await this.db.query<{ user_id: string; due: boolean }>(
        `SELECT n.user_id,
                (u.id IS NOT NULL AND u.notify <> 'off' AND u.disabled_at IS NULL
                 AND (u.notify = 'immediate' OR u.notified_at IS NULL OR u.notified_at <= $3)
                 AND (m.user_id IS NULL OR ((m.claimed_until IS NULL OR m.claimed_until <= $2) AND (m.skipped_until IS NULL OR m.skipped_until <= $2)))) AS due
           FROM (SELECT DISTINCT user_id FROM api.notifications WHERE mailed_at IS NULL AND user_id > $1 ORDER BY user_id LIMIT $4) n
           LEFT JOIN api.users u ON u.id = n.user_id
           LEFT JOIN api.notification_mail_accounts m ON m.user_id = n.user_id
          ORDER BY n.user_id`,
        [cursor, new Date(now), new Date(now - DAILY_DIGEST_MS), SCAN_CHUNK],
      )
      for (const row of rows) {
        if (due.length === limit) break
        if (row.due) due.push(row.user_id)
        cursor = row.user_id
      }
      if (rows.length < SCAN_CHUNK && due.length < limit) {
        if (wrapped) {
          cursor = ''
          break
        }
        wrapped = true
        cursor = ''
      }
    }
    this.scanCursor = cursor
    return due
  }

  /**
   * The worker wrote these mails to its outbox: the notifications each carried are mailed, the
   * account was notified now. A claim already acknowledged, or not this account's, changes nothing.
   * How many claims were acknowledged.
   */
  async acknowledge(claims: Array<{ claimId: string; userId: string }>): Promise<number> {
    if (claims.length === 0) return 0
    const now = new Date(this.now())
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ user_id: string; claim_notifications: string[] | null }>(
        `SELECT m.user_id, m.claim_notifications FROM api.notification_mail_accounts m JOIN unnest($1::text[], $2::text[]) AS x(user_id, claim_id)
             ON m.user_id = x.user_id AND m.claim_id = x.claim_id
           FOR UPDATE OF m`,
        [claims.map((c) => c.userId), claims.map((c) => c.claimId)],
      )
      if (rows.length === 0) return 0
      await tx.query(
        `UPDATE api.notification_mail_accounts SET claim_id = NULL, claim_notifications = NULL, claimed_until = LEAST(claimed_until, $2::timestamptz + $3::bigint * interval '1 millisecond')
          WHERE user_id = ANY($1::text[])`,
        [rows.map((row) => row.user_id), now, AFTER_ACK_MS],
      )
      if (rows.length === 0) return 0
      const userIds = rows.map((row) => row.user_id)
      const ids = rows.flatMap((row) => row.claim_notifications ?? [])
      await tx.query(`UPDATE api.notifications SET mailed_at = $2 FROM unnest($1::bigint[]) AS x(id) WHERE notifications.id = x.id AND mailed_at IS NULL`, [ids, now])
      await tx.query(`UPDATE api.users SET notified_at = $2 WHERE id = ANY($1::text[])`, [userIds, now])
      return rows.length
    })
  }

  /** The one-click unsubscribe: the account's notification mail is turned off, and what waits for a mail will not get one. */
  async unsubscribe(token: string): Promise<UnsubscribeCheck> {
    const checked = this.tokens.check(token)
    if (typeof checked === 'string') return checked
    const now = new Date(this.now())
    const changed = await this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(`UPDATE api.users SET notify = 'off' WHERE id = $1`, [checked.userId])
      if (rowCount === 0) return false
      await tx.query(`UPDATE api.notifications SET mailed_at = $2 WHERE user_id = $1 AND mailed_at IS NULL`, [checked.userId, now])
      return true
    })
    return changed ? checked : 'invalid'
  }
}
