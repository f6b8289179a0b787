import type { FastifyInstance } from 'fastify'
import supertokens from 'supertokens-node'
import EmailVerification from 'supertokens-node/recipe/emailverification'
import { Type } from 'typebox'
import { guardedWrite } from '../csrf.ts'
import type { RoleChanges } from '../../http/role-changes.ts'
import { relayUpstream, upstreamHeaders } from '../routes/api-proxy.ts'
import { checkOperatorAccess } from './operator-access.ts'
import { MAIL_MAY_WAIT } from './recipes/context.ts'

// The operator console's "resend verification": support sends an account whose address
// is not verified a new link. The mail is the BFF's to send (the SDK's email verification, in the
// account's language, through the outbox), so the BFF answers this one operator path itself,
// after its own permission check (operator-access.ts, as for every operator route it proxies). It
// asks the API's route of the same path first, which checks the caller's permission (accounts:
// write), that the account exists and is not verified, and writes the audit entry; only on its
// yes is the mail sent. A mail server that does not answer leaves the mail in the outbox, sent
// when it answers: the audit entry never says "resent" of a mail that is dropped.

export function operatorVerificationRoute(app: FastifyInstance, options: { appOrigin: string; rateLimitMax: number; roleChanges: RoleChanges }): void {
  app.post<{ Params: { id: string } }>(
    '/api/operator/users/:id/verification/resend',
    {
      ...guardedWrite(options.appOrigin, options.rateLimitMax),
      schema: {
        description: 'Sends the account a new link to verify its email address (accounts:write). 409 API_ALREADY_VERIFIED when it is verified; 404 API_USER_NOT_FOUND. Audited `user.verification.resend`.',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 202: Type.Object({ sent: Type.Literal(true) }, { description: 'The mail is sent, or waits in the outbox until the mail server answers.' }) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      // The BFF's own permission check, as for every operator route it proxies (operator-access.ts).
      const accessToken = await checkOperatorAccess(request, reply, options.roleChanges)
      const response = await app.upstreamApi.request({
        method: 'POST',
        path: `/api/operator/users/${encodeURIComponent(request.params.id)}/verification/resend`,
        headers: { ...upstreamHeaders(request), authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: '{}',
      })
      if (response.status !== 200) return relayUpstream(request, reply, response)
      const target = JSON.parse(response.body.toString('utf8')) as { userId: string; recipeUserId: string; email: string }
      await EmailVerification.sendEmailVerificationEmail('public', target.userId, supertokens.convertToRecipeUserId(target.recipeUserId), target.email, { [MAIL_MAY_WAIT]: true })
      request.log.info({ event: 'verification-resent' }, 'an operator sent an account a new verification link')
      return reply.code(202).send({ sent: true as const })
    },
  )
}
