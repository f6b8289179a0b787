import { createHash, randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { Database } from '../../db/database.ts'

// Login-attempt blocking (DESIGN.md §4.8, SECURITY.md "Sign-in abuse"). Every password check is
// counted before it starts, in one atomic statement, so parallel wrong attempts cannot run more
// checks than the limit; a success clears the counter; reaching the limit with wrong passwords
// blocks the email for LOGIN_BLOCK_MINUTES. The same email in other case or with spaces is the
// same counter. Unknown emails are counted and answered exactly like known ones.
//
// Checks in flight are not failures: ten parallel sign-ins with the right password
// used to take the five allowed checks and tell the other five "blocked until <in 15 minutes>",
// and one wrong password among five checks in flight blocked the email. The counter now knows how
// many of its checks have no verdict yet (`pending`): only known wrong passwords block and are
// reported, and a check held back only because every allowed one is under way waits for them
// (up to LOGIN_WAIT_MS), then goes on, learns of a real block, or is answered "in progress".

export interface LoginLimits {
  maxAttempts: number
  windowMinutes: number
  blockMinutes: number
  /** How long a check held back by checks in flight waits for them; 5 s when not given. */
  waitMs?: number
}

export interface BlockStatus {
  attemptsRemaining: number
  blocked: boolean
  /** ISO time the block ends; null when not blocked. */
  blockedUntil: string | null
  attemptCount: number
  message: string
}

/**
 * `key` is this check's handle for failed/succeeded/release. Refused: `inProgress` when only
 * checks in flight held it back past the wait (the email is not blocked), else blocked.
 */
export type Reservation = { granted: true; key: string } | { granted: false; inProgress: boolean; status: BlockStatus }

interface Row {
  failures: number
  window_started_at: string | number
  blocked_until: string | number | null
  pending: number
  pending_since: string | number
  counter_id: string
}

const COLUMNS = 'failures, window_started_at, blocked_until, pending, pending_since, counter_id'

/** A check with no verdict this long after the latest grant never ended (its instance died): a failure. */
export const PENDING_STALE_MS = 60_000
/** How often a waiting check looks again, for verdicts given by other instances. */
const POLL_MS = 200
/** Checks of one email waiting in this process at most; more are answered "in progress" at once. */
const MAX_WAITERS = 20
const DEFAULT_WAIT_MS = 5_000

export const IN_PROGRESS_MESSAGE = 'A sign-in for this account is already in progress, try again'

export function normaliseLoginEmail(email: string): string {
  return email.trim().toLowerCase()
}

const keyOf = (email: string) => createHash('sha256').update(normaliseLoginEmail(email)).digest('hex')

// A check's handle names the email's key and the counter it was counted in.
const handleOf = (emailKey: string, counterId: string) => `${emailKey}/${counterId}`
function parseHandle(handle: string): [emailKey: string, counterId: string] {
  const slash = handle.indexOf('/')
  return slash < 0 ? [handle, ''] : [handle.slice(0, slash), handle.slice(slash + 1)]
}

export function blockedMessage(until: Date): string {
  return `Too many failed sign-in attempts. Your account is blocked until ${until.toISOString().slice(0, 16).replace('T', ' ')} UTC; try again after that.`
}

export class LoginAttempts {
  private readonly windowMs: number
  private readonly blockMs: number
  private readonly waitMs: number
  private lastSweep = 0
  /** Checks waiting in this process, by email key: woken by a verdict given here. */
  private readonly waiters = new Map<string, Set<() => void>>()

  constructor(
    private readonly db: Database,
    private readonly limits: LoginLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = limits.windowMinutes * 60_000
    this.blockMs = limits.blockMinutes * 60_000
    this.waitMs = limits.waitMs ?? DEFAULT_WAIT_MS
  }

  private status(row: Row | undefined, now: number): BlockStatus {
    const blockedUntil = row?.blocked_until != null ? Number(row.blocked_until) : null
    const inWindow = row !== undefined && Number(row.window_started_at) > now - this.windowMs
    if (blockedUntil !== null && blockedUntil > now) {
      const until = new Date(blockedUntil)
      return { attemptsRemaining: 0, blocked: true, blockedUntil: until.toISOString(), attemptCount: row!.failures, message: blockedMessage(until) }
    }
    // Checks still in flight are not failures (yet).
    const pending = row && Number(row.pending_since) > now - PENDING_STALE_MS ? row.pending : 0
    const attemptCount = inWindow && blockedUntil === null ? Math.max(0, row!.failures - pending) : 0
    const attemptsRemaining = Math.max(0, this.limits.maxAttempts - attemptCount)
    if (attemptsRemaining === 0) {
      // Only when checks that never ended are counted as failures: refused like a block that ends with the window.
      const until = new Date(Number(row!.window_started_at) + this.windowMs)
      return { attemptsRemaining: 0, blocked: true, blockedUntil: until.toISOString(), attemptCount, message: blockedMessage(until) }
    }
    const message =
      attemptCount === 0
        ? 'No failed sign-in attempts.'
        : `${attemptsRemaining} ${attemptsRemaining === 1 ? 'attempt' : 'attempts'} remaining before the account is blocked for ${this.limits.blockMinutes} minutes.`
    return { attemptsRemaining, blocked: false, blockedUntil: null, attemptCount, message }
  }

  private async statusOf(emailKey: string): Promise<BlockStatus> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM bff.login_attempts WHERE email_key = $1`, [emailKey])
    return this.status(rows[0], this.now())
  }

  async check(email: string): Promise<BlockStatus> {
    return this.statusOf(keyOf(email))
  }

  /**
   * Counts one password check before it runs, or refuses it when the email is blocked. Held back
   * only because every allowed check is under way, it waits for their verdicts (up to the wait;
   * `onWait` is told each time it starts waiting) and tries again.
   */
  async reserve(email: string, options: { onWait?: () => void } = {}): Promise<Reservation> {
    const key = keyOf(email)
    const deadline = performance.now() + this.waitMs
    for (;;) {
      const now = this.now()
      const { row, granted } = await this.tryReserve(key, now)
      if (granted) return { granted: true, key: handleOf(key, row.counter_id) }
      const status = this.status(row, now)
      if (status.blocked) return { granted: false, inProgress: false, status }
      const left = deadline - performance.now()
      const waiting = this.waiters.get(key)
      if (left <= 0 || (waiting?.size ?? 0) >= MAX_WAITERS) return { granted: false, inProgress: true, status: { ...status, message: IN_PROGRESS_MESSAGE } }
      await this.nextVerdict(key, Math.min(left, POLL_MS), options.onWait)
    }
  }

  private async tryReserve(key: string, now: number): Promise<{ row: Row; granted: boolean }> {
    await this.sweep(now)
    // Granted unless blocked now or every allowed check of the window is taken; a new window (a
    // new counter) starts when the old one ran out or a block ended. The grant id says whether
    // this very call was granted (RETURNING sees only the new row).
    const grant = randomUUID()
    const blocked = 'COALESCE(a.blocked_until > $2, false)'
    const fresh = '(a.blocked_until IS NOT NULL OR a.window_started_at <= $2 - $3)'
    const granted = `(NOT ${blocked} AND (${fresh} OR a.failures < $4))`
    const pending = 'CASE WHEN a.pending_since > $2 - $7::bigint THEN a.pending ELSE 0 END'
    const { rows } = await this.db.query<Row & { granted: boolean }>(
      `INSERT INTO bff.login_attempts AS a (email_key, failures, window_started_at, blocked_until, updated_at, grant_id, pending, pending_since, counter_id)
       VALUES ($1, 1, $2, NULL, $2, $5, 1, $2, $6)
       ON CONFLICT (email_key) DO UPDATE SET
         failures = CASE WHEN NOT ${granted} THEN a.failures WHEN ${fresh} THEN 1 ELSE a.failures + 1 END,
         window_started_at = CASE WHEN ${granted} AND ${fresh} THEN $2 ELSE a.window_started_at END,
         blocked_until = CASE WHEN ${blocked} THEN a.blocked_until ELSE NULL END,
         updated_at = $2,
         grant_id = CASE WHEN ${granted} THEN $5 ELSE a.grant_id END,
         pending = CASE WHEN NOT ${granted} THEN a.pending WHEN ${fresh} THEN 1 ELSE ${pending} + 1 END,
         pending_since = CASE WHEN ${granted} THEN $2 ELSE a.pending_since END,
         counter_id = CASE WHEN ${granted} AND ${fresh} THEN $6 ELSE a.counter_id END
       RETURNING ${COLUMNS}, grant_id = $5 AS granted`,
      [key, now, this.windowMs, this.limits.maxAttempts, grant, randomUUID(), PENDING_STALE_MS],
    )
    const row = rows[0]!
    return { row, granted: row.granted }
  }

  /** Resolves at the next verdict given in this process for the email, or after `ms` (other instances). */
  private nextVerdict(key: string, ms: number, onWait?: () => void): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(key)
      if (!set) this.waiters.set(key, (set = new Set()))
      const wake = () => {
        clearTimeout(timer)
        set.delete(wake)
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      set.add(wake)
      onWait?.()
    })
  }

  private wakeWaiters(key: string): void {
    for (const wake of [...(this.waiters.get(key) ?? [])]) wake()
  }

  /**
   * The password was wrong: the check stays counted as a failure; the failure that makes the
   * known wrong passwords reach the limit blocks the email. A check counted in a counter that has
   * since been cleared (a success) or replaced (a new window) changes nothing.
   */
  async failed(handle: string): Promise<BlockStatus> {
    const [key, counter] = parseHandle(handle)
    const now = this.now()
    const left = `GREATEST((CASE WHEN pending_since > $4::bigint - $6::bigint THEN pending ELSE 0 END) - 1, 0)`
    const { rows } = await this.db.query<Row>(
      `UPDATE bff.login_attempts SET
         pending = ${left},
         blocked_until = CASE WHEN blocked_until > $4 THEN blocked_until WHEN failures - ${left} >= $2 THEN $3::bigint ELSE blocked_until END,
         updated_at = $4
       WHERE email_key = $1 AND counter_id = $5
       RETURNING ${COLUMNS}`,
      [key, this.limits.maxAttempts, now + this.blockMs, now, counter, PENDING_STALE_MS],
    )
    this.wakeWaiters(key)
    return rows[0] ? this.status(rows[0], now) : this.statusOf(key)
  }

  /** A successful sign-in clears the counter its check was counted in. */
  async succeeded(handle: string): Promise<void> {
    const [key, counter] = parseHandle(handle)
    await this.db.query('DELETE FROM bff.login_attempts WHERE email_key = $1 AND counter_id = $2', [key, counter])
    this.wakeWaiters(key)
  }

  /** The account with this email was deleted, or its password reset through the mailed link: nothing of its counter is kept. */
  async forget(email: string): Promise<void> {
    await this.db.query('DELETE FROM bff.login_attempts WHERE email_key = $1', [keyOf(email)])
  }

  /** The check did not happen (the core failed, sign-in not allowed): it is given back. */
  async release(handle: string): Promise<void> {
    const [key, counter] = parseHandle(handle)
    await this.db.query(
      `UPDATE bff.login_attempts SET
         failures = CASE WHEN blocked_until IS NULL THEN GREATEST(failures - 1, 0) ELSE failures END,
         pending = GREATEST(pending - 1, 0)
       WHERE email_key = $1 AND counter_id = $2`,
      [key, counter],
    )
    this.wakeWaiters(key)
  }

  /**
   * The account's email changed: failures counted and a block set against the old
   * address follow the account to the new one, so changing the email cannot end a block early.
   * Where both addresses have a counter the stricter value of each field wins. Checks in flight
   * on the old address are failures on the new one.
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
