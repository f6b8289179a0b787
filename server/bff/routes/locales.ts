import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { LOCALE_MESSAGES_MAX_AGE_S } from '../../../shared/constants.ts'
import type { LocaleCatalog } from '../locales.ts'
import { BffNotFound } from '../errors.ts'

/**
 * Per-locale message files at a hashed path (spec §7), cached for 24 hours (spec §9). A request
 * for an older hash still gets today's text, but must not be cached as if it were that version.
 */
async function localeRoutes(app: FastifyInstance, opts: { catalog: LocaleCatalog }): Promise<void> {
  app.get<{ Params: { hash: string; lng: string; ns: string } }>('/locales/:hash/:lng/:ns', async (request, reply) => {
    const { hash, lng } = request.params
    const ns = request.params.ns.replace(/\.json$/, '')
    const body = opts.catalog.files.get(`${lng}/${ns}`)
    if (body === undefined) throw new BffNotFound('GET', request.url)
    reply.header('cache-control', hash === opts.catalog.hash ? `public, max-age=${LOCALE_MESSAGES_MAX_AGE_S}, immutable` : 'no-cache')
    return reply.type('application/json; charset=utf-8').send(body)
  })
}

export default fp(localeRoutes, { name: 'locale-routes', encapsulate: true, dependencies: [] })
