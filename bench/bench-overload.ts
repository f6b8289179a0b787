// `BENCH_ONLY=overload npm run bench`: what a newcomer's `npm start` does under a
// thousand clients at once. The built app runs as `npm start` runs it (role `all`, embedded PGlite,
// its own process); autocannon opens 1000 connections for 30 s against a rendered page and then
// against a proxied API route, while a probe asks /healthz every 100 ms on a connection of its own.
// Budgets: no socket error and no timeout; every answer 2xx, 503 or 429; p99 ≤ 1 s; /healthz
// p99 ≤ 1 s during the load.
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { startInstance } from './bench-instance.ts'

const here = fileURLToPath(import.meta.url)
const CONNECTIONS = Number(process.env.BENCH_OVERLOAD_CONNECTIONS ?? 1000)
const DURATION_S = Number(process.env.BENCH_OVERLOAD_DURATION ?? 30)
export const OVERLOAD_BUDGET = { maxP99Ms: 1000, maxHealthP99Ms: 1000 }

export interface OverloadRow {
  name: string
  requests: number
  ok: number
  shed: number
  limited: number
  other: number
  errors: number
  timeouts: number
  p50Ms: number
  p99Ms: number
  healthP99Ms: number
  healthMaxMs: number
  healthSamples: number
}

export interface OverloadFigures {
  rows: OverloadRow[]
  pass: boolean
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** /healthz once every 100 ms on its own connection until stopped; the latencies, ms. */
function probeHealth(url: string): { stop: () => Promise<number[]> } {
  const latencies: number[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const started = performance.now()
      try {
        const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) })
        await response.arrayBuffer()
        latencies.push(performance.now() - started)
      } catch {
        latencies.push(10_000)
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return latencies.sort((a, b) => a - b)
    },
  }
}

async function load(name: string, url: string, base: string): Promise<OverloadRow> {
  const probe = probeHealth(base)
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, timeout: 10, pipelining: 1 })
  const health = await probe.stop()
  const stats = result.statusCodeStats as Record<string, { count: number }>
  const count = (predicate: (status: number) => boolean) =>
    Object.entries(stats)
      .filter(([status]) => predicate(Number(status)))
      .reduce((sum, [, stat]) => sum + stat.count, 0)
  return {
    name,
    requests: result.requests.total,
    ok: count((status) => status >= 200 && status < 300),
    shed: count((status) => status === 503),
    limited: count((status) => status === 429),
    other: count((status) => status < 200 || (status >= 300 && status !== 429 && status !== 503)),
    errors: result.errors,
    timeouts: result.timeouts,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    healthP99Ms: percentile(health, 99),
    healthMaxMs: health.at(-1) ?? 0,
    healthSamples: health.length,
  }
}

export async function benchOverload(cleanups: Array<() => void>): Promise<OverloadFigures> {
  // The per-IP limit would answer most of one machine's thousand clients with 429: this measures the shedding.
  const { base, child } = await startInstance(cleanups, { name: 'overload', env: { LOG_LEVEL: 'error', RATE_LIMIT_MAX: '1000000' } })
  const rows = [
    await load('rendered page /library?sort=nameDesc', `${base}/library?sort=nameDesc`, base),
    await load('proxied API /api/programs?sort=nameDesc', `${base}/api/programs?sort=nameDesc`, base),
  ]
  child.kill('SIGTERM')
  const pass = rows.every(
    (row) => row.errors === 0 && row.timeouts === 0 && row.other === 0 && row.p99Ms <= OVERLOAD_BUDGET.maxP99Ms && row.healthP99Ms <= OVERLOAD_BUDGET.maxHealthP99Ms,
  )
  return { rows, pass }
}

export function printOverload(figures: OverloadFigures): void {
  console.log(`\n## Overload (issue 14): ${CONNECTIONS} connections for ${DURATION_S} s against \`npm start\` (role all, PGlite)\n`)
  console.log('| route | requests | 2xx | 503 | 429 | other | errors | timeouts | p50 ms | p99 ms | /healthz p99 ms | /healthz max ms | /healthz probes |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of figures.rows) {
    console.log(
      `| ${r.name} | ${r.requests} | ${r.ok} | ${r.shed} | ${r.limited} | ${r.other} | ${r.errors} | ${r.timeouts} | ${r.p50Ms} | ${r.p99Ms} | ${r.healthP99Ms.toFixed(0)} | ${r.healthMaxMs.toFixed(0)} | ${r.healthSamples} |`,
    )
  }
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
  for (const r of figures.rows) {
    console.log(`${verdict(r.errors === 0 && r.timeouts === 0)} ${r.name}: ${r.errors} socket errors, ${r.timeouts} timeouts (budget 0)`)
    console.log(`${verdict(r.other === 0)} ${r.name}: every answer 2xx, 503 or 429 (${r.other} others)`)
    console.log(`${verdict(r.p99Ms <= OVERLOAD_BUDGET.maxP99Ms)} ${r.name}: p99 ${r.p99Ms} ms (budget ≤ ${OVERLOAD_BUDGET.maxP99Ms})`)
    console.log(`${verdict(r.healthP99Ms <= OVERLOAD_BUDGET.maxHealthP99Ms)} ${r.name}: /healthz p99 ${r.healthP99Ms.toFixed(0)} ms during the load (budget ≤ ${OVERLOAD_BUDGET.maxHealthP99Ms})`)
  }
}

if (process.argv[1] === here) {
  const cleanups: Array<() => void> = []
  process.on('exit', () => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()))
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))
  const figures = await benchOverload(cleanups)
  printOverload(figures)
  process.exit(figures.pass ? 0 : 1)
}
