import fs from 'node:fs'
import path from 'node:path'
import compress from '@fastify/compress'
import cookie from '@fastify/cookie'
import fastifyStatic from '@fastify/static'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import type { BuildInfo } from '../build-info.ts'
import { projectRoot } from '../build-info.ts'
import { authCoreUrlOf, ConfigError, outsideOrigins, publicConfig, servesDevConveniences, type Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { migrate, readMigrations } from '../db/migrate.ts'
import { watchReachability } from '../db/reachability.ts'
import { bodyDeadline } from '../http/body-deadline.ts'
import { JSON_BODY_LIMIT } from '../http/body-limits.ts'
import { createErrorReporter, errorReporting } from '../http/error-reporting.ts'
import { clientErrorHandler, frameworkErrorHandler, requestBasics } from '../http/errors.ts'
import { loadShedding, OVERLOAD_RETRY_AFTER_SECONDS } from '../http/load-shedding.ts'
import { quietPolledRoutes, serviceLogging } from '../http/logger.ts'
import { storableText } from '../http/storable-text.ts'
import { metricsPlugin } from '../http/metrics.ts'
import { OutageLog } from '../http/outage-log.ts'
import { openApiOptions } from '../http/openapi.ts'
import { newRequestId } from '../http/request-id.ts'
import { HTTP_SERVER_OPTIONS } from '../http/server-options.ts'
import { shutdown, SHUTDOWN_RETRY_AFTER_SECONDS } from '../http/shutdown.ts'
import { fastifyTrustProxy } from '../http/trust-proxy.ts'
import { EmailTexts } from './mail/emails.ts'
import { MailOutbox } from './mail/mail-outbox.ts'
import { APP_NAME } from './auth/supertokens.ts'
import { NotificationMailWorker } from './mail/notification-mail.ts'
import mailUnsubscribeRoutes from './routes/mail-unsubscribe.ts'
import { authPlugin, mailerFor } from './auth/plugin.ts'
import { verifiedAccount } from './auth/page-session.ts'
import { pageForms } from './auth/page-forms.ts'
import { BffNotFound, BffValidation } from './errors.ts'
import { busyPages, loadLocaleCatalog, rateLimitedPages } from './locales.ts'
import { catalogueLogos } from './logos/logo-set.ts'
import logoRoutes from './logos/routes.ts'
import { combinedLogosVersion, UploadedLogos } from './logos/uploaded-logos.ts'
import { rateLimitPlugin } from './plugins/rate-limit.ts'
import { securityHeaders, securityHeadersPlugin } from './plugins/security-headers.ts'
import { ssrRoutes } from './plugins/ssr.ts'
import { MARKUP_BACKLOG, MarkupTurns } from './markup-turns.ts'
import apiProxyRoutes, { versionEarlyAnswer } from './routes/api-proxy.ts'
import { RoleChanges } from '../http/role-changes.ts'
import errorReportingRoutes from './routes/error-reporting.ts'
import healthRoutes, { bffReadiness } from './routes/health.ts'
import localeRoutes from './routes/locales.ts'
import openApiRoutes from './routes/openapi.ts'
import seoRoutes from './routes/seo.ts'
import feedRoutes from './routes/feeds.ts'
import { upstreamApiPlugin } from './upstream-api.ts'

export interface BffOptions {
  config: Config
  db: Database
  buildInfo: BuildInfo
  /** Origin of the product API, e.g. http://127.0.0.1:3001. */
  upstreamApiUrl: string
  /** Vite in middleware mode with hot reload instead of the built client. */
  dev?: boolean
  /** Project root (locales, dist). Defaults to the folder holding package.json. */
  root?: string
  /** The auth core; AUTH_CORE_URL, else the embedded one at AUTH_CORE_HOST:AUTH_CORE_PORT. */
  authCoreUrl?: string
  /** The key the auth core asks for; AUTH_CORE_API_KEYS' first by default. */
  authCoreApiKey?: string | undefined
  /** Where log lines go (tests read them); stdout by default. */
  logStream?: NodeJS.WritableStream
  /** The clock of the readiness cache, the recovery codes' cool-down and email-change links; tests move it. Date.now by default. */
  now?: () => number
  /** The operator's token: GET /metrics answers only to it (401 for everyone without one). */
  operatorToken?: string | undefined
  /** Refuse new requests with 503 when overloaded (OVERLOAD_*); true by default. */
  shedLoad?: boolean
  /** Whether the event loop lags past OVERLOAD_EVENT_LOOP_DELAY_MS; measured by default, set by tests (load-shedding.ts). */
  eventLoopLags?: () => boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Outgoing mail; tests drive its worker with tick(). */
    mailOutbox: MailOutbox
    /** The notification mail worker. */
    notificationMail: NotificationMailWorker
  }
}

/** The backend-for-frontend: the only service a browser talks to. Builds the app; never listens. */
/** The BFF's own schema (login attempts, mail outbox and quota, …); applied at start. */
export async function migrateBffSchema(db: Database): Promise<string[]> {
  return migrate(db, 'bff', await readMigrations(new URL('./migrations/', import.meta.url)))
}

export async function buildBff(options: BffOptions): Promise<FastifyInstance> {
  const { config } = options
  const root = options.root ?? projectRoot()
  const dev = options.dev ?? false
  if (dev && !servesDevConveniences(config)) {
    throw new ConfigError(['--dev (Vite serving the client from its sources) is a development convenience and is not served with NODE_ENV=production; build the client (node scripts/build.mjs) and start without --dev'])
  }
  await migrateBffSchema(options.db)
  const catalog = loadLocaleCatalog(root)
  // Every program's logo and link-preview card, built once from the catalogue's seed.
  const logos = catalogueLogos()

  const https = config.appUrl.startsWith('https:')
  const app = Fastify({
    ...serviceLogging(config, 'bff', options.logStream),
    frameworkErrors: frameworkErrorHandler('BFF', securityHeaders(https)),
    clientErrorHandler: clientErrorHandler('BFF', securityHeaders(https)),
    genReqId: newRequestId,
    // A hop count is handed over as a function: Fastify 5.12 trusts no hop for a number.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: JSON_BODY_LIMIT,
    // Bounded waits (SECURITY.md "Load, faults and shutdown"): Node's defaults are minutes. A
    // body's deadline is per route (bodyDeadline below): a tus PATCH may take minutes.
    requestTimeout: 0,
    connectionTimeout: config.idleTimeoutMs,
    keepAliveTimeout: 5_000,
    // Requests arriving while it closes are answered by shutdown, in our error shape.
    return503OnClosing: false,
    http: HTTP_SERVER_OPTIONS,
  })
  // Probes, scrapes and the revocation list's polls write no line each.
  quietPolledRoutes(app)
  // The database as the BFF sees it: an outage is logged once, begun and ended.
  const db = watchReachability(options.db, new OutageLog(app.log, 'database'))

  // Unexpected errors go to the error tracker when SENTRY_DSN is set; nothing loads otherwise.
  const reporter = await createErrorReporter(config.sentry, 'bff', options.buildInfo.buildId)
  await app.register(errorReporting, { reporter })
  await app.register(requestBasics, { prefix: 'BFF', notFound: BffNotFound, reporter })
  // The polled /api/version from the micro-cache: before every other hook but the request id's.
  await app.register(versionEarlyAnswer, { headers: securityHeaders(https) })
  // A NUL or a broken surrogate anywhere in the URL or the body is a 400, before any route.
  await app.register(storableText, { refuse: (message) => new BffValidation(message) })
  await app.register(bodyDeadline, { prefix: 'BFF' })
  await app.register(metricsPlugin, { service: 'bff', prefix: 'BFF', operatorToken: options.operatorToken, db })
  const metrics = app.metrics
  // Pages make their markup a few per turn of the event loop (markup-turns.ts); pages queued for
  // a turn are the CPU falling behind, as a lagging event loop was before the turns kept it short.
  const markupTurns = new MarkupTurns()
  if (options.shedLoad ?? true) {
    await app.register(loadShedding, {
      prefix: 'BFF',
      maxEventLoopDelayMs: config.overload.eventLoopDelayMs,
      maxInFlight: config.overload.maxInFlight,
      pressureInFlight: config.overload.pressureInFlight,
      ...(options.eventLoopLags ? { eventLoopLags: options.eventLoopLags } : {}),
      alsoLagging: () => markupTurns.waiting >= MARKUP_BACKLOG,
      requestId: newRequestId,
      headers: securityHeaders(https),
      page: busyPages(catalog, OVERLOAD_RETRY_AFTER_SECONDS),
      onShed: (reason) => metrics.shed.inc({ reason }),
    })
  }
  await app.register(shutdown, {
    prefix: 'BFF',
    requestId: newRequestId,
    headers: securityHeaders(https),
    page: busyPages(catalog, SHUTDOWN_RETRY_AFTER_SECONDS, 'restarting'),
  })
  // The BFF's own /api routes in OpenAPI (decision 023); registered before any route, so it sees them all.
  await app.register(swagger, openApiOptions({
    title: 'Softshelf BFF',
    version: options.buildInfo.packageVersion,
    description: "The BFF's own /api routes.",
    isPublic: (url) => url.startsWith('/api/') && !url.includes('*'),
  }))

  await app.register(securityHeadersPlugin, { https, dev, outside: outsideOrigins(config) })
  await app.register(cookie)
  await app.register(compress, { threshold: 1024, encodings: ['br', 'gzip', 'deflate'] })
  await app.register(rateLimitPlugin, {
    addressMax: config.rateLimitMax,
    accountMax: config.rateLimitAccountMax,
    redisUrl: config.redisUrl,
    accountOf: verifiedAccount,
    page: rateLimitedPages(catalog),
  })
  await app.register(upstreamApiPlugin, { url: options.upstreamApiUrl, timeouts: config.upstream, now: options.now })

  if (!dev) {
    const clientDir = path.join(root, 'dist', 'client')
    // Hashed file names never change content, so browsers may keep them for a year.
    await app.register(fastifyStatic, {
      root: path.join(clientDir, 'assets'),
      prefix: '/assets/',
      index: false,
      cacheControl: false,
      setHeaders: (res) => void res.header('cache-control', 'public, max-age=31536000, immutable'),
    })
    const favicon = path.join(clientDir, 'favicon.svg')
    app.get('/favicon.svg', async (_request, reply) => {
      if (!fs.existsSync(favicon)) throw new BffNotFound('GET', '/favicon.svg')
      reply.header('cache-control', 'public, max-age=86400')
      return reply.type('image/svg+xml; charset=utf-8').send(fs.createReadStream(favicon))
    })
  }

  const readiness = bffReadiness(app, db, options.now)
  app.decorate('readiness', readiness)
  await app.register(healthRoutes, { readiness })
  await app.register(localeRoutes, { catalog })
  await app.register(seoRoutes, { appUrl: config.appUrl, now: options.now })
  // Atom feeds of the newest releases.
  await app.register(feedRoutes, { appUrl: config.appUrl, now: options.now })
  // Logos editors uploaded, served in place of the generated ones.
  const uploadedLogos = new UploadedLogos(app.upstreamApi, app.log, options.now)
  await app.register(logoRoutes, { logos, uploaded: uploadedLogos, api: app.upstreamApi })
  // Outgoing mail through the durable outbox; its worker runs in every instance.
  const outbox = new MailOutbox({ db, mailer: mailerFor(config), log: app.log, now: options.now, registry: metrics.registry })
  if (!config.smtpUrl && !servesDevConveniences(config)) {
    // Said once, at start: in production the mailbox page is not served, so the operator must know where mail goes.
    app.log.warn({ mailFolder: path.join(config.dataDir, 'mail') }, `No mail leaves this machine: SMTP_URL is not set, so every email (verification, password reset, email change) is only written to ${path.join(config.dataDir, 'mail')}, one JSON file per message ('npm run mail' prints them), and /dev/mail is not served with NODE_ENV=production. Set SMTP_URL to send mail.`)
  }
  app.decorate('mailOutbox', outbox)
  app.addHook('onReady', async () => outbox.start())
  app.addHook('onClose', async () => {
    await outbox.stop()
    await outbox.mailer.close()
  })
  // Notification mail (decision 030): the worker queues the mails the API says are due,
  // in every instance (claims never overlap); their one-click unsubscribe link is /mail/unsubscribe.
  const emails = new EmailTexts(root, APP_NAME)
  const notificationMail = new NotificationMailWorker({
    upstreamApi: app.upstreamApi,
    outbox,
    emails,
    appUrl: config.appUrl,
    secret: options.authCoreApiKey ?? config.authCoreApiKeys?.[0] ?? options.operatorToken,
    log: app.log,
  })
  app.decorate('notificationMail', notificationMail)
  app.addHook('onReady', async () => notificationMail.start())
  app.addHook('onClose', async () => notificationMail.stop())
  await app.register(mailUnsubscribeRoutes, { emails, rateLimitMax: config.authRateLimitMax })
  // Roles granted or taken away: the operator check reads them again within a second.
  const roleChanges = new RoleChanges({ coreUrl: options.authCoreUrl ?? authCoreUrlOf(config), apiKey: options.authCoreApiKey ?? config.authCoreApiKeys?.[0], log: app.log })
  app.addHook('onReady', () => roleChanges.startAndWait())
  app.addHook('onClose', async () => roleChanges.stop())
  await app.register(authPlugin, { config, db, root, coreUrl: options.authCoreUrl ?? authCoreUrlOf(config), coreApiKey: options.authCoreApiKey ?? config.authCoreApiKeys?.[0], now: options.now, outbox, roleChanges })
  await app.register(openApiRoutes, { version: options.buildInfo.packageVersion, appUrl: config.appUrl })
  await app.register(apiProxyRoutes, { appOrigin: new URL(config.appUrl).origin, rateLimitMax: config.rateLimitMax, roleChanges })
  if (config.sentry) {
    await app.register(errorReportingRoutes, { sentry: config.sentry, appOrigin: new URL(config.appUrl).origin, rateLimitMax: config.authRateLimitMax, timeouts: config.upstream })
  }
  await app.register(ssrRoutes, {
    root,
    dev,
    https,
    catalog,
    config: { ...publicConfig(config, options.buildInfo.buildId), logosVersion: logos.version },
    logosVersion: async () => combinedLogosVersion(logos.version, await uploadedLogos.current()),
    // The account forms answered when sent before the page's script ran (decision 025).
    pageForms: pageForms(app, { appOrigin: new URL(config.appUrl).origin, https }),
    formRateLimitMax: config.authRateLimitMax,
    now: options.now,
    markupTurns,
  })
  return app
}
