import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { bearerMatches } from '../../operator-token.ts'
import { ApiUnauthorized, ApiUnsubscribeLinkExpired, ApiUnsubscribeLinkInvalid } from '../errors.ts'
import { NOTIFICATION_MAIL_CLAIM_MAX, type NotificationMail } from './mail.ts'

// Notification mail (docs/API.md "Notification mail and one-click unsubscribe"):
// - the BFF's mail worker's routes, not under /api (the BFF never proxies them), open to a caller
//   with the auth core's API key — which every BFF and API is given — or the operator token;
// - the one-click unsubscribe, public: the signed token is the whole of the permission.

const ClaimSchema = Type.Object({ claimId: Type.String({ maxLength: 64 }), userId: Type.String({ maxLength: 200 }) }, { additionalProperties: false })

async function notificationMailRoutes(app: FastifyInstance, opts: { mail: NotificationMail; secrets: string[] }): Promise<void> {
  const { mail } = opts
  const secrets = opts.secrets.filter((secret) => secret !== '')
  await app.register(async (plugin) => {
    const internal = plugin.withTypeProvider<TypeBoxTypeProvider>()
    internal.addHook('onRequest', async (request) => {
      if (!secrets.some((secret) => bearerMatches(secret, request.headers.authorization))) throw new ApiUnauthorized()
    })
    internal.post(
      '/internal/notification-mail/claim',
      { schema: { body: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: NOTIFICATION_MAIL_CLAIM_MAX }) }, { additionalProperties: false }) } },
      async (request) => ({ claims: await mail.claim(request.body.limit) }),
    )
    internal.post(
      '/internal/notification-mail/queued',
      { schema: { body: Type.Object({ claims: Type.Array(ClaimSchema, { maxItems: NOTIFICATION_MAIL_CLAIM_MAX }) }, { additionalProperties: false }) } },
      async (request) => ({ acknowledged: await mail.acknowledge(request.body.claims) }),
    )
  })

  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/api/notifications/unsubscribe',
    {
      schema: {
        summary: 'Turn notification mail off with the link of a notification mail (one-click, RFC 8058)',
        description:
          "No session: the token of the mail's List-Unsubscribe link is the permission. Sets the account's `notify` to `off`. A token that is not ours is 400 API_UNSUBSCRIBE_LINK_INVALID, one issued more than 60 days ago 400 API_UNSUBSCRIBE_LINK_EXPIRED; neither changes anything.",
        tags: ['Notifications'],
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ notify: Type.Literal('off') }) },
      },
    },
    async (request, reply) => {
      const outcome = await mail.unsubscribe(request.body.token)
      if (outcome === 'invalid') throw new ApiUnsubscribeLinkInvalid()
      if (outcome === 'expired') throw new ApiUnsubscribeLinkExpired()
      request.log.info({ event: 'notification-mail-unsubscribed' }, "an account's notification mail was turned off with a mail's link")
      reply.header('cache-control', 'no-store')
      return { notify: 'off' as const }
    },
  )
}

export default fp(notificationMailRoutes, { name: 'notifications-mail-routes', encapsulate: true })
