// `BENCH_ONLY=fanout npm run bench`: one release of a program watched by 100,000
// accounts, turned into notifications by the API's fan-out (server/api/notifications/fanout.ts,
// its default batch size), on the embedded default (PGlite, on disk) and on PostgreSQL
// (BENCH_DATABASE_URL, else a throwaway local server). The accounts and watches are inserted
// directly (generate_series); the release is recorded as an editor's is (recordRelease), then the
// clock runs until every notification exists. Each database in a child process of its own, so
// its peak RSS and heap are the fan-out's (sampled every 10 ms), beside the figures before it.
//
// The steps after the release are a list (FANOUT_STEPS): the notification mail adds its own
// ("queued mail") after the notifications, and the row's time is the sum.
import { fork } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import type { Database } from '../server/db/database.ts'
import { newestPostgresBin, startPostgres, withFreshDatabase } from '../scripts/throwaway-postgres.ts'
import { queuedMailStep } from './bench-notification-mail.ts'
import type { FanoutStep } from './fanout-step.ts'

export const FANOUT_WATCHERS = Number(process.env.BENCH_FANOUT_WATCHERS ?? 100_000)
/** Budgets on the 2-core machine (docs/BENCHMARKS.md has the figures they come from). */
export const FANOUT_BUDGET = {
  /** Release recorded → every notification exists, ms. */
  totalMs: { PGlite: 60_000, PostgreSQL: 30_000 },
  /** The step "queued mail" (notification mail): every mail due in the outbox, ms (docs/BENCHMARKS.md). */
  queuedMailMs: { PGlite: 150_000, PostgreSQL: 120_000 },
  /** Peak RSS of the process during the steps, minus its RSS just before them: bounded memory. */
  rssGrowthMb: 150,
  /** Peak heap in use during the steps. */
  peakHeapMb: 150,
}

/** What happens after the release, each timed: the fan-out to notifications, and what later parts add. */
export const FANOUT_STEPS: FanoutStep[] = [
  {
    name: 'notifications',
    async run(db, { event, watchers }) {
      const { NotificationFanout } = await import('../server/api/notifications/fanout.ts')
      const fanout = new NotificationFanout(db, pino({ level: 'warn' }))
      await fanout.drain()
      const { rows } = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM api.notifications WHERE dedupe = $1', [`event:${event}`])
      if (Number(rows[0]!.n) !== watchers) throw new Error(`${rows[0]!.n} notifications for ${watchers} watchers`)
    },
  },
  // The notification mail: every account due a mail has it in the outbox (bench/bench-notification-mail.ts).
  queuedMailStep,
]

export interface FanoutRun {
  database: string
  watchers: number
  setupS: number
  steps: Array<{ name: string; ms: number }>
  totalMs: number
  rssBeforeMb: number
  peakRssMb: number
  peakHeapMb: number
  budgetMs: number
  pass: boolean
}

export interface FanoutFigures {
  runs: FanoutRun[]
  skipped?: string
  failed?: string
  pass: boolean
}

async function measure(kind: 'PGlite' | 'PostgreSQL', databaseUrl: string | undefined): Promise<Omit<FanoutRun, 'database'>> {
  const started = performance.now()
  let db: Database
  let dataDir: string | undefined
  if (databaseUrl) {
    const { openPostgres } = await import('../server/db/postgres.ts')
    db = await openPostgres({ connectionString: databaseUrl, timeoutMs: 120_000 })
  } else {
    const { openPglite } = await import('../server/db/pglite.ts')
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-fanout-'))
    db = await openPglite({ dataDir, timeoutMs: 120_000 })
  }
  try {
    const { migrateApiSchema } = await import('../server/api/schema.ts')
    const { applySeed } = await import('../server/api/catalogue/seed.ts')
    const { recordRelease } = await import('../server/api/catalogue/releases.ts')
    await migrateApiSchema(db)
    await applySeed(db)
    await db.query(
      `INSERT INTO api.users (id, email, notify)
       SELECT 'bench-' || lpad(i::text, 6, '0'), 'bench-' || i || '@example.com', CASE WHEN i % 10 = 0 THEN 'off' WHEN i % 3 = 0 THEN 'immediate' ELSE 'daily' END
       FROM generate_series(1, $1::int) AS i`,
      [FANOUT_WATCHERS],
    )
    await db.query(`INSERT INTO api.watches (user_id, program_id, events) SELECT id, 'blender', ARRAY['release', 'price', 'licence'] FROM api.users WHERE id LIKE 'bench-%'`)
    await db.query('ANALYZE')
    for (const step of FANOUT_STEPS) await step.prepare?.(db)
    const setupS = (performance.now() - started) / 1000
    ;(globalThis as { gc?: () => void }).gc?.()
    const rssBefore = process.memoryUsage().rss
    let peakRss = rssBefore
    let peakHeap = process.memoryUsage().heapUsed
    const sampler = setInterval(() => {
      const usage = process.memoryUsage()
      peakRss = Math.max(peakRss, usage.rss)
      peakHeap = Math.max(peakHeap, usage.heapUsed)
    }, 10)
    const steps: Array<{ name: string; ms: number }> = []
    const clock = performance.now()
    await db.transaction((tx) => recordRelease(tx, { programId: 'blender', version: '99.0', date: '2026-12-06', source: 'editor' }, { actor: { id: 'bench', email: 'bench@example.com' }, requestId: 'bench-fanout' }))
    const { rows } = await db.query<{ id: string }>("SELECT id::text AS id FROM api.catalogue_events WHERE program_id = 'blender' ORDER BY id DESC LIMIT 1")
    const event = rows[0]!.id
    steps.push({ name: 'release recorded', ms: performance.now() - clock })
    for (const step of FANOUT_STEPS) {
      const stepStarted = performance.now()
      await step.run(db, { event, watchers: FANOUT_WATCHERS })
      steps.push({ name: step.name, ms: performance.now() - stepStarted })
    }
    const totalMs = performance.now() - clock
    clearInterval(sampler)
    const mb = (bytes: number) => bytes / 2 ** 20
    // Each part within its own budget: the fan-out's, and the queued mail's after it.
    const mailMs = steps.find((step) => step.name === 'queued mail')?.ms ?? 0
    const budgetMs = FANOUT_BUDGET.totalMs[kind] + (mailMs > 0 ? FANOUT_BUDGET.queuedMailMs[kind] : 0)
    const withinTime = totalMs - mailMs <= FANOUT_BUDGET.totalMs[kind] && mailMs <= FANOUT_BUDGET.queuedMailMs[kind]
    const rssGrowth = mb(peakRss - rssBefore)
    return {
      watchers: FANOUT_WATCHERS,
      setupS,
      steps,
      totalMs,
      rssBeforeMb: mb(rssBefore),
      peakRssMb: mb(peakRss),
      peakHeapMb: mb(peakHeap),
      budgetMs,
      pass: withinTime && rssGrowth <= FANOUT_BUDGET.rssGrowthMb && mb(peakHeap) <= FANOUT_BUDGET.peakHeapMb,
    }
  } finally {
    await db.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

function child(database: string, kind: 'PGlite' | 'PostgreSQL', databaseUrl?: string): Promise<FanoutRun> {
  return new Promise((resolve, reject) => {
    const forked = fork(fileURLToPath(import.meta.url), ['--child', kind, databaseUrl ?? ''], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    forked.once('message', (figures) => resolve({ database, ...(figures as Omit<FanoutRun, 'database'>) }))
    forked.once('error', reject)
    forked.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`the fan-out bench (${database}) exited with ${code}`))))
  })
}


export async function benchFanout(cleanups: Array<() => void>): Promise<FanoutFigures> {
  const runs: FanoutRun[] = [await child('PGlite (embedded, on disk)', 'PGlite')]
  let serverUrl = process.env.BENCH_DATABASE_URL
  let label = 'PostgreSQL (BENCH_DATABASE_URL)'
  let skipped: string | undefined
  let failed: string | undefined
  try {
    if (!serverUrl) {
      const bin = newestPostgresBin()
      if (bin) {
        serverUrl = await startPostgres(bin, cleanups)
        label = `PostgreSQL ${path.basename(path.dirname(bin))} (local, fsync off)`
      } else {
        skipped = 'no PostgreSQL binaries under /usr/lib/postgresql/*/bin and no BENCH_DATABASE_URL'
      }
    }
    if (serverUrl) runs.push(await withFreshDatabase(serverUrl, (url) => child(label, 'PostgreSQL', url)))
  } catch (error) {
    failed = error instanceof Error ? error.message : String(error)
  }
  return { runs, ...(skipped ? { skipped } : {}), ...(failed ? { failed } : {}), pass: !failed && runs.every((run) => run.pass) }
}

export function printFanout(figures: FanoutFigures): void {
  const f = (n: number) => n.toFixed(0)
  console.log(`\n## notifications fan-out (issue 29): one release, ${FANOUT_WATCHERS.toLocaleString('en')} watchers\n`)
  const names = figures.runs[0]?.steps.map((step) => step.name) ?? []
  console.log(`| database | ${names.map((name) => `${name} ms`).join(' | ')} | total ms | budget ms | RSS before MB | peak RSS MB | peak heap MB |`)
  console.log(`|---|${names.map(() => '---:').join('|')}|---:|---:|---:|---:|---:|`)
  for (const run of figures.runs) {
    console.log(`| ${run.database} | ${run.steps.map((step) => f(step.ms)).join(' | ')} | ${f(run.totalMs)} | ${f(run.budgetMs)} | ${f(run.rssBeforeMb)} | ${f(run.peakRssMb)} | ${f(run.peakHeapMb)} |`)
  }
  if (figures.skipped) console.log(`| PostgreSQL | skipped: ${figures.skipped} |`)
  console.log('')
  for (const run of figures.runs) {
    console.log(`(${run.database}: ${run.watchers.toLocaleString('en')} accounts and watches inserted, migrations and seed, in ${run.setupS.toFixed(1)} s)`)
    console.log(
      `${run.pass ? 'PASS' : 'FAIL'} fan-out ${run.database}: ${f(run.totalMs)} ms (budget ≤ ${f(run.budgetMs)} ms), RSS +${f(run.peakRssMb - run.rssBeforeMb)} MB (budget ≤ ${FANOUT_BUDGET.rssGrowthMb} MB), peak heap ${f(run.peakHeapMb)} MB (budget ≤ ${FANOUT_BUDGET.peakHeapMb} MB)`,
    )
  }
  if (figures.skipped) console.log(`SKIP PostgreSQL row: ${figures.skipped}`)
  if (figures.failed) console.log(`FAIL PostgreSQL row: ${figures.failed}`)
}

if (process.argv.includes('--child')) {
  const [kind, url] = process.argv.slice(process.argv.indexOf('--child') + 1) as ['PGlite' | 'PostgreSQL', string]
  measure(kind, url || undefined).then(
    (figures) => process.send!(figures, () => process.exit(0)),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}
