import path from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { BuildInfo } from '../build-info.ts'
import { authCoreUrlOf, type Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { createErrorReporter, errorReporting } from '../http/error-reporting.ts'
import { clientErrorHandler, frameworkErrorHandler, requestBasics, schemaErrorFormatter } from '../http/errors.ts'
import { loadShedding } from '../http/load-shedding.ts'
import { quietPolledRoutes, serviceLogging } from '../http/logger.ts'
import { storableText } from '../http/storable-text.ts'
import { metricsPlugin } from '../http/metrics.ts'
import { JSON_BODY_LIMIT } from '../http/body-limits.ts'
import { HTTP_SERVER_OPTIONS } from '../http/server-options.ts'
import { shutdown } from '../http/shutdown.ts'
import { openApiOptions } from '../http/openapi.ts'
import { databaseProbe, InstanceReadiness } from '../http/readiness.ts'
import { requestIdFromUpstream } from '../http/request-id.ts'
import { ApiNotFound, ApiValidation } from './errors.ts'
import { applySeed } from './catalogue/seed.ts'
import { AccessTokens } from './access-tokens.ts'
import { coreAccounts } from './users/core-accounts.ts'
import { RevokedSessions } from '../http/revoked-sessions.ts'
import { RoleChanges } from '../http/role-changes.ts'
import { CurrentRoles } from './operator/guard.ts'
import { sessionIssuer } from '../http/session-token.ts'
import { CATALOGUE_VERSION_CHECK_MS, CatalogueIndex } from './catalogue/search-index.ts'
import catalogueRoutes from './catalogue/routes.ts'
import userRoutes from './users/routes.ts'
import savedSearchRoutes from './notifications/saved-search-routes.ts'
import { runSavedSearches, SAVED_SEARCH_CHECK_MS } from './notifications/saved-searches.ts'
import watchRoutes from './notifications/watch-routes.ts'
import { NotificationFanout, type FanoutOptions } from './notifications/fanout.ts'
import avatarRoutes from './users/avatar-routes.ts'
import programMediaRoutes from './catalogue/media-routes.ts'
import { migrateApiSchema } from './schema.ts'
import { isDatabaseUnreachable, watchReachability } from '../db/reachability.ts'
import { OutageLog, RepeatedFailureLog } from '../http/outage-log.ts'
import { AccountDeletions } from './users/deletions.ts'
import { sessionGuard } from './session-guard.ts'
import filesRoutes from './files/routes.ts'
import { bodyDeadline } from '../http/body-deadline.ts'
import { FilesRepository } from './files/repository.ts'
import { S3Storage } from './files/s3-storage.ts'
import { DiskStorage, type FileStorage } from './files/storage.ts'
import uploadRoutes from './files/upload-routes.ts'
import type { LockTimings } from './files/upload-locker.ts'
import shareRoutes from './files/share-routes.ts'
import { ShareTokens } from './files/share-tokens.ts'
import { SharesRepository } from './files/shares.ts'
import streamingRoutes from './streaming/routes.ts'
import operatorRoutes from './operator/index.ts'
import { StreamingAssignments } from './streaming/assignments.ts'
import { StreamingGrants } from './streaming/grants.ts'
import { stripeProvider } from './checkout/card-provider.ts'
import checkoutRoutes from './checkout/routes.ts'
import { billedSubscriptions } from './checkout/purchases.ts'
import { FeedSchedule, FeedSync, feedSyncOptions } from './catalogue/feeds/sync.ts'
import { NotificationMail, UnsubscribeTokens, unsubscribeKey } from './notifications/mail.ts'
import notificationMailRoutes from './notifications/mail-routes.ts'
import internalRoutes from './internal-routes.ts'
import serviceRoutes from './service-routes.ts'

// The product API (DESIGN.md §3): buildApi() makes its services over one database (the catalogue's
// index, the drive, sessions revoked and roles changed as read from the auth core, the fan-out and
// the feeds' timers), registers the capabilities' route modules (catalogue/, users/, notifications/,
// files/, streaming/, checkout/, operator/), what it answers about itself (service-routes.ts) and
// the operator commands' endpoints (internal-routes.ts).

export interface ApiOptions {
  config: Config
  db: Database
  buildInfo: BuildInfo
  /** Token for /internal operator endpoints; without one they answer 404. */
  operatorToken?: string | undefined
  /** The auth core whose keys sign access tokens (AUTH_CORE_URL's form: several cores separated by ";"); AUTH_CORE_URL or the embedded one by default. */
  authCoreUrl?: string
  /** The key the auth core asks for (its revocation list); AUTH_CORE_API_KEYS' first by default. */
  authCoreApiKey?: string | undefined
  /** Where log lines go (tests read them); stdout by default. */
  logStream?: NodeJS.WritableStream
  /** The clock of the readiness cache and of the drive (trash age, sweeps); tests move it. Date.now by default. */
  now?: () => number
  /** Where the drive's bytes live; by default the S3 bucket when S3_URL is set, else a directory under DATA_DIR/files. */
  fileStorage?: FileStorage
  /** The resumable uploads' lock leases and waits (tests shorten them); upload-locker.ts's defaults otherwise. */
  uploadLockTimings?: LockTimings
  /** Refuse new requests with 503 when overloaded (OVERLOAD_*): only when the API runs alone, not behind a BFF in the same process. */
  shedLoad?: boolean
  /** Whether the event loop lags past OVERLOAD_EVENT_LOOP_DELAY_MS; measured by default, set by tests (load-shedding.ts). */
  eventLoopLags?: () => boolean
  /** The embedded database's folder under DATA_DIR, named in a backup's manifest; 'pglite' (npm start) by default. */
  databaseFolder?: string
  /** The notification fan-out's batch size and interval; fanout.ts's defaults otherwise. */
  fanout?: FanoutOptions
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Database
    /** The listing index, shared by the public catalogue and the users' libraries. */
    catalogue: CatalogueIndex
    /** Sessions ended before their access tokens expire (read from the auth core). */
    revokedSessions: RevokedSessions
    /** The accounts whose roles changed lately (read from the auth core). */
    roleChanges: RoleChanges
    /** The users' drives: metadata, stored bytes and the sweep. */
    files: FilesRepository
    /** Catalogue events to the watchers' notifications; `wake()` after writing one. */
    notificationFanout: NotificationFanout
    /**
     * The saved searches' own run every SAVED_SEARCH_CHECK_MS: `pause()` stops it and
     * waits for a run under way; `resume()` starts it again. A test that needs the catalogue to
     * move with no run in between (a program added and retired) holds it.
     */
    savedSearchChecks: { pause(): Promise<void>; resume(): void }
  }
}

/** How often the drive's sweep runs (old trash, abandoned writes, orphaned objects); also at every start. */
export const FILES_SWEEP_INTERVAL_MS = 60 * 60_000

/** Where the drive's bytes live: the bucket when S3_URL is set, else a directory under DATA_DIR/files. */
function fileStorageOf(config: Config): FileStorage {
  const s3 = config.files.s3
  return s3 ? new S3Storage(s3) : new DiskStorage(path.join(config.dataDir, 'files'))
}

/** The product API. Builds the app and applies the `api` schema's migrations; never listens. */
export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const { config, buildInfo } = options
  await migrateApiSchema(options.db)
  await applySeed(options.db)
  // Like the database: a bucket that cannot be used at start stops the start, with the reason.
  const storage = options.fileStorage ?? fileStorageOf(config)
  try {
    await storage.check?.()
  } catch (error) {
    if (!options.fileStorage) storage.close?.()
    throw error
  }

  const app = Fastify({
    ...serviceLogging(config, 'api', options.logStream),
    frameworkErrors: frameworkErrorHandler('API'),
    clientErrorHandler: clientErrorHandler('API'),
    genReqId: requestIdFromUpstream,
    bodyLimit: JSON_BODY_LIMIT,
    // A body's deadline is per route (bodyDeadline below): a tus PATCH may take minutes.
    requestTimeout: 0,
    connectionTimeout: config.idleTimeoutMs,
    // Requests arriving while it closes are answered by shutdown, in our error shape.
    return503OnClosing: false,
    trustProxy: false,
    schemaErrorFormatter,
    http: HTTP_SERVER_OPTIONS,
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Probes, scrapes and the revocation list's polls write no line each.
  quietPolledRoutes(app)
  // The database as the API sees it: an outage is logged once, begun and ended.
  const db = watchReachability(options.db, new OutageLog(app.log, 'database'))
  app.decorate('db', db)
  app.decorate('catalogue', new CatalogueIndex(db, CATALOGUE_VERSION_CHECK_MS, options.now ?? Date.now))
  // Unexpected errors go to the error tracker when SENTRY_DSN is set; nothing loads otherwise.
  const reporter = await createErrorReporter(config.sentry, 'api', buildInfo.buildId)
  await app.register(errorReporting, { reporter })
  await app.register(requestBasics, { prefix: 'API', notFound: ApiNotFound, reporter })
  // A NUL or a broken surrogate anywhere in the URL or the body is a 400, before any route.
  await app.register(storableText, { refuse: (message) => new ApiValidation(message) })
  await app.register(bodyDeadline, { prefix: 'API' })
  await app.register(metricsPlugin, { service: 'api', prefix: 'API', operatorToken: options.operatorToken, db })
  const metrics = app.metrics
  if (options.shedLoad) {
    await app.register(loadShedding, {
      prefix: 'API',
      maxEventLoopDelayMs: config.overload.eventLoopDelayMs,
      maxInFlight: config.overload.maxInFlight,
      pressureInFlight: config.overload.pressureInFlight,
      ...(options.eventLoopLags ? { eventLoopLags: options.eventLoopLags } : {}),
      // The BFF's own call at sign-up and sign-in, inside a request it admitted: refused, it would
      // leave a new account without its record (every page then says the account is disabled)
      // until the next sign-in, and the person would never know why. One upsert.
      alwaysAdmitted: new Set(['PUT /api/user']),
      requestId: requestIdFromUpstream,
      onShed: (reason) => metrics.shed.inc({ reason }),
    })
  }
  await app.register(shutdown, { prefix: 'API', requestId: requestIdFromUpstream })

  // The OpenAPI document of the /api routes (decision 023), read by the BFF, which publishes it
  // merged with its own at GET /api/openapi.json. Registered before any route, so it sees them all.
  await app.register(swagger, openApiOptions({
    title: 'Softshelf product API',
    version: buildInfo.packageVersion,
    description: 'The /api routes of the product API, reached through the BFF.',
    isPublic: (url) => url.startsWith('/api/') && url !== '/api/sentry-test/error',
  }))
  // Readiness: this instance takes traffic until it is told to stop; the database and
  // the file storage, shared by every instance, are probed (at most once a second) and reported.
  const readiness = new InstanceReadiness(
    {
      database: databaseProbe(db, app.log),
      fileStorage: async () => {
        try {
          await storage.check?.()
          return 'ok'
        } catch (err) {
          app.log.warn({ err }, 'file storage not usable')
          return 'unreachable'
        }
      },
    },
    options.now,
  )
  app.decorate('readiness', readiness)
  await app.register(serviceRoutes, { buildInfo, readiness })

  // Card checkout: without STRIPE_SECRET_KEY nothing is for sale (prices still show).
  const cardProvider = config.stripe ? stripeProvider(config.stripe) : undefined
  await app.register(catalogueRoutes, { forSale: cardProvider !== undefined })
  if (reporter) {
    // The /sentry-test page's API button: an unexpected error on purpose, reported like any other.
    app.post('/api/sentry-test/error', async () => {
      throw new Error('Sentry test: an error raised on purpose in the API (POST /api/sentry-test/error)')
    })
  }
  const coreUrl = options.authCoreUrl ?? authCoreUrlOf(config)
  const coreApiKey = options.authCoreApiKey ?? config.authCoreApiKeys?.[0]
  const revocations = new RevokedSessions({ coreUrl, apiKey: coreApiKey, log: app.log })
  app.decorate('revokedSessions', revocations)
  // The first read before the first request, bounded: a core that is not up yet only delays it.
  app.addHook('onReady', () => revocations.startAndWait())
  app.addHook('onClose', async () => revocations.stop())
  // Roles granted or taken away, within a second on every instance: the same way.
  const roleChanges = new RoleChanges({ coreUrl, apiKey: coreApiKey, log: app.log })
  app.decorate('roleChanges', roleChanges)
  app.addHook('onReady', () => roleChanges.startAndWait())
  app.addHook('onClose', async () => roleChanges.stop())
  const tokens = new AccessTokens(coreUrl, { issuer: sessionIssuer(config.appUrl), revocations })
  const core = coreAccounts(coreUrl, coreApiKey)
  const clock = options.now ?? Date.now
  const files = new FilesRepository(db, storage, config.files, clock, app.log)
  app.decorate('files', files)
  if (!options.fileStorage) app.addHook('onClose', async () => storage.close?.())
  // Deletions a crash or an unreachable core left unfinished are finished at start, then every minute.
  // A deleted account is never charged again: its subscriptions end with it.
  const cancelSubscriptions = async (userId: string) => {
    const subscriptions = await billedSubscriptions(db, userId)
    if (subscriptions.length === 0) return
    if (!cardProvider) {
      app.log.error({ event: 'subscriptions-not-cancelled', subscriptions }, 'a deleted account has subscriptions, but card checkout is not configured here: cancel them in Stripe')
      return
    }
    for (const subscription of subscriptions) await cardProvider.cancelNow(subscription)
    app.log.info({ event: 'subscriptions-cancelled', count: subscriptions.length }, 'the subscriptions of a deleted account were cancelled')
  }
  const deletions = new AccountDeletions(db, (userId) => core.removeUser(userId), app.log, (userId) => files.removeAllOf(userId), cancelSubscriptions, clock)
  app.addHook('onReady', async () => {
    await deletions.resume()
    deletions.start()
  })
  app.addHook('onClose', async () => deletions.stop())
  const guard = sessionGuard(app, { tokens, accountEmail: core.accountEmail })
  const roles = new CurrentRoles(roleChanges, core.userRoles)
  await app.register(userRoutes, { guard, roles, signInMethods: core.signInMethods, deletions, now: clock })
  // Saved searches; when the catalogue moves, they are run again and new matches told.
  await app.register(savedSearchRoutes, { guard })
  let savedSearchTimer: NodeJS.Timeout | undefined
  const savedSearchFailures = new RepeatedFailureLog(app.log, 'running the saved searches')
  let savedSearchRun: Promise<void> | undefined
  const rerunSavedSearches = () => {
    savedSearchRun ??= runSavedSearches(db, app.catalogue)
      .then(
        (notified) => {
          savedSearchFailures.succeeded()
          if (notified > 0) app.log.info({ event: 'saved-search-matches', notifications: notified }, 'saved searches found new programs')
        },
        (err: unknown) => {
          if (isDatabaseUnreachable(err)) return
          savedSearchFailures.failed(err, 'running the saved searches failed; they run again in a moment')
          reporter?.captureBackgroundError(err, 'saved-searches')
        },
      )
      .finally(() => {
        savedSearchRun = undefined
      })
    return savedSearchRun
  }
  const startSavedSearchChecks = () => {
    clearInterval(savedSearchTimer)
    savedSearchTimer = setInterval(() => void rerunSavedSearches(), SAVED_SEARCH_CHECK_MS)
    savedSearchTimer.unref()
  }
  const stopSavedSearchChecks = async () => {
    clearInterval(savedSearchTimer)
    savedSearchTimer = undefined
    await savedSearchRun
  }
  app.decorate('savedSearchChecks', { pause: stopSavedSearchChecks, resume: startSavedSearchChecks })
  app.addHook('onReady', async () => startSavedSearchChecks())
  app.addHook('onClose', stopSavedSearchChecks)
  // Watchlists and notifications. The fan-out turns catalogue events into the watchers'
  // notifications, every second on every instance (each event claimed by one at a time).
  await app.register(watchRoutes, { guard })
  const fanout = new NotificationFanout(db, app.log, options.fanout)
  app.decorate('notificationFanout', fanout)
  app.addHook('onReady', async () => fanout.start())
  app.addHook('onClose', async () => fanout.stop())
  // An editor's write to a program may have recorded an event (a release, a price, a licence):
  // its watchers are told at once rather than at the next tick. Other writers call wake() themselves.
  app.addHook('onResponse', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 300 && request.url.startsWith('/api/operator/programs')) fanout.wake()
  })
  await app.register(avatarRoutes)
  // Programs' uploaded screenshots and logos.
  await app.register(programMediaRoutes)
  await app.register(filesRoutes, { guard, files })
  await app.register(uploadRoutes, { guard, files, db, now: clock, ...(options.uploadLockTimings ? { lockTimings: options.uploadLockTimings } : {}) })
  // Share links (decision 016); deleting an account or an item deletes its links (FK cascade).
  await app.register(checkoutRoutes, { guard, provider: cardProvider, appUrl: config.appUrl, now: clock })
  await app.register(shareRoutes, { guard, files, shares: new SharesRepository(db, config.appUrl, clock), tokens: new ShareTokens(db), now: clock })
  // Streaming (decision 017): clusters from STREAMING_CLUSTERS, places and keys in PostgreSQL.
  const streaming = new StreamingAssignments(db, config.streaming.clusters, config.streaming.assignmentMinutes * 60_000, clock)
  await app.register(streamingRoutes, { guard, assignments: streaming, grants: new StreamingGrants(db, config.appUrl) })
  // The catalogue keeps itself current (decision 029): CATALOGUE_FEEDS read every
  // CATALOGUE_FEED_INTERVAL between the instances, or at once from the console or the command.
  const feeds = new FeedSync(db, feedSyncOptions(config, clock, app.log))
  const feedSchedule = new FeedSchedule(feeds, config.catalogueFeeds.intervalMs, new RepeatedFailureLog(app.log, 'the catalogue feeds'))
  app.addHook('onReady', async () => feedSchedule.start())
  app.addHook('onClose', async () => feedSchedule.stop())
  // Notification mail (decision 030): the BFF's mail worker claims the accounts a mail is
  // due to with the auth core's key (or the operator token); the unsubscribe links' key is shared
  // by every instance through the database.
  const notificationMail = new NotificationMail({ db, coreUser: (userId) => core.user(userId), log: app.log, now: clock }, new UnsubscribeTokens(await unsubscribeKey(db), clock))
  await app.register(notificationMailRoutes, {
    mail: notificationMail,
    secrets: [...(config.authCoreApiKeys ?? []), ...(coreApiKey ? [coreApiKey] : []), ...(options.operatorToken ? [options.operatorToken] : [])],
  })
  // The operator console: every route checked against its permission (shared/operator.ts).
  await app.register(operatorRoutes, { guard, core, roles, now: clock, feeds })
  // What a crash left in the drive (a write cut short, a deletion half done) is cleared before the
  // first request, then every hour with the trash past its 30 days.
  let filesSweep: NodeJS.Timeout | undefined
  // A sweep that keeps failing is one line when it begins and one when it works again.
  const sweepFailures = new RepeatedFailureLog(app.log, 'the drive sweep')
  const sweepFiles = () =>
    files.sweep().then(
      () => sweepFailures.succeeded(),
      (err: unknown) => {
        // A database out of reach is its outage log's to tell.
        if (isDatabaseUnreachable(err)) return
        sweepFailures.failed(err, 'the drive sweep failed; it runs again within the hour')
        reporter?.captureBackgroundError(err, 'files-sweep')
      },
    )
  app.addHook('onReady', async () => {
    await sweepFiles()
    filesSweep = setInterval(() => void sweepFiles(), FILES_SWEEP_INTERVAL_MS)
    filesSweep.unref()
  })
  app.addHook('onClose', async () => clearInterval(filesSweep))

  // Operator endpoints (npm run maintenance). Not under /api, so the BFF never proxies them.
  if (options.operatorToken) {
    await app.register(internalRoutes, {
      operatorToken: options.operatorToken,
      dataDir: config.dataDir,
      databaseFolder: options.databaseFolder ?? 'pglite',
      filesRoot: storage instanceof DiskStorage ? storage.root : null,
      appVersion: buildInfo.version,
      core,
      roles,
      feeds,
    })
  }

  return app
}
