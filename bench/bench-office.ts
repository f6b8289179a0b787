// `BENCH_ONLY=office npm run bench`: an office or a school behind one address. The built
// app runs as `npm start` runs it (role `all`, embedded PGlite, its own process) with the shipped
// rate limits (RATE_LIMIT_MAX unset), and BENCH_OFFICE_PEOPLE (50) visitors, all from 127.0.0.1,
// browse for BENCH_OFFICE_DURATION seconds (60: one whole window of the limit, in real time, no
// clock compressed). Each opens a page (home, the catalogue and its sorts and pages, program
// pages), then everything the page names — its logos, hashed scripts and styles, locale files, the
// favicon — with no browser cache (stricter than a browser), polls /api/version on opening the page
// and every 6 s as the client does, reads for 3–7 s, and opens the next. Anonymous, the strictest
// case: everyone shares the address's one budget (a signed-in person also has an account's own).
// Budget: no 429, no socket error. 503s (the load shedding) are reported, not budgeted:
// they measure the machine, not the limits. Also printed: how many of those requests the rule before issue
// 27 counted (every request but assets, locale files and probes) against its 300 a minute.
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { loadConfig } from '../server/config.ts'
import { startInstance } from './bench-instance.ts'

const here = fileURLToPath(import.meta.url)
const PEOPLE = Number(process.env.BENCH_OFFICE_PEOPLE ?? 50)
const DURATION_S = Number(process.env.BENCH_OFFICE_DURATION ?? 60)
/** A person reads a page for 3–7 s (uniform) before the next. */
const READ_MS = { min: 3_000, max: 7_000 }
/** The client's version poll (client/lib/notices/use-version-polling.ts). */
const POLL_MS = 6_000
/** A browser fetches about six resources of one page at a time. */
const PARALLEL = 6
/** The old rule (before decision 027): every request counted but these, 300 a minute per address. */
const OLD_EXEMPT = /^\/(?:assets\/|locales\/|favicon\.svg$|healthz$|readyz$)/
const OLD_MAX = 300

type Kind = 'page' | 'api' | 'logo' | 'asset' | 'locale' | 'other'

export interface OfficeFigures {
  people: number
  durationS: number
  byKind: Record<Kind, { requests: number; limited: number; shed: number; other: number }>
  pages: number
  pageP50Ms: number
  pageP99Ms: number
  errors: number
  /** Requests the old rule would have counted, and how many the busiest minute had. */
  oldCounted: number
  /** Requests counted now (pages and API calls). */
  counted: number
  addressMax: number
  pass: boolean
}

function kindOf(url: string): Kind {
  if (url.startsWith('/api/')) return 'api'
  if (url.startsWith('/logos/') || url.startsWith('/og/')) return 'logo'
  if (url.startsWith('/assets/') || url === '/favicon.svg') return 'asset'
  if (url.startsWith('/locales/')) return 'locale'
  return 'other'
}

/** A small seeded generator: the same walk each run. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
}

/** Everything a page's HTML names that a browser would fetch: logos, scripts, styles, locale files, icons. */
function resourcesOf(html: string): string[] {
  const found = new Set<string>()
  for (const match of html.matchAll(/(?:src|href)="(\/(?:logos|assets|locales|og)\/[^"]+|\/favicon\.svg)"/g)) found.add(match[1]!.replaceAll('&amp;', '&'))
  // The page's texts come with it; the script fetches a namespace it lacks. Counted as if it did, twice.
  const hash = /"localesHash":"([0-9a-f]+)"/.exec(html)?.[1]
  if (hash) for (const ns of ['common', 'catalogue']) found.add(`/locales/${hash}/en/${ns}.json`)
  return [...found]
}

export async function benchOffice(cleanups: Array<() => void>): Promise<OfficeFigures> {
  // The shipped limits, whatever this shell says.
  const { base, child } = await startInstance(cleanups, { name: 'office', env: { LOG_LEVEL: 'error' }, unset: ['RATE_LIMIT_MAX', 'RATE_LIMIT_ACCOUNT_MAX', 'TRUST_PROXY'] })

  const agent = new Agent({ connections: PEOPLE * PARALLEL, keepAliveTimeout: 30_000 })
  const programs = ((await (await fetch(`${base}/api/programs`)).json()) as { items?: Array<{ id: string }> }).items?.map((p) => p.id) ?? []
  const pages = ['/', '/library', '/library?sort=nameDesc', '/library?page=2', '/library?page=3', ...programs.slice(0, 20).map((id) => `/programs/${id}`)]
  const byKind: OfficeFigures['byKind'] = {
    page: { requests: 0, limited: 0, shed: 0, other: 0 },
    api: { requests: 0, limited: 0, shed: 0, other: 0 },
    logo: { requests: 0, limited: 0, shed: 0, other: 0 },
    asset: { requests: 0, limited: 0, shed: 0, other: 0 },
    locale: { requests: 0, limited: 0, shed: 0, other: 0 },
    other: { requests: 0, limited: 0, shed: 0, other: 0 },
  }
  const pageLatencies: number[] = []
  let errors = 0
  let oldCounted = 0
  let counted = 0

  const get = async (url: string, kind: Kind, accept: string): Promise<string | undefined> => {
    const row = byKind[kind]
    row.requests++
    if (!OLD_EXEMPT.test(url)) oldCounted++
    if (kind === 'page' || kind === 'api') counted++
    const started = performance.now()
    try {
      const response = await request(`${base}${url}`, { dispatcher: agent, headers: { accept, 'accept-language': 'en', 'user-agent': 'softshelf-bench-office' } })
      const body = await response.body.text()
      if (kind === 'page') pageLatencies.push(performance.now() - started)
      if (response.statusCode === 429) row.limited++
      else if (response.statusCode === 503) row.shed++
      else if (response.statusCode >= 400) row.other++
      return body
    } catch {
      errors++
      return undefined
    }
  }

  const ends = Date.now() + DURATION_S * 1000
  const person = async (index: number) => {
    const next = random(index + 1)
    // People do not all click in the same second.
    await new Promise((resolve) => setTimeout(resolve, next() * READ_MS.min))
    let poll: NodeJS.Timeout | undefined
    while (Date.now() < ends) {
      clearInterval(poll)
      const page = pages[Math.floor(next() * pages.length)]!
      const html = await get(page, 'page', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')
      const queue = [...resourcesOf(html ?? '')]
      const kinds = new Map(queue.map((url) => [url, kindOf(url)]))
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          for (let url = queue.shift(); url !== undefined; url = queue.shift()) await get(url, kinds.get(url)!, '*/*')
        }),
      )
      // The page's script: the version on mount, then every 6 s while it is open.
      void get('/api/version', 'api', 'application/json')
      poll = setInterval(() => void get('/api/version', 'api', 'application/json'), POLL_MS)
      await new Promise((resolve) => setTimeout(resolve, READ_MS.min + next() * (READ_MS.max - READ_MS.min)))
    }
    clearInterval(poll)
  }
  await Promise.all(Array.from({ length: PEOPLE }, (_, i) => person(i)))
  await agent.close()
  child.kill('SIGTERM')

  pageLatencies.sort((a, b) => a - b)
  const at = (p: number) => pageLatencies[Math.min(pageLatencies.length - 1, Math.floor((p / 100) * pageLatencies.length))] ?? 0
  const limited = Object.values(byKind).reduce((sum, row) => sum + row.limited, 0)
  return {
    people: PEOPLE,
    durationS: DURATION_S,
    byKind,
    pages: byKind.page.requests,
    pageP50Ms: at(50),
    pageP99Ms: at(99),
    errors,
    oldCounted,
    counted,
    addressMax: loadConfig({}).rateLimitMax,
    pass: limited === 0 && errors === 0,
  }
}

export function printOffice(f: OfficeFigures): void {
  console.log(`\n## An office behind one address (issue 27): ${f.people} people browsing for ${f.durationS} s, shipped limits\n`)
  console.log('| requests | sent | 429 | 503 (load shed) | other 4xx/5xx |')
  console.log('|---|---:|---:|---:|---:|')
  for (const [kind, row] of Object.entries(f.byKind)) if (row.requests > 0) console.log(`| ${kind} | ${row.requests} | ${row.limited} | ${row.shed} | ${row.other} |`)
  console.log(`\nmachine load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')}`)
  console.log(`pages opened: ${f.pages} (p50 ${f.pageP50Ms.toFixed(0)} ms, p99 ${f.pageP99Ms.toFixed(0)} ms); socket errors: ${f.errors}`)
  console.log(`counted now (pages and API calls): ${f.counted} in the window, budget ${f.addressMax} per address per minute`)
  console.log(`counted by the rule before issue 27: ${f.oldCounted}, against ${OLD_MAX} a minute`)
  console.log(`${f.pass ? 'PASS' : 'FAIL'} no 429 and no socket error for ${f.people} people behind one address`)
}

if (process.argv[1] === here) {
  const cleanups: Array<() => void> = []
  process.on('exit', () => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()))
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))
  const figures = await benchOffice(cleanups)
  printOffice(figures)
  process.exit(figures.pass ? 0 : 1)
}
