import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { BffEmailRequired } from '../errors.ts'
import { normaliseLoginEmail, type BlockStatus, type LoginAttempts } from './login-attempts.ts'

// Where login-attempt blocking meets the sign-in API: before supertokens-node runs, the attempt is
// counted (or refused with 429 while blocked, so the password is never checked); once the SDK
// has its answer (settleSignIn, called from the sign-in API override), its status decides whether
// the attempt stays counted, clears the counter or is given back. Every outcome is logged with a
// hashed email, the IP and the time.

/** `/auth/signin` and its tenant form `/auth/<tenant>/signin`. */
const SIGN_IN_PATH = /^\/auth\/(?:[^/?]+\/)?signin(?:\?|$)/

declare module 'fastify' {
  interface FastifyRequest {
    loginAttempt?: { key: string; emailHash: string }
    /** This sign-in used up the last attempt: answered 429. */
    loginBlocked?: boolean
  }
}

function emailOf(body: unknown): string | undefined {
  const fields = (body as { formFields?: unknown } | undefined)?.formFields
  if (!Array.isArray(fields)) return undefined
  const value = (fields.find((field) => (field as { id?: unknown })?.id === 'email') as { value?: unknown } | undefined)?.value
  return typeof value === 'string' && value.trim() !== '' && value.length <= 512 ? value : undefined
}

const hashEmail = (email: string) => createHash('sha256').update(normaliseLoginEmail(email)).digest('hex').slice(0, 16)

function blockedBody(status: BlockStatus) {
  return { status: 'ACCOUNT_BLOCKED', message: status.message, blockedUntil: status.blockedUntil, attemptCount: status.attemptCount }
}

/** Hooks for the /auth scope; they run before the SDK's own. */
export function guardSignIn(scope: FastifyInstance, attempts: LoginAttempts): void {
  scope.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST' || !SIGN_IN_PATH.test(request.url)) return
    const email = emailOf(request.body)
    if (email === undefined) return // the SDK answers the field error
    const emailHash = hashEmail(email)
    const reservation = await attempts.reserve(email)
    if (!reservation.granted) {
      request.log.info({ event: 'sign-in', emailHash, ip: request.ip, at: new Date().toISOString(), outcome: 'blocked' }, 'sign-in refused: blocked')
      return reply.code(429).header('cache-control', 'no-store').send(blockedBody(reservation.status))
    }
    request.loginAttempt = { key: reservation.key, emailHash }
  })

  // The SDK answers with 200 whatever the status; a sign-in that ends blocked is a 429.
  scope.addHook('onSend', (request, reply, payload, done) => {
    if (request.loginBlocked) reply.code(429).header('cache-control', 'no-store')
    done(null, payload)
  })
}

/**
 * Called by the sign-in API once the SDK has its answer, before it is sent: the status decides
 * whether the attempt stays counted, clears the counter or is given back. Answers the blocked
 * body when this very attempt used up the last one.
 */
export async function settleSignIn(attempts: LoginAttempts, request: FastifyRequest, status: string): Promise<ReturnType<typeof blockedBody> | null> {
  const attempt = request.loginAttempt
  if (!attempt) return null
  request.loginAttempt = undefined
  const log = (outcome: string) => request.log.info({ event: 'sign-in', emailHash: attempt.emailHash, ip: request.ip, at: new Date().toISOString(), outcome }, `sign-in ${outcome}`)
  if (status === 'OK') {
    await attempts.succeeded(attempt.key)
    log('success')
    return null
  }
  if (status === 'WRONG_CREDENTIALS_ERROR') {
    const after = await attempts.failed(attempt.key)
    log('wrong-credentials')
    if (!after.blocked) return null
    request.loginBlocked = true
    return blockedBody(after)
  }
  // No password verdict (field error, sign-in not allowed, a failure): the attempt is given back.
  await attempts.release(attempt.key)
  log(status.toLowerCase())
  return null
}

export function blockStatusRoute(app: FastifyInstance, attempts: LoginAttempts): void {
  app.get<{ Querystring: { email?: string } }>('/api/login-attempts/check-block-status', async (request, reply) => {
    const email = typeof request.query.email === 'string' ? request.query.email : ''
    if (email.trim() === '' || email.length > 512) throw new BffEmailRequired()
    reply.header('cache-control', 'no-store')
    return attempts.check(email)
  })
}
