import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { buildApi } from './api/app.ts'
import { buildAuthCore } from './authcore/app.ts'
import { buildBff } from './bff/app.ts'
import { readBuildInfo } from './build-info.ts'
import { ConfigError, loadConfig, readinessDelayMs, roleProblems, ROLES, type Config, type Role } from './config.ts'
import type { Database } from './db/database.ts'
import { openDatabase } from './db/open.ts'
import { stopServices } from './http/shutdown.ts'
import { embeddedOperatorToken, embeddedSecret } from './operator-token.ts'

// Process entry: `node dist/server/main.js [all|bff|api|authcore] [--dev]`. Reads the configuration,
// starts the roles asked for, and shuts down gracefully on SIGTERM/SIGINT.

/**
 * Connections the kernel may queue before the process accepts them. Node accepts about one per
 * event-loop turn, so a burst of a thousand clients needs room to wait rather than be reset
 * (Node's default is 511; Linux caps it at net.core.somaxconn).
 */
const LISTEN_BACKLOG = 4096

function parseArgs(argv: string[]): { role: Role; dev: boolean } {
  const positional = argv.filter((arg) => !arg.startsWith('--'))
  const role = (positional[0] ?? 'all') as Role
  if (!ROLES.includes(role)) {
    console.error(`Unknown role "${role}". Use one of: ${ROLES.join(', ')}.`)
    process.exit(2)
  }
  return { role, dev: argv.includes('--dev') }
}

async function main(): Promise<void> {
  const { role, dev } = parseArgs(process.argv.slice(2))
  let config: Config
  try {
    config = loadConfig(process.env)
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(1)
    }
    throw error
  }
  const buildInfo = readBuildInfo(config.buildId)
  const runApi = role === 'api' || (role === 'all' && !config.upstreamApiUrl)
  const runBff = role === 'bff' || role === 'all'
  const runAuthCore = role === 'authcore' || (role === 'all' && !config.authCoreUrl)
  const problems = roleProblems(config, role)
  if (problems.length > 0) {
    console.error(new ConfigError(problems).message)
    process.exit(1)
  }
  // The auth core answers only callers with its key: the embedded default makes one
  // and hands it to the BFF and the API it starts; anywhere else the operator sets AUTH_CORE_API_KEYS.
  const embedded = role === 'all' && !config.databaseUrl
  let coreApiKeys = config.authCoreApiKeys ?? null
  // Outside the embedded default a core without keys has stopped the start already (roleProblems).
  if (runAuthCore && !coreApiKeys && !config.authCoreOpen && embedded) coreApiKeys = [embeddedSecret(config.dataDir, 'authcore-api-key', 'hex')]
  const coreApiKey = coreApiKeys?.[0]
  // The operator's token: the API's /internal endpoints and every service's /metrics answer only to it.
  const operatorToken = config.operatorToken ?? (config.databaseUrl ? undefined : embeddedOperatorToken(config.dataDir))
  const databaseFolder = role === 'all' ? 'pglite' : `pglite-${role}`
  const db: Database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, folder: databaseFolder })

  const apps: FastifyInstance[] = []
  closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) {
      console.error('fatal error, shutting down', err)
      // Reported once, by the first service that reports (each sends what it holds as it closes).
      apps.find((app) => app.errorReporter)?.errorReporter?.captureBackgroundError(err, 'process')
    }
    else if (signal) apps[0]?.log.info({ signal }, 'shutting down')
    // A planned stop fails /readyz first and serves on until the load balancer has seen it (issue
    // 26). The public edge closes first, so nothing new reaches the API while it drains.
    await stopServices([...apps].reverse(), { readinessDelayMs: err ? 0 : readinessDelayMs(config, role) })
    await db.close()
  })

  if (runAuthCore) {
    // Embedded mode keeps a generated secret; with DATABASE_URL the configuration requires one.
    const secret = config.authCoreSecret ?? embeddedSecret(config.dataDir, 'authcore-secret')
    const core = await buildAuthCore({
      config,
      db,
      secret,
      apiKeys: coreApiKeys,
      operatorToken,
      publicDefaults: { passwordHashingAlg: config.authCorePasswordHashing },
    })
    await core.listen({ host: config.authCoreHost, port: config.authCorePort, backlog: LISTEN_BACKLOG })
    apps.push(core)
  }
  if (runApi) {
    // Behind a BFF in this process the BFF sheds at the edge; a request it let in is not refused again.
    const api = await buildApi({ config, db, buildInfo, operatorToken, authCoreApiKey: coreApiKey, shedLoad: !runBff, databaseFolder })
    await api.listen({ host: config.apiHost, port: config.apiPort, backlog: LISTEN_BACKLOG })
    apps.push(api)
  }
  if (runBff) {
    const upstreamApiUrl = config.upstreamApiUrl ?? `http://${config.apiHost}:${config.apiPort}`
    const bff = await buildBff({ config, db, buildInfo, upstreamApiUrl, dev, authCoreApiKey: coreApiKey, operatorToken })
    await bff.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG })
    apps.push(bff)
    bff.log.info(`Softshelf ${buildInfo.version} is ready at ${config.appUrl}`)
  }
}

main().catch((error: unknown) => {
  console.error('Softshelf failed to start:', error instanceof Error ? error.message : error)
  process.exit(1)
})
