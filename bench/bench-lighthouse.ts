// Lighthouse (12: version 13 needs Node 22) on public pages with its default settings: mobile form
// factor, simulated throttling. Headless system Chromium (CHROMIUM_PATH overrides /usr/bin/chromium).
// Used by bench.ts; alone: `tsx bench/bench-lighthouse.ts <origin> [path…]` prints the scores.
import fs from 'node:fs'
import { pathToFileURL } from 'node:url'
import { launch, type LaunchedChrome } from 'chrome-launcher'
import lighthouse from 'lighthouse'

export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const
export type Category = (typeof CATEGORIES)[number]

export interface FailingAudit {
  category: Category
  id: string
  title: string
  score: number
  /** Why it failed, as Lighthouse words it (e.g. "Values: 4.12 s"), when it says. */
  detail?: string
}

export interface PageScores {
  path: string
  scores: Record<Category, number | null>
  /** Performance of every run; the page's figures are those of the median run. */
  performanceRuns: Array<number | null>
  /** Lab metrics of the simulated mobile load, in ms (CLS unitless). */
  metrics: Record<string, number | undefined>
  failing: FailingAudit[]
  error?: string
}

export type LighthouseOutcome = { skipped: string } | { pages: PageScores[] }

const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update']
const METRICS = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index']

/** One Lighthouse run of one page. */
async function audit(port: number, url: string): Promise<Omit<PageScores, 'path' | 'performanceRuns'>> {
  const emptyScores = Object.fromEntries(CATEGORIES.map((c) => [c, null])) as Record<Category, null>
  let result
  try {
    result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] })
  } catch (error) {
    return { scores: emptyScores, metrics: {}, failing: [], error: (error as Error).message }
  }
  if (!result) return { scores: emptyScores, metrics: {}, failing: [], error: 'Lighthouse returned no result' }
  const { lhr } = result
  const scores = Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c]?.score ?? null])) as Record<Category, number | null>
  const failing: FailingAudit[] = []
  for (const category of CATEGORIES) {
    for (const ref of lhr.categories[category]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id]
      // Performance lists its metrics, not every opportunity; the others list each audit below 1.
      if (!audit || audit.score === null || audit.score >= (category === 'performance' ? 0.9 : 1)) continue
      if (category === 'performance' && ref.weight === 0) continue
      failing.push({ category, id: ref.id, title: audit.title, score: audit.score, ...(audit.displayValue ? { detail: audit.displayValue } : {}) })
    }
  }
  const metrics = Object.fromEntries(METRICS.map((id) => [id, lhr.audits[id]?.numericValue]))
  return { scores, metrics, failing, ...(lhr.runtimeError ? { error: `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` } : {}) }
}

/**
 * Each page `runs` times (Lighthouse's advice against run-to-run variance: the median of several),
 * keeping the run with the median performance score.
 */
export async function runLighthouse(origin: string, paths: string[], runs = 3): Promise<LighthouseOutcome> {
  const chromePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  if (!fs.existsSync(chromePath)) return { skipped: `no Chromium at ${chromePath} (set CHROMIUM_PATH)` }
  let chrome: LaunchedChrome
  try {
    chrome = await launch({ chromePath, chromeFlags: CHROME_FLAGS, logLevel: 'silent' })
  } catch (error) {
    return { skipped: `Chromium at ${chromePath} did not start: ${(error as Error).message}` }
  }
  const pages: PageScores[] = []
  try {
    for (const pagePath of paths) {
      const results = []
      for (let run = 0; run < runs; run++) results.push(await audit(chrome.port, `${origin}${pagePath}`))
      const performanceRuns = results.map((r) => r.scores.performance)
      // A failed run (no score) sorts first, so it is the median only when most runs failed.
      const sorted = [...results].sort((a, b) => (a.scores.performance ?? -1) - (b.scores.performance ?? -1))
      pages.push({ path: pagePath, performanceRuns, ...sorted[Math.floor((sorted.length - 1) / 2)]! })
    }
  } finally {
    chrome.kill()
  }
  return { pages }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [origin = 'http://127.0.0.1:3000', ...paths] = process.argv.slice(2)
  const outcome = await runLighthouse(origin, paths.length > 0 ? paths : ['/', '/library', '/programs/blender'], Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3))
  console.log(JSON.stringify(outcome, null, 2))
}
