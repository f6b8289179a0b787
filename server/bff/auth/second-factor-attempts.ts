import { randomUUID } from 'node:crypto'
import type { Database } from '../../db/database.ts'

// One attempt limit for the second factor, whichever way it is tried: a TOTP code
// (sign-in's /auth/totp/verify, a device's confirmation, and every route that asks for a current
// code — all through the TOTP recipe's verifyTOTP and verifyDevice, see supertokens.ts) and a
// recovery code (recovery-codes.ts). TOTP_MAX_ATTEMPTS wrong codes in a row, of either kind, lock
// both for TOTP_COOLDOWN_S after the newest. It lives in the BFF because only the BFF sees both
// kinds: the auth core counts TOTP codes alone (AUTH-CORE.md §5.7) and keeps doing so — its limit
// is the same or looser, so it never lets through what this one refuses. The count is kept in
// bff.recovery_code_attempts (migration 004; the table kept its name when TOTP codes joined it).

export interface SecondFactorLimits {
  /** Wrong codes in a row that lock the second factor. */
  maxFailures: number
  /** How long the lock lasts after the newest counted attempt. */
  cooldownMs: number
}

/** One attempt, counted as wrong until it is settled: granted, or refused while locked. */
export type Attempt =
  | { granted: true; grantId: string; failures: number; retryAfterMs: number }
  | { granted: false; retryAfterMs: number }

/** Carried by the core's INVALID_TOTP_ERROR and LIMIT_REACHED_ERROR (AUTH-CORE.md §3.7). */
type Counts = { currentNumberOfFailedAttempts: number; maxNumberOfFailedAttempts: number }

interface AttemptRow {
  failures: number
  last_failure_at: string | number
  granted: boolean
}

export class SecondFactorAttempts {
  private lastSweep = 0

  constructor(
    private readonly db: Database,
    readonly limits: SecondFactorLimits,
    /** Decides cool-downs; tests move it. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one attempt before its code is checked, unless the account is locked: fewer than the
   * limit counted, or the newest older than the cool-down (a new run starts). One upsert, so
   * parallel guesses cannot exceed the limit.
   */
  async reserve(userId: string): Promise<Attempt> {
    const now = this.now()
    await this.sweep(now)
    const grant = randomUUID()
    const stale = 'a.last_failure_at <= $2 - $4'
    const granted = `(${stale} OR a.failures < $5)`
    const { rows } = await this.db.query<AttemptRow>(
      `INSERT INTO bff.recovery_code_attempts AS a (user_id, failures, last_failure_at, grant_id)
       VALUES ($1, 1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET
         failures = CASE WHEN ${stale} THEN 1 WHEN a.failures < $5 THEN a.failures + 1 ELSE a.failures END,
         last_failure_at = CASE WHEN ${granted} THEN $2 ELSE a.last_failure_at END,
         grant_id = CASE WHEN ${granted} THEN $3 ELSE a.grant_id END
       RETURNING failures, last_failure_at, grant_id = $3 AS granted`,
      [userId, now, grant, this.limits.cooldownMs, this.limits.maxFailures],
    )
    const row = rows[0]!
    const retryAfterMs = Math.max(1, Number(row.last_failure_at) + this.limits.cooldownMs - now)
    return row.granted ? { granted: true, grantId: grant, failures: row.failures, retryAfterMs } : { granted: false, retryAfterMs }
  }

  /** A right code of a factor the account already trusted: the run of wrong ones ends. */
  async succeeded(userId: string): Promise<void> {
    await this.db.query('DELETE FROM bff.recovery_code_attempts WHERE user_id = $1', [userId])
  }

  /**
   * The attempt was not a wrong code after all — nothing was checked (the core's own lock, an
   * unknown device, an error), or it confirmed a new device — so it is taken back, while it is
   * still the newest.
   */
  async release(userId: string, attempt: Attempt): Promise<void> {
    if (!attempt.granted) return
    await this.db.query('UPDATE bff.recovery_code_attempts SET failures = failures - 1 WHERE user_id = $1 AND grant_id = $2 AND failures > 0', [userId, attempt.grantId])
  }

  /** The factor is gone (its last device removed, the account deleted): so is its count. */
  async forget(userId: string): Promise<void> {
    await this.succeeded(userId)
  }

  /**
   * A TOTP code checked by the auth core under this limit, in the SDK's answer shapes: while
   * locked, LIMIT_REACHED_ERROR with the time left and the core is not asked; a wrong code is
   * INVALID_TOTP_ERROR with the attempts counted here (recovery codes included). `checked` says
   * whether an OK answer checked the code — only a right code ends the run; anything else that was
   * not a wrong code is taken back.
   */
  async checkTotp<A extends { status: string }>(userId: string, check: () => Promise<A>, checked: (answer: A) => boolean): Promise<A> {
    const max = this.limits.maxFailures
    const attempt = await this.reserve(userId)
    // One of the answers both recipe functions have (the SDK types it without the counts the core sends).
    if (!attempt.granted) return { status: 'LIMIT_REACHED_ERROR', retryAfterMs: attempt.retryAfterMs, currentNumberOfFailedAttempts: max, maxNumberOfFailedAttempts: max } as unknown as A
    let answer: A
    try {
      answer = await check()
    } catch (error) {
      await this.release(userId, attempt)
      throw error
    }
    if (answer.status === 'INVALID_TOTP_ERROR') {
      const core = answer as A & Counts
      return { ...core, currentNumberOfFailedAttempts: Math.max(core.currentNumberOfFailedAttempts, attempt.failures), maxNumberOfFailedAttempts: Math.min(core.maxNumberOfFailedAttempts, max) }
    }
    if (answer.status === 'OK' && checked(answer)) await this.succeeded(userId)
    else await this.release(userId, attempt)
    return answer
  }

  /** Forgets counts past their cool-down, at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000 && now >= this.lastSweep) return
    this.lastSweep = now
    await this.db.query('DELETE FROM bff.recovery_code_attempts WHERE last_failure_at <= $1', [now - this.limits.cooldownMs])
  }
}
