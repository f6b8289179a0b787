import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { SAVED_SEARCH_NAME_MAX, SAVED_SEARCH_QUERY_MAX, SAVED_SEARCHES_MAX } from '../../../shared/catalogue/living.ts'
import { SavedSearch } from '../../../shared/catalogue/living-schemas.ts'
import { NoContent } from '../../http/openapi.ts'
import { ApiSavedSearchNotFound, ApiValidation } from '../errors.ts'
import { createSavedSearch, deleteSavedSearch, listSavedSearches } from './saved-searches.ts'
import { answerPrivately, type SessionGuard } from '../session-guard.ts'

// Saved searches (docs/API.md "Saved searches"): the signed-in account's own, private
// like everything under /api/user. What they match, and the notifications, are saved-searches.ts's.


async function savedSearchRoutes(app: FastifyInstance, opts: { guard: SessionGuard }): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const { authenticate, activeUser } = opts.guard
  answerPrivately(app)

  api.get('/api/user/saved-searches', { preHandler: authenticate('complete'), schema: { response: { 200: Type.Object({ items: Type.Array(SavedSearch, { description: 'Oldest first.' }) }) } } }, async (request) => {
    const user = await activeUser(request)
    return { items: await listSavedSearches(app.db, user.id) }
  })

  api.post(
    '/api/user/saved-searches',
    {
      preHandler: authenticate('complete'),
      schema: {
        description: `Saves a listing's query (at most ${SAVED_SEARCHES_MAX} per account). What it matches now is known; a program that matches it later becomes a notification (type "search").`,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: SAVED_SEARCH_NAME_MAX }),
            query: Type.String({ maxLength: SAVED_SEARCH_QUERY_MAX, description: 'q, category, licenseType, developer, publisher, price, language… as on GET /api/programs.' }),
          },
          { additionalProperties: false },
        ),
        response: { 201: SavedSearch },
      },
    },
    async (request, reply) => {
      const user = await activeUser(request)
      const name = request.body.name.trim()
      if (name === '') throw new ApiValidation('name must not be blank')
      const saved = await createSavedSearch(app.db, app.catalogue, user, name, request.body.query)
      request.log.info({ event: 'saved-search-created' }, 'a search was saved')
      return reply.code(201).send(saved)
    },
  )

  api.delete(
    '/api/user/saved-searches/:id',
    { preHandler: authenticate('complete'), schema: { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }), response: { 204: NoContent } } },
    async (request, reply) => {
      const user = await activeUser(request)
      if (!(await deleteSavedSearch(app.db, user.id, request.params.id))) throw new ApiSavedSearchNotFound()
      return reply.code(204).send()
    },
  )
}

export default fp(savedSearchRoutes, { name: 'notifications-saved-search-routes', encapsulate: true, decorators: { fastify: ['catalogue', 'db'] } })
