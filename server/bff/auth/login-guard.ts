import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { BffEmailRequired } from '../errors.ts'
import { normaliseLoginEmail, type BlockStatus, type LoginAttempts } from './login-attempts.ts'

// Where login-attempt blocking meets the sign-in API. The reservation is made inside the SDK's
// own sign-in API (reserveSignIn, called from the signInPOST override), not by a hook guessing
// from the URL: supertokens-node routes many spellings to that API (trailing slashes, a tenant
// prefix, queries, dot segments, backslashes) and hands it the email after trimming and
// validating it, so whatever reaches the password check has been counted, keyed exactly as the
// core will look the email up. Once the SDK has its answer (settleSignIn), its status
// decides whether the attempt stays counted, clears the counter or is given back. Every outcome is
// logged with a hashed email, the IP and the time.

declare module 'fastify' {
  interface FastifyRequest {
    loginAttempt?: { key: string; emailHash: string }
    /** This sign-in was refused or used up the last attempt: answered 429. */
    loginBlocked?: boolean
    /** This sign-in was held back by others in flight for the email past the wait: 429, retry in a second. */
    loginInProgress?: boolean
  }
}

const hashEmail = (email: string) => createHash('sha256').update(normaliseLoginEmail(email)).digest('hex').slice(0, 16)

export type BlockedBody = ReturnType<typeof blockedBody>
export type InProgressBody = ReturnType<typeof inProgressBody>

function blockedBody(status: BlockStatus) {
  return { status: 'ACCOUNT_BLOCKED' as const, message: status.message, blockedUntil: status.blockedUntil, attemptCount: status.attemptCount }
}

/** Not a block: no blockedUntil, nothing counted; the same sign-in may be sent again at once. */
function inProgressBody(status: BlockStatus) {
  return { status: 'SIGN_IN_IN_PROGRESS' as const, message: status.message }
}

/** The /auth scope's hook that turns a blocked sign-in into a 429; the SDK answers 200 whatever the status. */
export function guardSignIn(scope: FastifyInstance): void {
  scope.addHook('onSend', (request, reply, payload, done) => {
    if (request.loginBlocked) reply.code(429).header('cache-control', 'no-store')
    else if (request.loginInProgress) reply.code(429).header('retry-after', '1').header('cache-control', 'no-store')
    done(null, payload)
  })
}

/**
 * Called by the sign-in API with the email as the SDK will use it (trimmed, validated), before
 * the password is checked: counts the check, or answers the blocked body when the email is
 * blocked. A sign-in held back because every allowed check is under way (a double click, several
 * tabs) waits for them, and past LOGIN_WAIT_MS answers "in progress" — never a block that does not
 * exist.
 */
export async function reserveSignIn(attempts: LoginAttempts, request: FastifyRequest, email: string): Promise<BlockedBody | InProgressBody | null> {
  const emailHash = hashEmail(email)
  const reservation = await attempts.reserve(email)
  if (!reservation.granted && reservation.inProgress) {
    request.log.info({ event: 'sign-in', emailHash, ip: request.ip, at: new Date().toISOString(), outcome: 'in-progress' }, 'sign-in held back: others in flight')
    request.server.metrics?.signIns.inc({ outcome: 'in-progress' })
    request.loginInProgress = true
    return inProgressBody(reservation.status)
  }
  if (!reservation.granted) {
    request.log.info({ event: 'sign-in', emailHash, ip: request.ip, at: new Date().toISOString(), outcome: 'blocked' }, 'sign-in refused: blocked')
    request.server.metrics?.signIns.inc({ outcome: 'blocked' })
    request.loginBlocked = true
    return blockedBody(reservation.status)
  }
  request.loginAttempt = { key: reservation.key, emailHash }
  return null
}

/**
 * Called by the sign-in API once the SDK has its answer, before it is sent: the status decides
 * whether the attempt stays counted, clears the counter or is given back. Answers the blocked
 * body when this very attempt used up the last one.
 */
export async function settleSignIn(attempts: LoginAttempts, request: FastifyRequest, status: string): Promise<BlockedBody | null> {
  const attempt = request.loginAttempt
  if (!attempt) return null
  request.loginAttempt = undefined
  const log = (outcome: string) => {
    request.log.info({ event: 'sign-in', emailHash: attempt.emailHash, ip: request.ip, at: new Date().toISOString(), outcome }, `sign-in ${outcome}`)
    request.server.metrics?.signIns.inc({ outcome })
  }
  if (status === 'OK') {
    await attempts.succeeded(attempt.key)
    log('success')
    return null
  }
  if (status === 'WRONG_CREDENTIALS_ERROR') {
    const after = await attempts.failed(attempt.key)
    log('wrong-credentials')
    if (!after.blocked) return null
    request.server.metrics?.loginBlocks.inc()
    request.loginBlocked = true
    return blockedBody(after)
  }
  // No password verdict (field error, sign-in not allowed, a failure): the attempt is given back.
  await attempts.release(attempt.key)
  log(status.toLowerCase())
  return null
}

/**
 * A password reset through the emailed link succeeded: whoever set the new password
 * reads the account's mailbox, which is what a block waits for. The email's counter goes — its
 * wrong passwords and its block — keyed as sign-in keys it (any case or padding is the same
 * counter). The password is already changed: a counter that cannot be cleared now is logged and
 * ends with its time, rather than turning the reset into an error.
 */
export async function unblockSignIn(attempts: LoginAttempts, request: FastifyRequest, email: string): Promise<void> {
  const emailHash = hashEmail(email)
  try {
    const before = await attempts.check(email)
    await attempts.forget(email)
    if (before.attemptCount > 0) request.log.info({ event: 'sign-in-unblocked', emailHash, wasBlocked: before.blocked, at: new Date().toISOString() }, 'a password reset cleared the sign-in attempts')
  } catch (err) {
    request.log.warn({ err, event: 'sign-in-unblocked', emailHash }, 'a password reset could not clear the sign-in attempts')
  }
}

/** The answer of GET /api/login-attempts/check-block-status (BlockStatus). */
const BlockStatusSchema = Type.Object({
  attemptsRemaining: Type.Integer(),
  blocked: Type.Boolean(),
  blockedUntil: Type.Union([Type.String(), Type.Null()], { description: 'ISO time the block ends; null when not blocked.' }),
  attemptCount: Type.Integer(),
  message: Type.String(),
})

export function blockStatusRoute(app: FastifyInstance, attempts: LoginAttempts): void {
  app.get<{ Querystring: { email?: string } }>('/api/login-attempts/check-block-status', { schema: { response: { 200: BlockStatusSchema } } }, async (request, reply) => {
    // Trimmed first, as sign-in trims it: a padded address has the status of the address.
    const email = typeof request.query.email === 'string' ? request.query.email.trim() : ''
    if (email === '' || email.length > 512) throw new BffEmailRequired()
    reply.header('cache-control', 'no-store')
    return attempts.check(email)
  })
}
