import fp from 'fastify-plugin'
import etag from '@fastify/etag'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { StringEnum } from '../../../shared/web/string-enum.ts'
import { ProgramDetail, ProgramPage } from '../../../shared/catalogue/program-schemas.ts'
import { Release } from '../../../shared/catalogue/living-schemas.ts'
import {
  DEFAULT_PAGE_SIZE,
  LIBRARY_FILTER_TABS,
  MAX_PAGE_SIZE,
  PROGRAM_CATEGORIES,
  API_SORT_OPTIONS,
} from '../../../shared/catalogue/catalogue.ts'
import { LICENSE_TYPE_IDS, PLATFORMS } from '../../../shared/catalogue/vocabulary.ts'
import { negotiateLocale, type Locale } from '../../../shared/locales.ts'
import { getOrganisation, getProgram, listCategories, listLicenseTypes } from './repository.ts'
import { ApiCatalogueNotFound, ApiProgramRetired } from '../errors.ts'
import { publicScreenshots } from './media-repository.ts'
import { listReleases } from './release-history.ts'
import { freeAlternatives } from './free-alternatives.ts'
import { recentReleasesRoute } from './recent-releases.ts'

const SLUG = '^[a-z0-9]+(?:-[a-z0-9]+)*$'
const Slug = Type.String({ pattern: SLUG, maxLength: 100 })
export const Id = Type.String({ minLength: 1, maxLength: 100 })


export const ProgramListQuery = Type.Object(
  {
    category: Type.Optional(StringEnum(['all', ...PROGRAM_CATEGORIES])),
    developer: Type.Optional(Slug),
    publisher: Type.Optional(Slug),
    licenseType: Type.Optional(StringEnum(LICENSE_TYPE_IDS)),
    price: StringEnum(LIBRARY_FILTER_TABS, { default: 'all' }),
    q: Type.Optional(Type.String({ maxLength: 100 })),
    language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
    platform: Type.Optional(StringEnum(PLATFORMS, { description: 'Only the programs that run there.' })),
    sort: StringEnum(API_SORT_OPTIONS, { default: 'namePopular' }),
    page: Type.Integer({ minimum: 1, maximum: 10_000, default: 1 }),
    pageSize: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  },
  { additionalProperties: false },
)

// The answers (shared/catalogue/catalogue.ts's shapes). They are also what is serialised: a field not named
// here is not sent.

/** A program's release history (shared/catalogue/living.ts `Release`). */
const ReleaseList = Type.Object({
  items: Type.Array(Release, { description: 'Newest first: by date, then by when it was recorded. The first is the program\'s `version` and `updated`.' }),
})

const Category = Type.Object({ id: StringEnum(PROGRAM_CATEGORIES), count: Type.Integer({ description: 'Programs in the category.' }) })
const LicenseTypeCount = Type.Object({ id: StringEnum(LICENSE_TYPE_IDS), isFree: Type.Boolean(), count: Type.Integer({ description: 'Programs of the type.' }) })
const Organisation = Type.Object({ id: Type.String(), name: Type.String(), website: Type.Union([Type.String(), Type.Null()]), programCount: Type.Integer() })

/**
 * Catalogue answers depend on no user, but editors change the catalogue (public within
 * 2 s): a browser keeps one a second, then revalidates by ETag. The BFF keeps them longer, keyed
 * by the catalogue version each answer names (CATALOGUE_VERSION_HEADER, upstream-api.ts).
 */
const PUBLIC_CACHE = 'public, max-age=1'

/** The catalogue version an answer was made from (at least): the BFF keeps it only under that version. */
export const CATALOGUE_VERSION_HEADER = 'x-catalogue-version'

/**
 * The language of an answer's program texts: the best match of Accept-Language among
 * the interface languages, else English — the BFF sends exactly one. The answer names it
 * (Content-Language) and says it depends on it (Vary), so no cache hands one language's texts to
 * a visitor of another; each program's `textLanguage` says whether it was translated.
 */
export function textLocale(request: FastifyRequest, reply: FastifyReply): Locale {
  const locale = negotiateLocale(undefined, request.headers['accept-language'])
  reply.header('content-language', locale)
  reply.header('vary', 'Accept-Language')
  return locale
}

async function catalogueRoutes(plugin: FastifyInstance, opts: { forSale: boolean }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  await app.register(etag, { weak: true })
  const index = app.catalogue
  // Read before the answer's data: the data is at least as new as the version it is sent with.
  const versions = new WeakMap<FastifyRequest, string | null>()
  app.addHook('preHandler', async (request) => {
    versions.set(request, await index.currentVersion())
  })
  app.addHook('onSend', async (request, reply) => {
    if (request.method === 'GET' && reply.statusCode === 200) {
      reply.header('cache-control', PUBLIC_CACHE)
      const version = versions.get(request)
      if (version) reply.header(CATALOGUE_VERSION_HEADER, version)
    }
  })

  app.get('/api/programs', { schema: { querystring: ProgramListQuery, response: { 200: ProgramPage } } }, async (request, reply) =>
    index.list(request.query, undefined, textLocale(request, reply)),
  )

  app.get('/api/programs/:id', { schema: { params: Type.Object({ id: Id }), response: { 200: ProgramDetail } } }, async (request, reply) => {
    const locale = textLocale(request, reply)
    const program = await getProgram(app.db, request.params.id, locale)
    if (!program) throw new ApiCatalogueNotFound('program', request.params.id)
    // A retired program is gone from the catalogue; said so, not "never existed".
    if (program.retired) throw new ApiProgramRetired(request.params.id)
    // A paid program can be bought here when card checkout is configured.
    return {
      ...program,
      forSale: opts.forSale && program.price !== null,
      screenshots: await publicScreenshots(app.db, program.id, locale),
      externalIds: program.externalIds ?? {},
      alternatives: await freeAlternatives(app.db, program, locale),
    }
  })

  app.get('/api/programs/:id/releases', { schema: { params: Type.Object({ id: Id }), response: { 200: ReleaseList } } }, async (request) => {
    const { rows } = await app.db.query<{ retired: boolean }>('SELECT retired_at IS NOT NULL AS retired FROM api.programs WHERE id = $1', [request.params.id])
    if (!rows[0]) throw new ApiCatalogueNotFound('program', request.params.id)
    if (rows[0].retired) throw new ApiProgramRetired(request.params.id)
    return { items: await listReleases(app.db, request.params.id) }
  })

  // The newest releases, for the Atom feeds.
  recentReleasesRoute(app)

  app.get('/api/categories', { schema: { response: { 200: Type.Array(Category) } } }, async () => listCategories(app.db))
  app.get('/api/categories/:id', { schema: { params: Type.Object({ id: Type.String({ maxLength: 100 }) }), response: { 200: Category } } }, async (request) => {
    const category = (await listCategories(app.db)).find((c) => c.id === request.params.id)
    if (!category) throw new ApiCatalogueNotFound('category', request.params.id)
    return category
  })

  app.get('/api/license-types', { schema: { response: { 200: Type.Array(LicenseTypeCount) } } }, async () => listLicenseTypes(app.db))
  app.get('/api/license-types/:type', { schema: { params: Type.Object({ type: Type.String({ maxLength: 100 }) }), response: { 200: LicenseTypeCount } } }, async (request) => {
    const licenseType = (await listLicenseTypes(app.db)).find((l) => l.id === request.params.type)
    if (!licenseType) throw new ApiCatalogueNotFound('licence type', request.params.type)
    return licenseType
  })

  for (const kind of ['developer', 'publisher'] as const) {
    app.get(`/api/${kind}s/:id`, { schema: { params: Type.Object({ id: Id }), response: { 200: Organisation } } }, async (request) => {
      const organisation = await getOrganisation(app.db, kind, (request.params as { id: string }).id)
      if (!organisation) throw new ApiCatalogueNotFound(kind, (request.params as { id: string }).id)
      return organisation
    })
  }
}

export default fp(catalogueRoutes, { name: 'catalogue-routes', encapsulate: true, decorators: { fastify: ['catalogue', 'db'] } })
