import type { FastifyInstance } from 'fastify'
import supertokens from 'supertokens-node'
import { BffEmailRequired } from '../errors.ts'

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
