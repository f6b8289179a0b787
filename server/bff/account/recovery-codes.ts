import { createHash, randomInt } from 'node:crypto'
import type { Database } from '../../db/database.ts'
import { RECOVERY_CODE_COUNT } from '../../../shared/constants.ts'
import type { SecondFactorAttempts } from '../auth/second-factor-attempts.ts'

// Recovery codes of the TOTP factor: a set of one-time codes shown once when issued —
// when the first authenticator is confirmed, and on request from the profile — usable instead of
// a TOTP code. Only their SHA-256 is stored: each code carries 80 random bits, far beyond what a
// guess or a brute force of a leaked hash can cover, so a slow hash would add nothing. Wrong codes
// count toward the second factor's one attempt limit, with wrong TOTP codes
// (second-factor-attempts.ts).

/** RFC 4648 base32: no 0, 1, 8 or 9, so nothing to mistake for O, I, L or B. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const CODE_LENGTH = 16

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

export class RecoveryCodes {
  constructor(
    private readonly db: Database,
    /** The second factor's one attempt limit, shared with TOTP codes. */
    private readonly attempts: SecondFactorAttempts,
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
    await this.attempts.forget(userId)
  }

  /**
   * Spends one code, once: the attempt is counted first (refused while the second factor is
   * locked), then the code's row is deleted — of two requests with the same code only one deletes
   * it. A code that works ends the run of wrong codes; the wrong attempt that reaches the limit
   * answers BLOCKED.
   */
  async redeem(userId: string, code: string): Promise<Redemption> {
    const attempt = await this.attempts.reserve(userId)
    if (!attempt.granted) return { status: 'BLOCKED', retryAfterMs: attempt.retryAfterMs }
    const normalised = normaliseRecoveryCode(code)
    if (normalised.length === CODE_LENGTH && [...normalised].every((char) => ALPHABET.includes(char))) {
      const spent = await this.db.query('DELETE FROM bff.recovery_codes WHERE user_id = $1 AND code_hash = $2 RETURNING user_id', [userId, hashOf(userId, normalised)])
      if (spent.rowCount > 0) {
        await this.attempts.succeeded(userId)
        return { status: 'OK', remaining: await this.remaining(userId) }
      }
    }
    const { maxFailures } = this.attempts.limits
    if (attempt.failures >= maxFailures) return { status: 'BLOCKED', retryAfterMs: attempt.retryAfterMs }
    return { status: 'INVALID', attemptsRemaining: maxFailures - attempt.failures }
  }
}
