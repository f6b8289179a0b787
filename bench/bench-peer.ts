// `BENCH_ONLY=peer npm run bench` or `npx tsx bench/bench-peer.ts`: Softshelf
// against a minimal Next.js 16 App Router app with the same two pages, data, visible text and CSS
// (bench/next-peer: installed with `npm ci --prefix bench/next-peer` and built with `next build`
// here when missing — never by the root's `npm ci` or `npm test`).
//
// Ours: the built app as `npm start` runs it (dist/server/main.js, role `all`, production,
// embedded PGlite, its default log level), loopback. The peer: `next start` on loopback.
// The pairs, each at 10 and at 100 connections, three rounds of BENCH_PEER_DURATION s (10),
// A/B interleaved (the order flips each round), only 2xx answers counted:
// - rendered vs dynamic: ours with a cookie that is neither the language nor the consent (no page
//   cache may answer it: server/bff/plugins/ssr.ts isAnonymous), Next's `dynamic = 'force-dynamic'`;
// - cached vs ISR: ours anonymous (the BFF's 1-second page cache), Next's `revalidate = 1`.
// Then /api/version through the BFF against a bare Fastify server that answers the same JSON and
// logs the same lines (none: the polled route logs at warn).
// `bench/bench-peer.ts profile [/path]` profiles ours rendering that page (or answering that
// /api/ route at 100 connections) instead (profile-summary.ts).
// Budgets: rendered ≥ 2× and cached ≥ 4× Next's 2xx req/s at both loads; our p99 ≤ 1 s;
// /api/version ≥ 0.5× the bare server's. Exits 1 when one is missed (standalone).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { printSummary, summarize, type ProfileSummary } from './profile-summary.ts'
import { cpuUsOf, median, startInstance, waitUntilAnswers } from './bench-instance.ts'
import { freePort } from '../scripts/throwaway-postgres.ts'

const here = fileURLToPath(import.meta.url)
const root = path.resolve(path.dirname(here), '..')
const peerDir = path.join(root, 'bench', 'next-peer')
const DURATION_S = Number(process.env.BENCH_PEER_DURATION ?? 10)
const ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 3)
const LOADS = (process.env.BENCH_PEER_CONNECTIONS ?? '10,100').split(',').map(Number)
/** Some of the pairs only (rendered, cached, version), for a quicker look; all by default. */
const KINDS = process.env.BENCH_PEER_PAIRS?.split(',')
export const PEER_BUDGET = { rendered: 2, cached: 4, maxP99Ms: 1000, version: 0.5 }

/** A program of the seed, as both apps serve it. */
const PROGRAM = 'blender'
/** A cookie that is not one of the page cache's two (language, consent): the page is rendered. */
const RENDER_COOKIE = 'bench=rendered'

export interface Side {
  /** 2xx answers a second. */
  rps: number
  p99Ms: number
  ok: number
  non2xx: number
  errors: number
  /** The server's CPU time per 2xx answer (µs), where it was measured (ours). */
  cpuUsPerAnswer?: number
}

export interface PairFigures {
  name: string
  kind: 'rendered' | 'cached' | 'version'
  connections: number
  ours: Side[]
  theirs: Side[]
}

export interface PeerFigures {
  machine: string
  pairs: PairFigures[]
  pass: boolean
}

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status})`)
}

/** Installs (npm ci, from its own lock file) and builds the peer when it is not there yet or older than its sources. */
function ensurePeer(): void {
  if (!fs.existsSync(path.join(peerDir, 'node_modules', 'next'))) {
    console.log('bench/next-peer: npm ci…')
    run('npm', ['ci', '--no-audit', '--no-fund', '--prefix', peerDir], root)
  }
  const built = path.join(peerDir, '.next', 'BUILD_ID')
  const newest = (dir: string): number =>
    Math.max(0, ...fs.readdirSync(dir, { withFileTypes: true }).map((entry) => (entry.isDirectory() ? newest(path.join(dir, entry.name)) : fs.statSync(path.join(dir, entry.name)).mtimeMs)))
  const sources = Math.max(
    newest(path.join(peerDir, 'app')),
    newest(path.join(peerDir, 'lib')),
    ...['next.config.mjs', 'package-lock.json'].map((file) => fs.statSync(path.join(peerDir, file)).mtimeMs),
    fs.statSync(path.join(root, 'client', 'styles.css')).mtimeMs,
  )
  if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < sources) {
    console.log('bench/next-peer: next build…')
    run('npm', ['run', 'build', '--prefix', peerDir], root)
  }
}

/** Ours: the product's default log level, and no per-IP limit (one machine's load generator is one address: it would answer 429s). */
function startOurs(cleanups: Array<() => void>, nodeArgs: string[] = []): Promise<{ base: string; child: ChildProcess }> {
  return startInstance(cleanups, { name: 'peer', env: { RATE_LIMIT_MAX: '1000000' }, unset: ['LOG_LEVEL'], nodeArgs })
}

/**
 * `bench/bench-peer.ts profile [path]`: ours under --cpu-prof, the rendered page at 10
 * connections for BENCH_PEER_DURATION s after a warm-up, then the profile's self time by package.
 */
export async function profileRender(cleanups: Array<() => void>, pagePath = '/library'): Promise<ProfileSummary> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-profile-'))
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
  const spawned = performance.now()
  const { base, child } = await startOurs(cleanups, ['--cpu-prof', `--cpu-prof-dir=${dir}`])
  // A page rendered at 10 connections; an API route (/api/version) as its pair is measured, at 100.
  const api = pagePath.startsWith('/api/')
  const headers: Record<string, string> = api ? {} : { 'accept-language': 'en', cookie: RENDER_COOKIE }
  const connections = api ? 100 : 10
  await load(`${base}${pagePath}`, connections, headers, 3)
  // Only the measured load counts, not the start-up or the warm-up.
  const from = performance.now() - spawned
  const measured = await load(`${base}${pagePath}`, connections, headers)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
  const file = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))
  if (!file) throw new Error('no CPU profile was written')
  if (process.env.BENCH_PEER_PROFILE_KEEP) fs.copyFileSync(path.join(dir, file), process.env.BENCH_PEER_PROFILE_KEEP)
  console.log(`${pagePath} under --cpu-prof, ${connections} connections: ${Math.round(measured.rps)} 2xx req/s, p99 ${measured.p99Ms} ms, non-2xx ${measured.non2xx}`)
  console.log(`(samples from ${Math.round(from)} ms after the start)`)
  return summarize(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Parameters<typeof summarize>[0], Number(process.env.BENCH_PEER_PROFILE_TOP ?? 15), from)
}

async function startPeer(cleanups: Array<() => void>, version: string): Promise<string> {
  const port = await freePort()
  const child = spawn(process.execPath, [path.join(peerDir, 'node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: peerDir,
    env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', SOFTSHELF_ROOT: root, SOFTSHELF_VERSION: version },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  cleanups.push(() => child.kill('SIGKILL'))
  const base = `http://127.0.0.1:${port}`
  await waitUntilAnswers(`${base}/library`, child, 'next start')
  return base
}

/**
 * The bare reference of /api/version: the same JSON, and the same log lines as ours — none at
 * info: the route every tab polls logs at warn (server/http/logger.ts POLLED_ROUTES),
 * so here too a logger at info, the route at warn (a child logger per request, as Fastify makes).
 */
async function startBare(cleanups: Array<() => void>, body: string): Promise<string> {
  const port = await freePort()
  const source = `
    import Fastify from 'fastify'
    const body = ${JSON.stringify(body)}
    const app = Fastify({ logger: { level: 'info' } })
    app.get('/api/version', { logLevel: 'warn' }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(body))
    await app.listen({ host: '127.0.0.1', port: ${port} })
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], { cwd: root, env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'ignore', 'inherit'] })
  cleanups.push(() => child.kill('SIGKILL'))
  const base = `http://127.0.0.1:${port}`
  await waitUntilAnswers(`${base}/api/version`, child, 'bare Fastify')
  return base
}

/** `pid`: the server's process, whose CPU time per 2xx answer is given as well. */
async function load(url: string, connections: number, headers: Record<string, string>, duration = DURATION_S, pid?: number): Promise<Side> {
  const cpuBefore = cpuUsOf(pid)
  const result = await autocannon({ url, connections, duration, headers, timeout: 10 })
  const cpuAfter = cpuUsOf(pid)
  const stats = result.statusCodeStats as Record<string, { count: number }>
  const ok = Object.entries(stats)
    .filter(([status]) => Number(status) >= 200 && Number(status) < 300)
    .reduce((sum, [, stat]) => sum + stat.count, 0)
  const side: Side = { rps: ok / duration, p99Ms: result.latency.p99, ok, non2xx: result.non2xx, errors: result.errors + result.timeouts }
  if (cpuBefore !== undefined && cpuAfter !== undefined && ok > 0) side.cpuUsPerAnswer = (cpuAfter - cpuBefore) / ok
  return side
}

const medianOf = (sides: Side[], key: keyof Side) => median(sides.map((side) => side[key] ?? Number.NaN))
export const ratioOf = (pair: PairFigures) => medianOf(pair.ours, 'rps') / medianOf(pair.theirs, 'rps')

export async function benchPeer(cleanups: Array<() => void>): Promise<PeerFigures> {
  ensurePeer()
  const { base: ours, child: oursChild } = await startOurs(cleanups)
  const versionBody = await (await fetch(`${ours}/api/version`)).text()
  const version = (JSON.parse(versionBody) as { version: string }).version
  const peer = await startPeer(cleanups, version)
  const bare = await startBare(cleanups, versionBody)
  const english = { 'accept-language': 'en' }
  const targets: Array<{ name: string; kind: PairFigures['kind']; ours: [string, Record<string, string>]; theirs: [string, Record<string, string>] }> = [
    { name: '`/library` rendered vs dynamic', kind: 'rendered', ours: [`${ours}/library`, { ...english, cookie: RENDER_COOKIE }], theirs: [`${peer}/library`, english] },
    { name: 'program page rendered vs dynamic', kind: 'rendered', ours: [`${ours}/programs/${PROGRAM}`, { ...english, cookie: RENDER_COOKIE }], theirs: [`${peer}/programs/${PROGRAM}`, english] },
    { name: '`/library` cached vs ISR', kind: 'cached', ours: [`${ours}/library`, english], theirs: [`${peer}/isr/library`, english] },
    { name: 'program page cached vs ISR', kind: 'cached', ours: [`${ours}/programs/${PROGRAM}`, english], theirs: [`${peer}/isr/programs/${PROGRAM}`, english] },
    { name: '`/api/version` BFF vs bare Fastify (same JSON, same log lines: none)', kind: 'version', ours: [`${ours}/api/version`, {}], theirs: [`${bare}/api/version`, {}] },
  ]
  // Warm-up: the JIT, the pools, Next's first ISR generation.
  for (const target of targets) {
    await load(target.ours[0], 10, target.ours[1], 2)
    await load(target.theirs[0], 10, target.theirs[1], 2)
  }
  const pairs: PairFigures[] = []
  for (const connections of LOADS) {
    for (const target of targets) {
      if (target.kind === 'version' && connections !== 100) continue
      if (KINDS && !KINDS.includes(target.kind)) continue
      const pair: PairFigures = { name: target.name, kind: target.kind, connections, ours: [], theirs: [] }
      for (let round = 0; round < ROUNDS; round++) {
        // A/B interleaved, the order flipped each round: the shared machine's load drifts.
        if (round % 2 === 0) {
          pair.ours.push(await load(target.ours[0], connections, target.ours[1], DURATION_S, oursChild.pid))
          pair.theirs.push(await load(target.theirs[0], connections, target.theirs[1]))
        } else {
          pair.theirs.push(await load(target.theirs[0], connections, target.theirs[1]))
          pair.ours.push(await load(target.ours[0], connections, target.ours[1], DURATION_S, oursChild.pid))
        }
      }
      pairs.push(pair)
      printPair(pair)
    }
  }
  const pass = pairs.every((pair) => {
    const min = pair.kind === 'rendered' ? PEER_BUDGET.rendered : pair.kind === 'cached' ? PEER_BUDGET.cached : PEER_BUDGET.version
    return ratioOf(pair) >= min && (pair.kind === 'version' || medianOf(pair.ours, 'p99Ms') <= PEER_BUDGET.maxP99Ms)
  })
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load avg ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`
  return { machine, pairs, pass }
}

const cpu = (sides: Side[]) => (Number.isNaN(medianOf(sides, 'cpuUsPerAnswer')) ? '' : `, ${Math.round(medianOf(sides, 'cpuUsPerAnswer'))} µs CPU an answer`)
const side = (sides: Side[]) => `${Math.round(medianOf(sides, 'rps'))}${cpu(sides)} (p99 ${Math.round(medianOf(sides, 'p99Ms'))} ms, non-2xx ${sides.reduce((sum, s) => sum + s.non2xx, 0)}, errors ${sides.reduce((sum, s) => sum + s.errors, 0)})`

function printPair(pair: PairFigures): void {
  const rounds = pair.ours.map((o, i) => `${Math.round(o.rps)}/${Math.round(pair.theirs[i]!.rps)}`).join(', ')
  console.log(`  c=${pair.connections} ${pair.name}: ours ${side(pair.ours)} vs ${side(pair.theirs)} → ${ratioOf(pair).toFixed(2)}× (rounds ours/theirs: ${rounds})`)
}

export function printPeer(figures: PeerFigures): void {
  console.log(`\n## Next.js peer (issue 30): 2xx req/s, median of ${ROUNDS} interleaved rounds of ${DURATION_S} s\n`)
  console.log(`machine: ${figures.machine}\n`)
  console.log('| pair | c | ours 2xx req/s | ours p99 ms | ours non-2xx | ours CPU µs an answer | peer 2xx req/s | peer p99 ms | peer non-2xx | ratio | budget |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const pair of figures.pairs) {
    const min = pair.kind === 'rendered' ? PEER_BUDGET.rendered : pair.kind === 'cached' ? PEER_BUDGET.cached : PEER_BUDGET.version
    const non2xx = (sides: Side[]) => sides.reduce((sum, s) => sum + s.non2xx + s.errors, 0)
    console.log(
      `| ${pair.name} | ${pair.connections} | ${Math.round(medianOf(pair.ours, 'rps'))} | ${Math.round(medianOf(pair.ours, 'p99Ms'))} | ${non2xx(pair.ours)} | ${Math.round(medianOf(pair.ours, 'cpuUsPerAnswer'))} | ${Math.round(medianOf(pair.theirs, 'rps'))} | ${Math.round(medianOf(pair.theirs, 'p99Ms'))} | ${non2xx(pair.theirs)} | ${ratioOf(pair).toFixed(2)}× | ≥ ${min}× |`,
    )
  }
  for (const pair of figures.pairs) {
    const min = pair.kind === 'rendered' ? PEER_BUDGET.rendered : pair.kind === 'cached' ? PEER_BUDGET.cached : PEER_BUDGET.version
    const p99 = medianOf(pair.ours, 'p99Ms')
    const ok = ratioOf(pair) >= min && (pair.kind === 'version' || p99 <= PEER_BUDGET.maxP99Ms)
    console.log(`${ok ? 'PASS' : 'FAIL'} c=${pair.connections} ${pair.name}: ${ratioOf(pair).toFixed(2)}× (budget ≥ ${min}×)${pair.kind === 'version' ? '' : `, our p99 ${Math.round(p99)} ms (budget ≤ ${PEER_BUDGET.maxP99Ms})`}`)
  }
}

if (process.argv[1] === here) {
  const cleanups: Array<() => void> = []
  process.on('exit', () => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()))
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))
  if (process.argv[2] === 'profile') {
    printSummary(await profileRender(cleanups, process.argv[3]))
    process.exit(0)
  }
  const figures = await benchPeer(cleanups)
  printPeer(figures)
  process.exit(figures.pass ? 0 : 1)
}
