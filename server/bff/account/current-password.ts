import type { FastifyRequest } from 'fastify'
import EmailPassword from 'supertokens-node/recipe/emailpassword'
import { BffWrongPassword } from '../errors.ts'
import type { LoginAttempts } from '../auth/login-attempts.ts'

// The current password asked again before a change to the account (its password, its
// email), checked like a sign-in: counted by login-attempt blocking before the check, so a
// session alone cannot be used to guess the password, and refused outright while the account's
// email is blocked.

export interface CurrentPasswordCheck {
  attempts: LoginAttempts
  request: FastifyRequest
  tenantId: string
  /** The email of the account's email-and-password login method: the counter's key, as at sign-in. */
  email: string
  password: string
  /** The log line's event name and what it says was refused. */
  event: string
  refused: string
  /** The 429 to answer while blocked, with the block's message. */
  blocked: (message: string) => Error & { retryAfter?: number }
}

/** Resolves when the password is right; throws BffWrongPassword, or the blocked error past the limit. */
export async function checkCurrentPassword(check: CurrentPasswordCheck): Promise<void> {
  const reservation = await check.attempts.reserve(check.email)
  if (!reservation.granted) throw Object.assign(check.blocked(reservation.status.message), { retryAfter: secondsUntil(reservation.status.blockedUntil) })
  const checked = await EmailPassword.verifyCredentials(check.tenantId, check.email, check.password)
  if (checked.status !== 'OK') {
    const after = await check.attempts.failed(reservation.key)
    check.request.log.info({ event: check.event, outcome: 'wrong-password' }, `${check.refused} refused: wrong current password`)
    if (after.blocked) throw Object.assign(check.blocked(after.message), { retryAfter: secondsUntil(after.blockedUntil) })
    throw new BffWrongPassword()
  }
  await check.attempts.succeeded(reservation.key)
}

function secondsUntil(iso: string | null): number {
  return iso ? Math.max(1, Math.ceil((Date.parse(iso) - Date.now()) / 1000)) : 60
}
