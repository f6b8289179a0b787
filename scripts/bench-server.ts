// A server for the benchmark, in its own process so it does not share an event loop with the
// load generator: `bare <port>` (a hello-world Fastify, the baseline) or `stack <bffPort> <apiPort>`.
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

const [mode, first, second] = process.argv.slice(2)

if (mode === 'bare') {
  const app = Fastify({ logger: false })
  app.get('/hello', async () => ({ hello: 'world' }))
  await app.listen({ host: '127.0.0.1', port: Number(first) })
} else if (mode === 'stack') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-'))
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }))
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', DATA_DIR: dataDir, RATE_LIMIT_MAX: '100000000' })
  const db = process.env.BENCH_DATABASE_URL ? await openPostgres({ connectionString: process.env.BENCH_DATABASE_URL }) : await openPglite({ dataDir: path.join(dataDir, 'pglite') })
  const buildInfo = readBuildInfo()
  const api = await buildApi({ config, db, buildInfo })
  await api.listen({ host: '127.0.0.1', port: Number(second) })
  const bff = await buildBff({ config, db, buildInfo, upstreamApiUrl: `http://127.0.0.1:${second}` })
  await bff.listen({ host: '127.0.0.1', port: Number(first) })
} else {
  console.error('usage: bench-server bare <port> | stack <bffPort> <apiPort>')
  process.exit(2)
}
process.send?.('ready')
