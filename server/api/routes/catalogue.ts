import etag from '@fastify/etag'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type, type TUnsafe } from 'typebox'
import {
  DEFAULT_PAGE_SIZE,
  LIBRARY_FILTER_TABS,
  LICENSE_TYPE_IDS,
  MAX_PAGE_SIZE,
  PROGRAM_CATEGORIES,
  API_SORT_OPTIONS,
} from '../../../shared/catalogue.ts'
import { getOrganisation, getProgram, listCategories, listLicenseTypes } from '../catalogue-repository.ts'
import { ApiCatalogueNotFound } from '../errors.ts'

const SLUG = '^[a-z0-9]+(?:-[a-z0-9]+)*$'
const Slug = Type.String({ pattern: SLUG, maxLength: 100 })
export const Id = Type.String({ minLength: 1, maxLength: 100 })

/** A plain JSON-schema enum, so a rejected value is answered with the list of allowed ones. */
function StringEnum<T extends string>(values: readonly T[], options: { default?: T } = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })
}

export const ProgramListQuery = Type.Object(
  {
    category: Type.Optional(StringEnum(['all', ...PROGRAM_CATEGORIES])),
    developer: Type.Optional(Slug),
    publisher: Type.Optional(Slug),
    licenseType: Type.Optional(StringEnum(LICENSE_TYPE_IDS)),
    price: StringEnum(LIBRARY_FILTER_TABS, { default: 'all' }),
    q: Type.Optional(Type.String({ maxLength: 100 })),
    language: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
    sort: StringEnum(API_SORT_OPTIONS, { default: 'namePopular' }),
    page: Type.Integer({ minimum: 1, maximum: 10_000, default: 1 }),
    pageSize: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  },
  { additionalProperties: false },
)

/** Catalogue answers depend on no user: browsers and the BFF may keep them a minute, revalidating by ETag. */
const PUBLIC_CACHE = 'public, max-age=60, stale-while-revalidate=300'

export default async function catalogueRoutes(plugin: FastifyInstance, opts: { forSale: boolean }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  await app.register(etag, { weak: true })
  app.addHook('onSend', async (request, reply) => {
    if (request.method === 'GET' && reply.statusCode === 200) reply.header('cache-control', PUBLIC_CACHE)
  })

  const index = app.catalogue
  app.get('/api/programs', { schema: { querystring: ProgramListQuery } }, async (request) => index.list(request.query))

  app.get('/api/programs/:id', { schema: { params: Type.Object({ id: Id }) } }, async (request) => {
    const program = await getProgram(app.db, request.params.id)
    if (!program) throw new ApiCatalogueNotFound('program', request.params.id)
    // Issue 13: a paid program can be bought here when card checkout is configured.
    return { ...program, forSale: opts.forSale && program.price !== null }
  })

  app.get('/api/categories', async () => listCategories(app.db))
  app.get('/api/categories/:id', { schema: { params: Type.Object({ id: Type.String({ maxLength: 100 }) }) } }, async (request) => {
    const category = (await listCategories(app.db)).find((c) => c.id === request.params.id)
    if (!category) throw new ApiCatalogueNotFound('category', request.params.id)
    return category
  })

  app.get('/api/license-types', async () => listLicenseTypes(app.db))
  app.get('/api/license-types/:type', { schema: { params: Type.Object({ type: Type.String({ maxLength: 100 }) }) } }, async (request) => {
    const licenseType = (await listLicenseTypes(app.db)).find((l) => l.id === request.params.type)
    if (!licenseType) throw new ApiCatalogueNotFound('licence type', request.params.type)
    return licenseType
  })

  for (const kind of ['developer', 'publisher'] as const) {
    app.get(`/api/${kind}s/:id`, { schema: { params: Type.Object({ id: Id }) } }, async (request) => {
      const organisation = await getOrganisation(app.db, kind, (request.params as { id: string }).id)
      if (!organisation) throw new ApiCatalogueNotFound(kind, (request.params as { id: string }).id)
      return organisation
    })
  }
}
