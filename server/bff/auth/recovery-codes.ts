import { createHash, randomInt, randomUUID } from 'node:crypto'
import type { Database } from '../../db/database.ts'
import { RECOVERY_CODE_COUNT } from '../../../shared/constants.ts'

// Recovery codes of the TOTP factor (issue 11): a set of one-time codes shown once when issued —
// when the first authenticator is confirmed, and on request from the profile — usable instead of
// a TOTP code. Only their SHA-256 is stored: each code carries 80 random bits, far beyond what a
// guess or a brute force of a leaked hash can cover, so a slow hash would add nothing. Wrong codes
// are limited like the TOTP factor's: TOTP_MAX_ATTEMPTS in a row lock the account's recovery codes
// for TOTP_COOLDOWN_S after the newest.

/** RFC 4648 base32: no 0, 1, 8 or 9, so nothing to mistake for O, I, L or B. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const CODE_LENGTH = 16

export interface RecoveryLimits {
  /** Wrong codes in a row that lock the account's recovery codes. */
  maxFailures: number
  /** How long the lock lasts after the newest counted attempt. */
  cooldownMs: number
}

export type Redemption =
  | { status: 'OK'; remaining: number }
  | { status: 'INVALID'; attemptsRemaining: number }
  | { status: 'BLOCKED'; retryAfterMs: number }

/** The code as compared: case, spaces and dashes do not matter. */
export function normaliseRecoveryCode(code: string): string {
  return code.replace(/[\s-]+/g, '').toUpperCase()
}

/** xxxx-xxxx-xxxx-xxxx, lower case: easier to read back and type than capitals. */
function formatCode(raw: string): string {
  return raw.toLowerCase().replace(/(.{4})(?=.)/g, '$1-')
}

function hashOf(userId: string, normalised: string): string {
  return createHash('sha256').update(`${userId}\n${normalised}`).digest('hex')
}

interface AttemptRow {
  failures: number
  last_failure_at: string | number
  granted: boolean
}

export class RecoveryCodes {
  private lastSweep = 0

  constructor(
    private readonly db: Database,
    private readonly limits: RecoveryLimits,
    /** Decides cool-downs; tests move it. */
    private readonly now: () => number = Date.now,
  ) {}

  /** A new set of `count` codes for the account, replacing any earlier set; the only time they are readable. */
  async issue(userId: string, count = RECOVERY_CODE_COUNT): Promise<string[]> {
    const codes = Array.from({ length: count }, () => Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''))
    const now = this.now()
    await this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM bff.recovery_codes WHERE user_id = $1', [userId])
      for (const code of codes) await tx.query('INSERT INTO bff.recovery_codes (user_id, code_hash, created_at) VALUES ($1, $2, $3)', [userId, hashOf(userId, code), now])
    })
    return codes.map(formatCode)
  }

  async remaining(userId: string): Promise<number> {
    const { rows } = await this.db.query<{ count: string | number }>('SELECT count(*) AS count FROM bff.recovery_codes WHERE user_id = $1', [userId])
    return Number(rows[0]?.count ?? 0)
  }

  /** The authenticator is gone: its recovery codes and their attempt count with it. */
  async clear(userId: string): Promise<void> {
    await this.db.query('DELETE FROM bff.recovery_codes WHERE user_id = $1', [userId])
    await this.db.query('DELETE FROM bff.recovery_code_attempts WHERE user_id = $1', [userId])
  }

  /**
   * Spends one code, once: the attempt is counted first (refused while locked), then the code's
   * row is deleted — of two requests with the same code only one deletes it. A code that works
   * clears the count; the wrong attempt that reaches the limit answers BLOCKED.
   */
  async redeem(userId: string, code: string): Promise<Redemption> {
    const now = this.now()
    await this.sweep(now)
    const attempt = await this.reserve(userId, now)
    if (!attempt.granted) return { status: 'BLOCKED', retryAfterMs: this.retryAfterMs(attempt, now) }
    const normalised = normaliseRecoveryCode(code)
    if (normalised.length === CODE_LENGTH && [...normalised].every((char) => ALPHABET.includes(char))) {
      const spent = await this.db.query('DELETE FROM bff.recovery_codes WHERE user_id = $1 AND code_hash = $2 RETURNING user_id', [userId, hashOf(userId, normalised)])
      if (spent.rowCount > 0) {
        await this.db.query('DELETE FROM bff.recovery_code_attempts WHERE user_id = $1', [userId])
        return { status: 'OK', remaining: await this.remaining(userId) }
      }
    }
    if (attempt.failures >= this.limits.maxFailures) return { status: 'BLOCKED', retryAfterMs: this.retryAfterMs(attempt, now) }
    return { status: 'INVALID', attemptsRemaining: this.limits.maxFailures - attempt.failures }
  }

  /**
   * Counts one attempt before it is checked, unless the account is locked: fewer than the limit
   * counted, or the newest older than the cool-down (a new run starts). The grant id tells whether
   * this very call was granted.
   */
  private async reserve(userId: string, now: number): Promise<AttemptRow> {
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
    return rows[0]!
  }

  private retryAfterMs(row: AttemptRow, now: number): number {
    return Math.max(1, Number(row.last_failure_at) + this.limits.cooldownMs - now)
  }

  /** Forgets counts past their cool-down, at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000 && now >= this.lastSweep) return
    this.lastSweep = now
    await this.db.query('DELETE FROM bff.recovery_code_attempts WHERE last_failure_at <= $1', [now - this.limits.cooldownMs])
  }
}
