import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { JsonObject } from '../body-schema.ts'
import { APP_ID_PATTERN } from '../apps.ts'
import type { CoreServices } from '../services.ts'
import { BadRequest, query } from '../input.ts'
import { parseCoreConfig, toCoreConfig } from '../settings.ts'
import { getUser, removeUser, usersByAccountInfo, usersByPrimaryIds } from '../users.ts'

// App-level endpoints (AUTH-CORE.md §3.1, §3.9, §6): version, health, keys, users, tenant and apps.

/** Only the CDI whose semantics this core implements. */
export const CDI_VERSIONS = ['5.4']

/** GET /users pages: the real core's default and largest page size. */
const USERS_DEFAULT_LIMIT = 100
const USERS_MAX_LIMIT = 500

/** A search tag's terms: split at ";", trimmed, empty ones dropped; none at all is no filter (undefined). */
function searchTerms(value: string | undefined, lowercase: boolean): string[] | undefined {
  const terms = (value ?? '')
    .split(';')
    .map((term) => (lowercase ? term.trim().toLowerCase() : term.trim()))
    .filter((term) => term !== '')
  return terms.length > 0 ? [...new Set(terms)] : undefined
}

/** A term taken as it is in LIKE: its own "%" and "_" match themselves. */
function likeEscaped(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/** The tags GET /users searches by, as the real core lists them. */
export const SEARCH_TAGS = ['email', 'phone', 'provider']

export default async function coreRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { db, apps, keys } = services

  app.get('/apiversion', async () => ({ versions: CDI_VERSIONS }))

  app.get('/hello', { config: { open: true } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send('Hello'))

  app.get('/.well-known/jwks.json', { config: { open: true } }, async (request, reply) => {
    const { keys: jwks, maxAgeSec } = await keys.jwks(request.core.appId, request.core.settings)
    reply.header('cache-control', `max-age=${maxAgeSec}, must-revalidate`)
    return { keys: jwks }
  })

  app.get('/recipe/jwt/jwks', async (request, reply) => {
    const { keys: jwks, maxAgeSec } = await keys.jwks(request.core.appId, request.core.settings)
    reply.header('cache-control', `max-age=${maxAgeSec}, must-revalidate`)
    return { status: 'OK', keys: jwks }
  })

  app.get('/user/id', async (request) => {
    const user = await getUser(db, request.core.appId, query.string(request.query, 'userId'))
    return user ? { status: 'OK', user } : { status: 'UNKNOWN_USER_ID_ERROR' }
  })

  app.get('/users/by-accountinfo', async (request) => {
    const q = request.query as Record<string, string | undefined>
    if ((q.thirdPartyId === undefined) !== (q.thirdPartyUserId === undefined)) {
      throw new BadRequest('If thirdPartyId is provided, thirdPartyUserId must also be provided, and vice versa')
    }
    const union = query.boolean(request.query, 'doUnionOfAccountInfo', false)
    const users = await usersByAccountInfo(db, request.core.appId, request.core.tenantId, { email: q.email, thirdPartyId: q.thirdPartyId, thirdPartyUserId: q.thirdPartyUserId }, union)
    return { status: 'OK', users }
  })

  app.post('/user/remove', { schema: { body: Type.Object({ userId: Type.String(), removeAllLinkedAccounts: Type.Optional(Type.Boolean()) }) } }, async (request) => {
    const userId = request.body.userId
    const all = request.body.removeAllLinkedAccounts ?? true
    const revokedUntil = services.sessions.revokedUntil(request.core)
    await db.transaction((tx) => removeUser(tx, request.core.appId, userId, all, revokedUntil))
    return { status: 'OK' }
  })

  app.get('/users', async (request) => {
    const q = request.query as Record<string, string | undefined>
    const order = q.timeJoinedOrder === 'DESC' ? 'DESC' : 'ASC'
    // The real core's 400 texts, word for word (its missing "be" included): the SDK's own tests match them.
    const limit = query.optInt(request.query, 'limit') ?? USERS_DEFAULT_LIMIT
    if (limit > USERS_MAX_LIMIT) throw new BadRequest(`max limit allowed is ${USERS_MAX_LIMIT}`)
    if (limit < 1) throw new BadRequest('limit must a positive integer with min value 1')
    const recipes = q.includeRecipeIds?.split(',').filter((r) => r !== '') ?? []
    const params: unknown[] = [request.core.appId, request.core.tenantId, limit + 1]
    const where = ['u.app_id = $1', 'EXISTS (SELECT 1 FROM authcore.user_tenants ut WHERE ut.app_id = u.app_id AND ut.user_id = u.user_id AND ut.tenant_id = $2)']
    if (recipes.length > 0) {
      params.push(recipes)
      where.push(`u.recipe_id = ANY($${params.length}::text[])`)
    }
    // The dashboard's search (the real core's): each tag a list of terms split at ";", any term of a
    // tag matching, every tag given applying to the same login method.
    const emails = searchTerms(q.email, true)
    const phones = searchTerms(q.phone, false)
    const providers = searchTerms(q.provider, false)
    if (emails) {
      // The start of the address, or of its domain.
      params.push(emails.flatMap((term) => [`${likeEscaped(term)}%`, `%@${likeEscaped(term)}%`]))
      where.push(`u.email LIKE ANY($${params.length}::text[])`)
    }
    if (providers) {
      params.push(providers.map((term) => `${likeEscaped(term)}%`))
      where.push(`u.third_party_id LIKE ANY($${params.length}::text[])`)
    }
    // Only passwordless login methods have a phone number, and this core has none.
    if (phones) where.push('false')
    if (q.paginationToken) {
      const [time, id] = Buffer.from(q.paginationToken, 'base64url').toString('utf8').split(';')
      if (!time || !id || !/^\d+$/.test(time)) throw new BadRequest('invalid pagination token')
      params.push(Number(time), id)
      const cmp = order === 'ASC' ? '>' : '<'
      where.push(`(u.time_joined, u.primary_user_id) ${cmp} ($${params.length - 1}, $${params.length})`)
    }
    const { rows } = await db.query<{ primary_user_id: string; time_joined: string }>(
      `SELECT u.primary_user_id, min(u.time_joined) AS time_joined FROM authcore.users u WHERE ${where.join(' AND ')}
       GROUP BY u.primary_user_id ORDER BY min(u.time_joined) ${order}, u.primary_user_id ${order} LIMIT $3`,
      params,
    )
    const page = rows.slice(0, limit)
    const users = await usersByPrimaryIds(db, request.core.appId, page.map((r) => r.primary_user_id))
    const last = page[page.length - 1]
    return {
      status: 'OK',
      users,
      ...(rows.length > limit && last ? { nextPaginationToken: Buffer.from(`${last.time_joined};${last.primary_user_id}`).toString('base64url') } : {}),
    }
  })

  app.get('/user/search/tags', async () => ({ status: 'OK', tags: SEARCH_TAGS }))

  app.get('/users/count', async (request) => {
    const q = request.query as Record<string, string | undefined>
    const recipes = q.includeRecipeIds?.split(',').filter((r) => r !== '') ?? []
    const allTenants = q.includeAllTenants === 'true'
    const { rows } = await db.query<{ count: string | number }>(
      `SELECT count(DISTINCT u.primary_user_id) AS count FROM authcore.users u
        WHERE u.app_id = $1 AND ($2::boolean OR EXISTS (SELECT 1 FROM authcore.user_tenants ut WHERE ut.app_id = u.app_id AND ut.user_id = u.user_id AND ut.tenant_id = $3))
          AND (cardinality($4::text[]) = 0 OR u.recipe_id = ANY($4::text[]))`,
      [request.core.appId, allTenants, request.core.tenantId, recipes],
    )
    return { status: 'OK', count: Number(rows[0]?.count ?? 0) }
  })

  // §3.9: the tenant read. firstFactors and requiredSecondaryFactors are left out while unset.
  app.get('/recipe/multitenancy/tenant/v2', async (request) => {
    const config = await apps.tenant(request.core.appId, request.core.tenantId)
    if (!config) return { status: 'TENANT_NOT_FOUND_ERROR' }
    return {
      status: 'OK',
      tenantId: request.core.tenantId,
      thirdParty: { providers: [] },
      ...(Array.isArray(config.firstFactors) ? { firstFactors: config.firstFactors } : {}),
      ...(Array.isArray(config.requiredSecondaryFactors) ? { requiredSecondaryFactors: config.requiredSecondaryFactors } : {}),
      coreConfig: {},
    }
  })

  // Apps: create or update, remove, list. Managed from the default app only.
  const fromPublicApp = (appId: string) => {
    if (appId !== 'public') throw new BadRequest('Apps can only be managed through the public app')
  }
  // Before the body is read: another app is refused whatever it sends.
  const publicAppOnly = { preValidation: async (request: FastifyRequest) => fromPublicApp(request.core.appId) }

  const PutApp = Type.Object({ appId: Type.String(), coreConfig: Type.Optional(JsonObject) })
  app.put('/recipe/multitenancy/app/v2', { ...publicAppOnly, schema: { body: PutApp } }, async (request) => {
    const appId = request.body.appId.trim().toLowerCase()
    if (!APP_ID_PATTERN.test(appId)) throw new BadRequest('appId can only contain letters, numbers and hyphens')
    const coreConfig = parseCoreConfig(request.body.coreConfig ?? {})
    const createdNew = await apps.put(appId, coreConfig)
    return { status: 'OK', createdNew }
  })

  app.post('/recipe/multitenancy/app/remove', { ...publicAppOnly, schema: { body: Type.Object({ appId: Type.String() }) } }, async (request) => {
    const appId = request.body.appId.trim().toLowerCase()
    if (appId === 'public') throw new BadRequest('The public app cannot be removed')
    const didExist = await apps.remove(appId)
    keys.forget(appId)
    return { status: 'OK', didExist }
  })

  app.get('/recipe/multitenancy/app/list/v2', async (request) => {
    fromPublicApp(request.core.appId)
    const list = await apps.list()
    return {
      status: 'OK',
      apps: list.map((entry) => ({ appId: entry.appId, tenants: [{ tenantId: 'public', thirdParty: { providers: [] }, coreConfig: toCoreConfig(entry.config) }] })),
    }
  })
}
