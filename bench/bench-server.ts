// A server for the benchmark, in its own process so it does not share an event loop with the
// load generator: `bare <port>` (a hello-world Fastify, the baseline), `stack <bffPort> <apiPort>`,
// `session <bffPort> <apiPort> <corePort>` (with the auth core and a signed-in user), or `catalogue <apiPort>` (the API alone on a generated 10,000-program catalogue).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import { buildApi } from '../server/api/app.ts'
import { buildBff } from '../server/bff/app.ts'
import { readBuildInfo } from '../server/build-info.ts'
import { loadConfig } from '../server/config.ts'
import { openPglite } from '../server/db/pglite.ts'
import { openPostgres } from '../server/db/postgres.ts'
import { generateCatalogue } from './bench-catalogue-data.ts'
import { verifiedUser } from './bench-user.ts'

const [mode, first, second] = process.argv.slice(2)
/** What the parent receives once the server listens. */
let ready: unknown = 'ready'

if (mode === 'bare') {
  const app = Fastify({ logger: false })
  app.get('/hello', async () => ({ hello: 'world' }))
  await app.listen({ host: '127.0.0.1', port: Number(first) })
} else if (mode === 'minimal-proxy') {
  // Reference point: the least a Fastify + undici proxy can do, in front of the same API route,
  // both in one process as in the embedded default. Shows what the BFF's own work costs.
  const { Pool } = await import('undici')
  const api = Fastify({ logger: false })
  api.get('/x', async () => ({ name: 'softshelf', version: '1.0.716+bench', buildId: 'bench', node: process.version }))
  await api.listen({ host: '127.0.0.1', port: Number(second) })
  const pool = new Pool(`http://127.0.0.1:${second}`, { connections: 64 })
  const proxy = Fastify({ logger: false })
  proxy.get('/x', async (_request, reply) => {
    const response = await pool.request({ method: 'GET', path: '/x' })
    const body = Buffer.from(await response.body.arrayBuffer())
    return reply.header('content-type', String(response.headers['content-type'])).send(body)
  })
  await proxy.listen({ host: '127.0.0.1', port: Number(first) })
} else if (mode === 'stack') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-'))
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }))
  // The page's canonical links and absolute URLs name the origin it is really served from (Lighthouse checks them).
  const appUrl = process.env.APP_URL ?? `http://127.0.0.1:${first}`
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000000', APP_URL: appUrl })
  const db = process.env.BENCH_DATABASE_URL ? await openPostgres({ connectionString: process.env.BENCH_DATABASE_URL }) : await openPglite({ dataDir: path.join(dataDir, 'pglite') })
  const buildInfo = readBuildInfo()
  const api = await buildApi({ config, db, buildInfo })
  await api.listen({ host: '127.0.0.1', port: Number(second) })
  const bff = await buildBff({ config, db, buildInfo, upstreamApiUrl: `http://127.0.0.1:${second}` })
  await bff.listen({ host: '127.0.0.1', port: Number(first) })
} else if (mode === 'session') {
  // The whole stack with its auth core (and the core's API key), and one signed-in,
  // verified user whose access token the parent sends, through the BFF's cookie and to the API
  // directly. Every authenticated call is checked against the revocation list in memory.
  const { buildAuthCore } = await import('../server/authcore/app.ts')
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-'))
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }))
  const apiKey = 'bench-core-api-key-0123456789'
  const corePort = Number(process.argv[5])
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000000', AUTH_RATE_LIMIT_MAX: '1000000', AUTH_CORE_API_KEYS: apiKey })
  const db = process.env.BENCH_DATABASE_URL ? await openPostgres({ connectionString: process.env.BENCH_DATABASE_URL }) : await openPglite({ dataDir: path.join(dataDir, 'pglite') })
  const buildInfo = readBuildInfo()
  const core = await buildAuthCore({ config, db, secret: 'bench-secret-bench-secret-bench-secret-0123', apiKeys: [apiKey] })
  await core.listen({ host: '127.0.0.1', port: corePort })
  const authCoreUrl = `http://127.0.0.1:${corePort}`
  const api = await buildApi({ config, db, buildInfo, authCoreUrl })
  await api.listen({ host: '127.0.0.1', port: Number(second) })
  const bff = await buildBff({ config, db, buildInfo, upstreamApiUrl: `http://127.0.0.1:${second}`, authCoreUrl })
  await bff.listen({ host: '127.0.0.1', port: Number(first) })
  const cookies = await verifiedUser(`http://127.0.0.1:${first}`, authCoreUrl, apiKey, 'bench@example.com')
  ready = { accessToken: cookies.get('sAccessToken') }
} else if (mode === 'catalogue') {
  // PGlite in a temporary folder, or the empty PostgreSQL database the parent created for this run.
  // The generated rows go in after buildApi's migrations and seed and before the API listens, so
  // the first request already sees 10,000 programs.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-'))
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }))
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000000' })
  const url = process.env.BENCH_CATALOGUE_DATABASE_URL
  const db = url ? await openPostgres({ connectionString: url }) : await openPglite({ dataDir: path.join(dataDir, 'pglite') })
  const api = await buildApi({ config, db, buildInfo: readBuildInfo() })
  const generated = await generateCatalogue(db, { total: Number(process.env.BENCH_CATALOGUE_SIZE ?? 10_000) })
  await api.listen({ host: '127.0.0.1', port: Number(first) })
  ready = { kind: db.kind, ...generated }
} else {
  console.error('usage: bench-server bare <port> | minimal-proxy <port> <apiPort> | stack <bffPort> <apiPort> | session <bffPort> <apiPort> <corePort> | catalogue <apiPort>')
  process.exit(2)
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
process.send?.(ready)
