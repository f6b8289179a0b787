// `BENCH_ONLY=files npm run bench`: a 1 GiB file uploaded (tus) and downloaded through
// the BFF, against the same transfers straight to the product API, both with curl, and the BFF's
// peak memory while it streams — which must stay flat, not grow with the file. The BFF runs in a
// process of its own (the auth core and the API in another) on a throwaway PostgreSQL, so its peak
// RSS is its own: the kernel's high-water mark (VmHWM), reset before each transfer (clear_refs 5).
// Budgets on the 2-core machine: each direction through the BFF at least 0.5× the direct speed,
// and the BFF's peak during the 1 GiB transfers at most 48 MB above its peak during 64 MiB ones.
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, newestPostgresBin, startPostgres } from '../scripts/throwaway-postgres.ts'
import { verifiedUser } from './bench-user.ts'

const here = fileURLToPath(import.meta.url)
const API_KEY = 'bench-core-api-key-0123456789'
const BIG_MIB = Number(process.env.BENCH_FILES_MIB ?? 1024)
const SMALL_MIB = 64
export const FILES_BUDGET = { minRatio: 0.5, maxPeakGrowthMb: 48 }

export interface FilesRow {
  name: string
  mib: number
  mibPerSecond: number
  /** The BFF's peak RSS during the transfer, MB (null when it did not pass the BFF). */
  bffPeakMb: number | null
}

export interface FilesFigures {
  rows: FilesRow[]
  uploadRatio: number
  downloadRatio: number
  peakGrowthMb: number
  pass: boolean
}

function serveEnv(dataDir: string, databaseUrl: string, ports: { bff: number; api: number; core: number }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    APP_URL: `http://127.0.0.1:${ports.bff}`,
    AUTH_CORE_API_KEYS: API_KEY,
    AUTH_CORE_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    RATE_LIMIT_MAX: '1000000',
    AUTH_RATE_LIMIT_MAX: '1000000',
    FILES_QUOTA_BYTES: String(64 * 2 ** 30),
    FILES_MAX_FILE_BYTES: String(4 * 2 ** 30),
    BENCH_PORTS: JSON.stringify(ports),
  }
}

/** The child: `backend` (auth core + API) or `bff`, on the PostgreSQL the parent started. */
async function serve(role: string): Promise<void> {
  const { buildApi } = await import('../server/api/app.ts')
  const { buildAuthCore } = await import('../server/authcore/app.ts')
  const { buildBff } = await import('../server/bff/app.ts')
  const { readBuildInfo } = await import('../server/build-info.ts')
  const { loadConfig } = await import('../server/config.ts')
  const { openPostgres } = await import('../server/db/postgres.ts')
  const ports = JSON.parse(process.env.BENCH_PORTS!) as { bff: number; api: number; core: number }
  const config = loadConfig(process.env)
  const db = await openPostgres({ connectionString: process.env.DATABASE_URL! })
  const buildInfo = readBuildInfo()
  const authCoreUrl = `http://127.0.0.1:${ports.core}`
  if (role === 'backend') {
    const core = await buildAuthCore({ config, db, secret: 'bench-secret-bench-secret-bench-secret-0123', apiKeys: [API_KEY] })
    await core.listen({ host: '127.0.0.1', port: ports.core })
    const api = await buildApi({ config, db, buildInfo, authCoreUrl })
    await api.listen({ host: '127.0.0.1', port: ports.api })
  } else {
    const bff = await buildBff({ config, db, buildInfo, upstreamApiUrl: `http://127.0.0.1:${ports.api}`, authCoreUrl })
    await bff.listen({ host: '127.0.0.1', port: ports.bff })
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
  process.send?.('ready')
}

function start(role: string, env: NodeJS.ProcessEnv, children: Set<ChildProcess>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(here, ['serve', role], { execArgv: ['--import', 'tsx'], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    children.add(child)
    child.once('message', () => resolve(child))
    child.once('exit', (code) => reject(new Error(`the files bench ${role} exited with ${code}`)))
  })
}

/** A file of `mib` MiB that no layer can compress: one random block repeated. */
function makeFile(dir: string, mib: number): string {
  const file = path.join(dir, `payload-${mib}.bin`)
  const block = randomBytes(2 ** 20)
  const fd = fs.openSync(file, 'w')
  for (let i = 0; i < mib; i++) fs.writeSync(fd, block)
  fs.closeSync(fd)
  return file
}

function curl(args: string[]): string {
  return execFileSync('curl', ['--silent', '--show-error', '--fail', ...args], { encoding: 'utf8', maxBuffer: 2 ** 20 })
}

function peakReset(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

function peakMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
  return kb / 1024
}

interface Target {
  base: string
  headers: string[]
}

/** Creates the upload (tus), then sends the file in one PATCH with curl, streamed from disk; MiB/s. */
async function upload(target: Target, file: string, name: string): Promise<number> {
  const size = fs.statSync(file).size
  const created = await fetch(`${target.base}/api/files/uploads`, {
    method: 'POST',
    headers: {
      ...Object.fromEntries(target.headers.map((h) => h.split(/:\s*/, 2) as [string, string])),
      'tus-resumable': '1.0.0',
      'upload-length': String(size),
      'upload-metadata': `filename ${Buffer.from(name).toString('base64')}`,
    },
  })
  const location = created.headers.get('location')
  if (created.status !== 201 || !location) throw new Error(`upload creation answered ${created.status}: ${await created.text()}`)
  const url = new URL(location, target.base).href
  const out = curl([
    '-X', 'PATCH', '-T', file, '-o', '/dev/null', '-w', '%{speed_upload}',
    '-H', 'Expect:', '-H', 'tus-resumable: 1.0.0', '-H', 'upload-offset: 0', '-H', 'content-type: application/offset+octet-stream',
    ...target.headers.flatMap((h) => ['-H', h]),
    url,
  ])
  return Number(out) / 2 ** 20
}

async function fileId(target: Target, name: string): Promise<string> {
  const response = await fetch(`${target.base}/api/files`, { headers: Object.fromEntries(target.headers.map((h) => h.split(/:\s*/, 2) as [string, string])) })
  const listing = (await response.json()) as { items: Array<{ id: string; name: string }> }
  const item = listing.items.find((i) => i.name === name)
  if (!item) throw new Error(`${name} is not in the drive`)
  return item.id
}

function download(target: Target, id: string): number {
  const out = curl(['-o', '/dev/null', '-w', '%{speed_download}', ...target.headers.flatMap((h) => ['-H', h]), `${target.base}/api/files/${id}/content`])
  return Number(out) / 2 ** 20
}

export async function benchFiles(cleanups: Array<() => void>): Promise<FilesFigures> {
  const bin = newestPostgresBin()
  if (!bin) throw new Error('the files benchmark needs PostgreSQL (Debian package postgresql)')
  const databaseUrl = await startPostgres(bin, cleanups)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-files-'))
  const children = new Set<ChildProcess>()
  cleanups.push(() => {
    for (const child of children) child.kill('SIGTERM')
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const ports = { bff: await freePort(), api: await freePort(), core: await freePort() }
  const env = serveEnv(path.join(dataDir, 'data'), databaseUrl, ports)
  await start('backend', env, children)
  const bffProcess = await start('bff', env, children)
  const accessToken = (await verifiedUser(`http://127.0.0.1:${ports.bff}`, `http://127.0.0.1:${ports.core}`, API_KEY, 'files-bench@example.com')).get('sAccessToken')
  if (!accessToken) throw new Error('the bench user has no session')
  const viaBff: Target = { base: `http://127.0.0.1:${ports.bff}`, headers: [`cookie: sAccessToken=${accessToken}`, 'rid: anti-csrf'] }
  const direct: Target = { base: `http://127.0.0.1:${ports.api}`, headers: [`authorization: Bearer ${accessToken}`] }
  const small = makeFile(dataDir, SMALL_MIB)
  const big = makeFile(dataDir, BIG_MIB)
  const pid = bffProcess.pid!
  const rows: FilesRow[] = []
  const throughBff = async (name: string, mib: number, transfer: () => Promise<number> | number) => {
    peakReset(pid)
    const speed = await transfer()
    rows.push({ name, mib, mibPerSecond: speed, bffPeakMb: peakMb(pid) })
  }
  // Warm both paths, then the small transfers (the baseline of the BFF's memory), then the big ones.
  await upload(viaBff, small, 'warm-up.bin')
  await throughBff('upload through the BFF', SMALL_MIB, () => upload(viaBff, small, 'small.bin'))
  await throughBff('download through the BFF', SMALL_MIB, async () => download(viaBff, await fileId(viaBff, 'small.bin')))
  await throughBff('upload through the BFF', BIG_MIB, () => upload(viaBff, big, 'big-bff.bin'))
  rows.push({ name: 'upload straight to the API', mib: BIG_MIB, mibPerSecond: await upload(direct, big, 'big-direct.bin'), bffPeakMb: null })
  const bigId = await fileId(direct, 'big-direct.bin')
  await throughBff('download through the BFF', BIG_MIB, () => download(viaBff, bigId))
  rows.push({ name: 'download straight from the API', mib: BIG_MIB, mibPerSecond: download(direct, bigId), bffPeakMb: null })

  const speed = (name: string) => rows.find((row) => row.name === name && row.mib === BIG_MIB)!.mibPerSecond
  const uploadRatio = speed('upload through the BFF') / speed('upload straight to the API')
  const downloadRatio = speed('download through the BFF') / speed('download straight from the API')
  const peaks = (mib: number) => Math.max(...rows.filter((row) => row.mib === mib && row.bffPeakMb !== null).map((row) => row.bffPeakMb!))
  const peakGrowthMb = peaks(BIG_MIB) - peaks(SMALL_MIB)
  const pass = uploadRatio >= FILES_BUDGET.minRatio && downloadRatio >= FILES_BUDGET.minRatio && peakGrowthMb <= FILES_BUDGET.maxPeakGrowthMb
  return { rows, uploadRatio, downloadRatio, peakGrowthMb, pass }
}

export function printFiles(figures: FilesFigures): void {
  const f = (value: number) => value.toFixed(value >= 100 ? 0 : 1)
  console.log('\n## Files through the BFF (issue 12)\n')
  console.log('curl on loopback; uploads are tus (one creation, one PATCH streamed from disk); PostgreSQL; disk storage\n')
  console.log('| transfer | MiB | MiB/s | BFF peak RSS MB |')
  console.log('|---|---:|---:|---:|')
  for (const row of figures.rows) console.log(`| ${row.name} | ${row.mib} | ${f(row.mibPerSecond)} | ${row.bffPeakMb === null ? '—' : f(row.bffPeakMb)} |`)
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
  console.log(`\n${verdict(figures.uploadRatio >= FILES_BUDGET.minRatio)} upload through the BFF ÷ direct: ${figures.uploadRatio.toFixed(2)} (budget ≥ ${FILES_BUDGET.minRatio})`)
  console.log(`${verdict(figures.downloadRatio >= FILES_BUDGET.minRatio)} download through the BFF ÷ direct: ${figures.downloadRatio.toFixed(2)} (budget ≥ ${FILES_BUDGET.minRatio})`)
  console.log(`${verdict(figures.peakGrowthMb <= FILES_BUDGET.maxPeakGrowthMb)} BFF peak RSS, ${BIG_MIB} MiB transfers − ${SMALL_MIB} MiB transfers: ${f(figures.peakGrowthMb)} MB (budget ≤ ${FILES_BUDGET.maxPeakGrowthMb} MB)`)
}

if (process.argv[2] === 'serve') {
  await serve(process.argv[3] ?? '')
} else if (process.argv[1] === here) {
  const cleanups: Array<() => void> = []
  process.on('exit', () => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()))
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))
  const figures = await benchFiles(cleanups)
  printFiles(figures)
  process.exit(figures.pass ? 0 : 1)
}
