import { timingSafeEqual } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { DatabaseTimeoutError } from '../db/guard.ts'
import { clientErrorHandler, DATABASE_RETRY_AFTER_SECONDS, errorBody } from '../http/errors.ts'
import { migrate, readMigrations } from '../db/migrate.ts'
import { isDatabaseUnreachable, watchReachability } from '../db/reachability.ts'
import { quietPolledRoutes, serviceLogging } from '../http/logger.ts'
import { storableText } from '../http/storable-text.ts'
import { metricsPlugin } from '../http/metrics.ts'
import { OutageLog } from '../http/outage-log.ts'
import { databaseProbe, InstanceReadiness } from '../http/readiness.ts'
import { requestIdFromUpstream } from '../http/request-id.ts'
import { JSON_BODY_LIMIT } from '../http/body-limits.ts'
import { HTTP_SERVER_OPTIONS } from '../http/server-options.ts'
import { shutdown } from '../http/shutdown.ts'
import { AppRegistry } from './apps.ts'
import { SecretBox } from './crypto.ts'
import { DashboardService } from './dashboard.ts'
import { exportUsers } from './export.ts'
import { cdiValidatorCompiler } from './body-schema.ts'
import { BadRequest } from './input.ts'
import { KeyStore } from './keys.ts'
import coreRoutes from './routes/core.ts'
import dashboardRoutes from './routes/dashboard.ts'
import recipeRoutes from './routes/recipes.ts'
import roleRoutes from './routes/roles.ts'
import sessionRoutes from './routes/session.ts'
import { RoleService } from './roles.ts'
import { ProtectedPropError, SessionService } from './sessions.ts'
import { SettingsError, type CoreSettings } from './settings.ts'
import { TotpService } from './totp.ts'
import type { CoreScope, CoreServices } from './services.ts'

// The auth core: a SuperTokens-compatible core speaking CDI 5.4 to supertokens-node,
// stateless over PostgreSQL so that several instances can serve one URL. Transport rules of
// AUTH-CORE.md §1: optional "/appid-<id>" and tenant prefixes, JSON everywhere, business
// outcomes as HTTP 200 with a status, programmer errors as 400/401/404 plain text.

export interface AuthCoreOptions {
  /** With authCoreHashing, what every app's password hashes cost (the core's own by default). */
  config: Pick<Config, 'logLevel' | 'nodeEnv'> & Partial<Pick<Config, 'authCoreHashing'>>
  db: Database
  /** Encrypts signing keys, TOTP secrets and refresh tokens; at least 32 characters. */
  secret: string
  /** API keys of the default app (AUTH_CORE_API_KEYS); null: none needed. */
  apiKeys: string[] | null
  /** Settings of the default app where its own stored settings are silent (the deployment's choice). */
  publicDefaults?: Partial<CoreSettings>
  /** Token for the /internal operator endpoints (rotate keys, export users); without one they answer 404. */
  operatorToken?: string | undefined
  logStream?: NodeJS.WritableStream
  /** The clock of sessions, signing keys and TOTP codes (tests move it instead of waiting). */
  now?: () => number
}

/** The text of the core's 503 (a plain-text body, as the CDI's other refusals): its database cannot be reached or did not answer in time. */
export const DATABASE_UNAVAILABLE_CODE = 'AUTHCORE_DATABASE_UNAVAILABLE'

/** First path segments that are endpoints, not tenant ids. */
const TOP_LEVEL = new Set(['recipe', 'user', 'users', 'apiversion', '.well-known', 'hello', 'telemetry', 'config', 'ee', 'requests', 'bulk-import', 'internal'])

interface Routed {
  appId: string
  tenantId: string
}

const routedOf = new WeakMap<object, Routed>()

/**
 * A path segment decoded; one that is not valid percent-encoded UTF-8 stays as sent. This runs
 * before routing, where a throw is no answer but an uncaught exception: `/appid-%ED%A0%80/hello`
 * stopped the core. The request is then refused by the storable-text check.
 */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** Moves "/appid-<id>" and the tenant segment out of the path, remembering them for the request. */
function rewrite(raw: { url?: string }): string {
  const url = raw.url ?? '/'
  const queryAt = url.indexOf('?')
  const path = queryAt < 0 ? url : url.slice(0, queryAt)
  const search = queryAt < 0 ? '' : url.slice(queryAt)
  const segments = path.split('/').filter((s) => s !== '')
  let appId = 'public'
  let tenantId = 'public'
  if (segments[0]?.startsWith('appid-')) appId = segments.shift()!.slice('appid-'.length)
  if (segments[0] !== undefined && !TOP_LEVEL.has(segments[0]) && segments.length > 1) tenantId = segments.shift()!
  routedOf.set(raw, { appId: decodedSegment(appId), tenantId: decodedSegment(tenantId) })
  return `/${segments.join('/')}${search}`
}

function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['api-key']
  if (typeof header === 'string') return header
  const authorization = request.headers.authorization
  if (typeof authorization === 'string') return authorization.replace(/^Bearer\s+/i, '')
  return undefined
}

function keyMatches(given: string, keys: string[]): boolean {
  const a = Buffer.from(given)
  return keys.some((key) => {
    const b = Buffer.from(key)
    return a.length === b.length && timingSafeEqual(a, b)
  })
}

export async function migrateAuthCoreSchema(db: Database): Promise<string[]> {
  return migrate(db, 'authcore', await readMigrations(new URL('./migrations/', import.meta.url)))
}

export async function buildAuthCore(options: AuthCoreOptions): Promise<FastifyInstance & { services: CoreServices }> {
  await migrateAuthCoreSchema(options.db)
  const app = Fastify({
    ...serviceLogging(options.config, 'authcore', options.logStream),
    rewriteUrl: rewrite,
    // What Node's parser refuses: the error shape its shutdown answers use too.
    clientErrorHandler: clientErrorHandler('AUTHCORE'),
    bodyLimit: JSON_BODY_LIMIT,
    requestTimeout: 30_000,
    // Requests arriving while it closes are answered by shutdown, in our error shape.
    return503OnClosing: false,
    trustProxy: false,
    // The caller's request id (the BFF's or the API's), so one id follows a sign-in through every log.
    genReqId: requestIdFromUpstream,
    http: HTTP_SERVER_OPTIONS,
  })

  // Probes, scrapes and the revocation list's polls write no line each.
  quietPolledRoutes(app)
  // The database as the core sees it: an outage is logged once, begun and ended.
  const db = watchReachability(options.db, new OutageLog(app.log, 'database'))
  const box = new SecretBox(options.secret)
  const keys = new KeyStore(db, box, options.now)
  const services: CoreServices = {
    db,
    apps: new AppRegistry(db, options.apiKeys, options.publicDefaults ?? {}, options.config.authCoreHashing ?? {}),
    keys,
    sessions: new SessionService(db, keys, box, options.now),
    totp: new TotpService(db, box, options.now),
    roles: new RoleService(db, options.now),
    dashboard: new DashboardService(db, options.now),
  }

  app.decorateRequest('core', null as unknown as CoreScope)
  // Bodies are checked against their route's schema the way the real core checks them (body-schema.ts).
  app.setValidatorCompiler(cdiValidatorCompiler)

  // Refused while it closes with a JSON body like /metrics' 401: supertokens-node reads any status
  // but 200 as an error with the status, which the BFF answers as 503 BFF_AUTH_CORE_UNAVAILABLE.
  await app.register(shutdown, { prefix: 'AUTHCORE', requestId: requestIdFromUpstream })

  // A NUL or a broken surrogate in the URL or the body is the caller's mistake, a 400
  // in plain text like the core's other refusals, before anything reaches the database — the app
  // and tenant ids of the path included.
  await app.register(storableText, { refuse: (message) => new BadRequest(message) })

  // Resolve the app and tenant, then the API key: an unknown app answers like the real core.
  app.addHook('onRequest', async (request, reply) => {
    // The load balancer's probe is not the CDI's: no app, no key, and no database read to fail it.
    if (request.routeOptions.url === '/readyz') return undefined
    const routed = routedOf.get(request.raw) ?? { appId: 'public', tenantId: 'public' }
    const settings = await services.apps.settings(routed.appId)
    if (!settings) return reply.code(400).type('text/plain; charset=utf-8').send('AppId or tenantId not found')
    request.core = { appId: routed.appId, tenantId: routed.tenantId, settings }
    const routeConfig = request.routeOptions.config
    if (settings.apiKeys && !routeConfig?.open) {
      const given = apiKeyOf(request)
      // The real core's body ends in a newline; clients that compare it exactly expect it.
      if (!given || !keyMatches(given, settings.apiKeys)) return reply.code(401).type('text/plain; charset=utf-8').send('Invalid API key\n')
    }
    if (routed.tenantId !== 'public' && !(await services.apps.tenantExists(routed.appId, routed.tenantId))) {
      // The tenant read answers with a status; every other call refuses the unknown tenant.
      if (request.routeOptions.url === '/recipe/multitenancy/tenant/v2') return reply.send({ status: 'TENANT_NOT_FOUND_ERROR' })
      return reply.code(400).type('text/plain; charset=utf-8').send('AppId or tenantId not found')
    }
    // The real core's app-level endpoints (roles and permissions, the dashboard's accounts) answer for the public tenant only.
    if (routeConfig?.appLevel && routed.tenantId !== 'public') {
      return reply.code(403).type('text/plain; charset=utf-8').send('Only public tenantId can call this app specific API')
    }
    return undefined
  })

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof BadRequest || error instanceof ProtectedPropError || error instanceof SettingsError) {
      return reply.code(400).type('text/plain; charset=utf-8').send(error.message)
    }
    const status = (error as { statusCode?: number }).statusCode
    if (status !== undefined && status >= 400 && status < 500) {
      // Fastify's own refusals: unparsable JSON, wrong content type, body too large.
      return reply.code(status).type('text/plain; charset=utf-8').send(status === 400 ? 'Invalid Json Input' : (error as Error).message)
    }
    // supertokens-node turns any status but 200 into an error carrying the status and this text;
    // the BFF answers a 503 as 503 BFF_AUTH_CORE_UNAVAILABLE, never a 500 or a 401.
    const unavailable = (reply: FastifyReply) =>
      reply.code(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).type('text/plain; charset=utf-8').send(`${DATABASE_UNAVAILABLE_CODE}: the auth core cannot reach its database`)
    if (isDatabaseUnreachable(error)) {
      // Down or going: the outage log has said so once; this request adds nothing but its access line.
      return unavailable(reply)
    }
    if (error instanceof DatabaseTimeoutError) {
      request.log.warn({ err: error }, 'database did not answer in time')
      return unavailable(reply)
    }
    request.log.error({ err: error }, 'auth core request failed')
    return reply.code(500).type('text/plain; charset=utf-8').send('Internal Error')
  })

  app.setNotFoundHandler((_request, reply) => reply.code(404).type('text/plain; charset=utf-8').send('Not found'))

  const operatorToken = options.operatorToken
  // The operator's token, not an API key: metrics are the operator's.
  await app.register(metricsPlugin, { service: 'authcore', prefix: 'AUTHCORE', operatorToken, db, routeConfig: { open: true } })
  if (operatorToken) {
    // Operator commands (npm run authcore): not part of the CDI, authenticated by the operator token.
    app.register(async (internal) => {
      internal.addHook('onRequest', async (request, reply) => {
        const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
        if (!given || !keyMatches(given, [operatorToken])) return reply.code(401).type('text/plain; charset=utf-8').send('Invalid operator token')
        return undefined
      })
      internal.post('/internal/keys/rotate', { config: { open: true } }, async (request) => ({
        status: 'OK',
        kid: await keys.rotate(request.core.appId, request.core.settings),
      }))
      internal.get('/internal/users/export', { config: { open: true } }, async (request) => exportUsers(db, box, request.core.appId))
    })
  }

  // /readyz, what deploy/haproxy.cfg checks: the core takes traffic until it is told to
  // stop; its database, every core's, is probed (at most once a second) and reported.
  const readiness = new InstanceReadiness({
    database: databaseProbe(db, app.log),
  }, options.now)
  app.decorate('readiness', readiness)
  app.get('/readyz', async (request, reply) => {
    const report = await readiness.report()
    if (report) return report
    return reply.code(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).send(errorBody(503, 'AUTHCORE_NOT_READY', 'The auth core is not ready: it is stopping.', request.id))
  })

  await app.register(coreRoutes, { services })
  await app.register(sessionRoutes, { services })
  await app.register(recipeRoutes, { services })
  await app.register(roleRoutes, { services })
  await app.register(dashboardRoutes, { services })

  return Object.assign(app as unknown as FastifyInstance, { services })
}
