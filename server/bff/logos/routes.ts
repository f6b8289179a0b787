import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { noneMatchHolds } from '../../api/files/http-content.ts'
import { BffLogoNotFound } from '../errors.ts'
import type { UpstreamApi } from '../upstream-api.ts'
import { editedProgramLogo, type LogoSet, type ProgramLogo } from './logo-set.ts'
import { OgCardRenderer } from './og-card.ts'
import { combinedLogosVersion, type UploadedLogos } from './uploaded-logos.ts'

// GET /logos/<program id>.svg — a program's logo; GET /og/programs/<program id>.png — its Open
// Graph card (decision 024; docs/API.md "Logos and link previews").

/**
 * The logos are our own drawings with no script, but an SVG opened on its own is a document: it
 * may load nothing, run nothing, and is sandboxed into an opaque origin should any of that change.
 */
export const LOGO_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; sandbox"

const YEAR_S = 365 * 24 * 60 * 60

/** A program id as the catalogue spells them (server/api/catalogue/routes.ts). */
const PROGRAM_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** No version: a logo drawn for a program the seed does not hold is checked again each time (its name may change). */
const UNVERSIONED = null

async function logoRoutes(app: FastifyInstance, opts: { logos: LogoSet; uploaded?: UploadedLogos; api?: UpstreamApi }): Promise<void> {
  const cards = new OgCardRenderer()

  /**
   * The program a path names (`<id><extension>`, the id exactly as the catalogue spells it), or a
   * 404. The set holds the seed's programs; one editors added since is asked of the API
   * (its shared, short-cached public answer) and gets a generated mark, with `fromSeed` false.
   */
  const find = async (request: FastifyRequest<{ Params: { '*': string } }>, extension: string): Promise<{ logo: ProgramLogo; fromSeed: boolean }> => {
    const file = request.params['*']
    const id = file.endsWith(extension) ? file.slice(0, -extension.length) : ''
    const logo = opts.logos.get(id)
    if (logo) return { logo, fromSeed: true }
    if (!opts.api || id.length > 100 || !PROGRAM_ID.test(id)) throw new BffLogoNotFound()
    const answer = await opts.api.request({ method: 'GET', path: `/api/programs/${id}`, headers: { accept: 'application/json', 'accept-language': 'en' } })
    if (answer.status !== 200) throw new BffLogoNotFound()
    const program = JSON.parse(answer.body.toString('utf8')) as { id: string; name: string; developer: { name: string }; publisher: { name: string } }
    return { logo: editedProgramLogo({ id: program.id, name: program.name, developer: program.developer.name, publisher: program.publisher.name }), fromSeed: false }
  }

  /**
   * Caching: a URL carrying the set's current version never changes — a year, immutable. Any other
   * (no version, an old one) is checked again each time, cheaply, by its ETag.
   */
  const cacheHeaders = (request: FastifyRequest, reply: FastifyReply, etag: string, version: string | null = opts.logos.version): boolean => {
    const { v } = request.query as { v?: unknown }
    reply.header('cache-control', version !== null && v === version ? `public, max-age=${YEAR_S}, immutable` : 'public, no-cache')
    reply.header('etag', etag)
    // Weak comparison: the body may be compressed on the way.
    return noneMatchHolds(request.headers['if-none-match'], etag)
  }

  const hidden = { schema: { hide: true } }

  app.get<{ Params: { '*': string } }>('/logos/*', hidden, async (request, reply) => {
    reply.header('content-security-policy', LOGO_CSP)
    // A logo an editor uploaded is served in place of the generated one (within a
    // second of the upload or its removal); the URL's version then covers the uploads too.
    if (opts.uploaded) {
      const index = await opts.uploaded.current()
      const file = request.params['*']
      const uploaded = file.endsWith('.svg') ? index.byProgram.get(file.slice(0, -'.svg'.length)) : undefined
      const version = combinedLogosVersion(opts.logos.version, index)
      if (uploaded) {
        const bytes = await opts.uploaded.file(uploaded)
        if (bytes) {
          reply.header('x-content-type-options', 'nosniff')
          if (cacheHeaders(request, reply, `W/"${uploaded.url.split('/').pop()}"`, version)) return reply.code(304).send()
          return reply.type(uploaded.contentType === 'image/svg+xml' ? 'image/svg+xml; charset=utf-8' : uploaded.contentType).send(bytes)
        }
      }
      const { logo, fromSeed } = await find(request, '.svg')
      if (cacheHeaders(request, reply, logo.etag, fromSeed ? version : UNVERSIONED)) return reply.code(304).send()
      return reply.type('image/svg+xml; charset=utf-8').send(logo.svg)
    }
    const { logo, fromSeed } = await find(request, '.svg')
    if (cacheHeaders(request, reply, logo.etag, fromSeed ? opts.logos.version : UNVERSIONED)) return reply.code(304).send()
    return reply.type('image/svg+xml; charset=utf-8').send(logo.svg)
  })

  app.get<{ Params: { '*': string } }>('/og/programs/*', hidden, async (request, reply) => {
    const { logo, fromSeed } = await find(request, '.png')
    // Made to be shown by other sites (link previews), unlike everything else we serve.
    reply.header('cross-origin-resource-policy', 'cross-origin')
    if (cacheHeaders(request, reply, logo.ogEtag, fromSeed ? opts.logos.version : UNVERSIONED)) return reply.code(304).send()
    const png = await cards.png(logo.ogEtag, logo.ogSvg)
    return reply.type('image/png').send(png)
  })
}

export default fp(logoRoutes, { name: 'logo-routes', encapsulate: true, dependencies: [] })
