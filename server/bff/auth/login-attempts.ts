import { createHash, randomUUID } from 'node:crypto'
import type { Database } from '../../db/database.ts'

// Login-attempt blocking (DESIGN.md §4.8, SECURITY.md "Sign-in abuse"). Every password check is
// counted before it starts, in one atomic statement, so parallel wrong attempts cannot run more
// checks than the limit; a success clears the counter; reaching the limit with a wrong password
// blocks the email for LOGIN_BLOCK_MINUTES. The same email in other case or with spaces is the
// same counter. Unknown emails are counted and answered exactly like known ones.

export interface LoginLimits {
  maxAttempts: number
  windowMinutes: number
  blockMinutes: number
}

export interface BlockStatus {
  attemptsRemaining: number
  blocked: boolean
  /** ISO time the block ends; null when not blocked. */
  blockedUntil: string | null
  attemptCount: number
  message: string
}

export type Reservation = { granted: true; key: string } | { granted: false; status: BlockStatus }

interface Row {
  failures: number
  window_started_at: string | number
  blocked_until: string | number | null
}

export function normaliseLoginEmail(email: string): string {
  return email.trim().toLowerCase()
}

const keyOf = (email: string) => createHash('sha256').update(normaliseLoginEmail(email)).digest('hex')

export function blockedMessage(until: Date): string {
  return `Too many failed sign-in attempts. Your account is blocked until ${until.toISOString().slice(0, 16).replace('T', ' ')} UTC; try again after that.`
}

export class LoginAttempts {
  private readonly windowMs: number
  private readonly blockMs: number
  private lastSweep = 0

  constructor(
    private readonly db: Database,
    private readonly limits: LoginLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = limits.windowMinutes * 60_000
    this.blockMs = limits.blockMinutes * 60_000
  }

  private status(row: Row | undefined, now: number): BlockStatus {
    const blockedUntil = row?.blocked_until != null ? Number(row.blocked_until) : null
    const inWindow = row !== undefined && Number(row.window_started_at) > now - this.windowMs
    if (blockedUntil !== null && blockedUntil > now) {
      const until = new Date(blockedUntil)
      return { attemptsRemaining: 0, blocked: true, blockedUntil: until.toISOString(), attemptCount: row!.failures, message: blockedMessage(until) }
    }
    const attemptCount = inWindow && blockedUntil === null ? row!.failures : 0
    const attemptsRemaining = Math.max(0, this.limits.maxAttempts - attemptCount)
    if (attemptsRemaining === 0) {
      // Every allowed check is under way right now: refused like a block that ends with the window.
      const until = new Date(Number(row!.window_started_at) + this.windowMs)
      return { attemptsRemaining: 0, blocked: true, blockedUntil: until.toISOString(), attemptCount, message: blockedMessage(until) }
    }
    const message =
      attemptCount === 0
        ? 'No failed sign-in attempts.'
        : `${attemptsRemaining} ${attemptsRemaining === 1 ? 'attempt' : 'attempts'} remaining before the account is blocked for ${this.limits.blockMinutes} minutes.`
    return { attemptsRemaining, blocked: false, blockedUntil: null, attemptCount, message }
  }

  async check(email: string): Promise<BlockStatus> {
    const { rows } = await this.db.query<Row>('SELECT failures, window_started_at, blocked_until FROM bff.login_attempts WHERE email_key = $1', [keyOf(email)])
    return this.status(rows[0], this.now())
  }

  /** Counts one password check before it runs, or refuses it when the email is blocked. */
  async reserve(email: string): Promise<Reservation> {
    const key = keyOf(email)
    const now = this.now()
    await this.sweep(now)
    // Granted unless blocked now or every allowed check of the window is taken; a new window
    // starts when the old one ran out or a block ended. The grant id says whether this very call
    // was granted (RETURNING sees only the new row).
    const grant = randomUUID()
    const blocked = 'COALESCE(a.blocked_until > $2, false)'
    const fresh = '(a.blocked_until IS NOT NULL OR a.window_started_at <= $2 - $3)'
    const granted = `(NOT ${blocked} AND (${fresh} OR a.failures < $4))`
    const { rows } = await this.db.query<Row & { granted: boolean }>(
      `INSERT INTO bff.login_attempts AS a (email_key, failures, window_started_at, blocked_until, updated_at, grant_id)
       VALUES ($1, 1, $2, NULL, $2, $5)
       ON CONFLICT (email_key) DO UPDATE SET
         failures = CASE WHEN NOT ${granted} THEN a.failures WHEN ${fresh} THEN 1 ELSE a.failures + 1 END,
         window_started_at = CASE WHEN ${granted} AND ${fresh} THEN $2 ELSE a.window_started_at END,
         blocked_until = CASE WHEN ${blocked} THEN a.blocked_until ELSE NULL END,
         updated_at = $2,
         grant_id = CASE WHEN ${granted} THEN $5 ELSE a.grant_id END
       RETURNING failures, window_started_at, blocked_until, grant_id = $5 AS granted`,
      [key, now, this.windowMs, this.limits.maxAttempts, grant],
    )
    const row = rows[0]!
    if (row.granted) return { granted: true, key }
    return { granted: false, status: this.status(row, now) }
  }

  /** The password was wrong: the check stays counted; the last allowed one blocks the email. */
  async failed(key: string): Promise<BlockStatus> {
    const now = this.now()
    const { rows } = await this.db.query<Row>(
      `UPDATE bff.login_attempts SET
         blocked_until = CASE WHEN failures >= $2 THEN $3::bigint ELSE blocked_until END,
         updated_at = $4
       WHERE email_key = $1
       RETURNING failures, window_started_at, blocked_until`,
      [key, this.limits.maxAttempts, now + this.blockMs, now],
    )
    return this.status(rows[0], now)
  }

  /** A successful sign-in clears the counter. */
  async succeeded(key: string): Promise<void> {
    await this.db.query('DELETE FROM bff.login_attempts WHERE email_key = $1', [key])
  }

  /** The account with this email was deleted (issue 11): nothing of its counter is kept. */
  async forget(email: string): Promise<void> {
    await this.db.query('DELETE FROM bff.login_attempts WHERE email_key = $1', [keyOf(email)])
  }

  /** The check did not happen (the core failed, sign-in not allowed): it is given back. */
  async release(key: string): Promise<void> {
    await this.db.query('UPDATE bff.login_attempts SET failures = GREATEST(failures - 1, 0) WHERE email_key = $1 AND blocked_until IS NULL', [key])
  }

  /**
   * The account's email changed (issue 11): failures counted and a block set against the old
   * address follow the account to the new one, so changing the email cannot end a block early.
   * Where both addresses have a counter the stricter value of each field wins.
   */
  async carryOver(fromEmail: string, toEmail: string): Promise<void> {
    await this.db.query(
      `INSERT INTO bff.login_attempts AS a (email_key, failures, window_started_at, blocked_until, updated_at, grant_id)
       SELECT $2, failures, window_started_at, blocked_until, $3, grant_id FROM bff.login_attempts WHERE email_key = $1
       ON CONFLICT (email_key) DO UPDATE SET
         failures = GREATEST(a.failures, EXCLUDED.failures),
         window_started_at = GREATEST(a.window_started_at, EXCLUDED.window_started_at),
         blocked_until = GREATEST(a.blocked_until, EXCLUDED.blocked_until),
         updated_at = $3`,
      [keyOf(fromEmail), keyOf(toEmail), this.now()],
    )
  }

  /** Forgets counters nobody touched for longer than a window and a block, at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return
    this.lastSweep = now
    await this.db.query('DELETE FROM bff.login_attempts WHERE updated_at < $1', [now - this.windowMs - this.blockMs])
  }
}
