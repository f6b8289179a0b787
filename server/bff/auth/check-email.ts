import type { FastifyInstance } from 'fastify'
import supertokens from 'supertokens-node'
import Session from 'supertokens-node/recipe/session'
import { BffEmailRequired } from '../errors.ts'
import type { MailOutbox } from '../mail/mail-outbox.ts'

// GET /api/user/check-email?email= (spec §7): whether an account uses this email, for the
// sign-up form. The auth core knows; the BFF asks it through the SDK. Answered by the BFF, so the
// proxy to the product API never sees it.

export function checkEmailRoute(app: FastifyInstance): void {
  app.get<{ Querystring: { email?: string } }>('/api/user/check-email', { schema: { response: { 200: { type: 'object', required: ['success'], properties: { success: { type: 'boolean' } } } } } }, async (request, reply) => {
    const email = typeof request.query.email === 'string' ? request.query.email.trim().toLowerCase() : ''
    if (email === '' || email.length > 512) throw new BffEmailRequired()
    const users = await supertokens.listUsersByAccountInfo('public', { email })
    reply.header('cache-control', 'no-store')
    return { success: users.length > 0 }
  })
}

/**
 * GET /api/user/verification-mail: whether the signed-in account's verification mail
 * went out — 'queued' while the outbox still tries, 'failed' once it gave up — so /check-email can
 * say so and offer a resend. Asked by the session, not by an address: the anonymous check above
 * must not tell anyone whether mail to an address is waiting. Unverified sessions may ask (they
 * are the ones who need it).
 */
export function verificationMailRoute(app: FastifyInstance, outbox: Pick<MailOutbox, 'verificationState'>): void {
  app.get(
    '/api/user/verification-mail',
    { schema: { response: { 200: { type: 'object', required: ['mail'], properties: { mail: { type: 'string', enum: ['sent', 'queued', 'failed'] } } } } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      const session = await Session.getSession(request, reply, { overrideGlobalClaimValidators: () => [] })
      return { mail: await outbox.verificationState(session.getUserId()) }
    },
  )
}
