import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { NOTIFICATION_TYPES } from '../../../shared/catalogue/living.ts'
import { Watch, WatchEvents } from '../../../shared/catalogue/living-schemas.ts'
import { NoContent } from '../../http/openapi.ts'
import { ApiCatalogueNotFound, ApiProgramRetired, ApiValidation } from '../errors.ts'
import { listNotifications, markRead, NOTIFICATIONS_PAGE_DEFAULT, NOTIFICATIONS_PAGE_MAX } from './notifications.ts'
import { listWatches, removeWatch, setWatch } from './watches.ts'
import { answerPrivately, type SessionGuard } from '../session-guard.ts'
import { Id } from '../catalogue/routes.ts'
import { StringEnum } from '../../../shared/web/string-enum.ts'

// Watchlists and notifications (docs/API.md "Watches and notifications"): what of a
// program an account wants to hear of, and what it has been told. The user's own, like every
// /api/user route: private answers, a fully signed-in session.

/** A notification's id: a positive integer, sent as a string. */
const NotificationId = Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'A notification\'s id.' })
const Notification = Type.Object({
  id: NotificationId,
  type: StringEnum(NOTIFICATION_TYPES),
  programId: Type.String(),
  at: Type.String({ description: 'ISO time of what happened.' }),
  read: Type.Boolean(),
  data: Type.Object({}, { additionalProperties: true, description: 'Per type (shared/catalogue/living.ts NotificationData): release { version, date, notesUrl?, source, programName }; price { before, after, programName }; licence { before, after, programName }; search { searchId, searchName, query, programName }.' }),
})
const Unread = Type.Integer({ minimum: 0, description: 'How many of the account\'s notifications are unread.' })
/** How many ids one POST /api/user/notifications/read takes. */
const READ_IDS_MAX = 500

async function watchRoutes(app: FastifyInstance, opts: { guard: SessionGuard }): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db
  const { authenticate, activeUser } = opts.guard
  answerPrivately(app)

  api.get('/api/user/watches', { preHandler: authenticate('complete'), schema: { response: { 200: Type.Object({ items: Type.Array(Watch, { description: 'The newest first.' }) }) } } }, async (request) => {
    const user = await activeUser(request)
    return { items: await listWatches(db, user.id) }
  })

  api.put(
    '/api/user/watches/:programId',
    {
      preHandler: authenticate('complete'),
      schema: { params: Type.Object({ programId: Id }), body: Type.Object({ events: WatchEvents }, { additionalProperties: false }), response: { 200: Watch } },
    },
    async (request) => {
      const user = await activeUser(request)
      const { programId } = request.params
      const result = await setWatch(db, user.id, programId, request.body.events)
      if (result.outcome === 'no-program') throw new ApiCatalogueNotFound('program', programId)
      if (result.outcome === 'retired') throw new ApiProgramRetired(programId)
      return result.watch
    },
  )

  api.delete('/api/user/watches/:programId', { preHandler: authenticate('complete'), schema: { params: Type.Object({ programId: Id }), response: { 204: NoContent } } }, async (request, reply) => {
    const user = await activeUser(request)
    await removeWatch(db, user.id, request.params.programId)
    return reply.code(204).send()
  })

  api.get(
    '/api/user/notifications',
    {
      preHandler: authenticate('complete'),
      schema: {
        querystring: Type.Object(
          {
            before: Type.Optional(Type.String({ ...NotificationId, description: 'Only notifications older than this one (the last id of the page before).' })),
            limit: Type.Integer({ minimum: 1, maximum: NOTIFICATIONS_PAGE_MAX, default: NOTIFICATIONS_PAGE_DEFAULT }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Notification, { description: 'The newest first.' }), unread: Unread }) },
      },
    },
    async (request) => {
      const user = await activeUser(request)
      return listNotifications(db, user.id, { before: request.query.before, limit: request.query.limit })
    },
  )

  api.post(
    '/api/user/notifications/read',
    {
      preHandler: authenticate('complete'),
      schema: {
        body: Type.Object(
          {
            ids: Type.Optional(Type.Array(NotificationId, { maxItems: READ_IDS_MAX, description: 'These notifications (of the account; others\' ids change nothing).' })),
            all: Type.Optional(Type.Literal(true, { description: 'Every notification of the account.' })),
          },
          { additionalProperties: false, description: '{ ids } or { all: true }.' },
        ),
        response: { 200: Type.Object({ unread: Unread }) },
      },
    },
    async (request) => {
      const user = await activeUser(request)
      const { ids, all } = request.body
      if ((ids === undefined) === (all === undefined)) throw new ApiValidation('Give either ids (the notifications to mark read) or all: true.')
      return { unread: await markRead(db, user.id, all ? { all } : { ids: ids ?? [] }) }
    },
  )
}

export default fp(watchRoutes, { name: 'notifications-watch-routes', encapsulate: true, decorators: { fastify: ['db'] } })
