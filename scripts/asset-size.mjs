// What a first visit to a public page downloads, from the build: the scripts and stylesheets
// dist/client/index.html references (the entry, its static imports, the CSS), plus the page's own
// chunk and its imports, which the server preloads (dist/client/.vite/manifest.json, as
// preloadLinksFromManifest in server/bff/plugins/ssr.ts). Sizes are gzip level 9; 1 kB = 1000 bytes.
// The build prints this report and fails over the budget; bench.ts prints it too.
// Alone: `node scripts/asset-size.mjs [root]`.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'

const defaultRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The public pages whose chunks count; the budget holds for the heaviest. The catalogue's (the
 * listings: categories, developers, publishers, licence types; a program), the living catalogue's
 * comparison, the drive's page for visitors and the legal pages. Not the account forms
 * (login, sign-up, password): they load the session SDK by design.
 */
export const PUBLIC_PAGES = [
  'client/pages/home.tsx',
  'client/pages/catalogue-listing.tsx',
  'client/pages/program.tsx',
  'client/pages/compare/compare.tsx',
  'client/pages/files/files-intro.tsx',
  'client/pages/legal.tsx',
]
/** Initial JavaScript ≤ 110 kB (130) and CSS ≤ 30 kB, gzip. */
export const ASSET_BUDGET = { jsGzip: 110_000, cssGzip: 30_000 }

/**
 * @typedef {{ file: string, raw: number, gzip: number }} FileSize
 * @typedef {{ files: FileSize[], raw: number, gzip: number }} Total
 * @typedef {{ page: string, js: Total, css: Total }} PageAssets
 * @typedef {{ pages: PageAssets[], heaviestJs: PageAssets, heaviestCss: PageAssets, budget: typeof ASSET_BUDGET }} AssetReport
 */

/** @returns {AssetReport} */
export function assetSizes(root = defaultRoot) {
  const clientDir = path.join(root, 'dist', 'client')
  const html = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8')
  /** @type {Record<string, { file: string, imports?: string[], css?: string[] }>} */
  const manifest = JSON.parse(fs.readFileSync(path.join(clientDir, '.vite', 'manifest.json'), 'utf8'))

  /** @type {Map<string, FileSize>} */
  const sizes = new Map()
  const size = (/** @type {string} */ file) => {
    let known = sizes.get(file)
    if (!known) {
      const bytes = fs.readFileSync(path.join(clientDir, file))
      known = { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
      sizes.set(file, known)
    }
    return known
  }

  // The template's own <script src> and <link href> (modulepreload, stylesheet): loaded on every page.
  const always = new Set()
  for (const match of html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="\/([^"]+\.(?:js|css))"/g)) always.add(match[1])
  // A chunk with its static imports and their CSS, as the server's preload links walk them.
  const visit = (/** @type {string} */ id, /** @type {Set<string>} */ files) => {
    const chunk = manifest[id]
    if (!chunk || files.has(chunk.file)) return
    files.add(chunk.file)
    for (const css of chunk.css ?? []) files.add(css)
    for (const imported of chunk.imports ?? []) visit(imported, files)
  }
  visit('index.html', always)

  const total = (/** @type {Set<string>} */ files, /** @type {string} */ ext) => {
    const list = [...files].filter((file) => file.endsWith(ext)).map(size)
    return { files: list, raw: list.reduce((sum, f) => sum + f.raw, 0), gzip: list.reduce((sum, f) => sum + f.gzip, 0) }
  }
  const pages = PUBLIC_PAGES.filter((page) => manifest[page]).map((page) => {
    const files = new Set(always)
    visit(page, files)
    return { page, js: total(files, '.js'), css: total(files, '.css') }
  })
  if (pages.length === 0) throw new Error('none of the public pages is in dist/client/.vite/manifest.json')
  const heaviestJs = pages.reduce((a, b) => (b.js.gzip > a.js.gzip ? b : a))
  const heaviestCss = pages.reduce((a, b) => (b.css.gzip > a.css.gzip ? b : a))
  return { pages, heaviestJs, heaviestCss, budget: ASSET_BUDGET }
}

const kB = (/** @type {number} */ bytes) => (bytes / 1000).toFixed(1)

/** A markdown table of the report, one row per public page, and the files of the heaviest. */
export function formatAssetSizes(/** @type {AssetReport} */ report) {
  const lines = [
    '| page | JS files | JS kB | JS kB gzip | CSS kB | CSS kB gzip |',
    '|---|---:|---:|---:|---:|---:|',
    ...report.pages.map((p) => `| ${p.page} | ${p.js.files.length} | ${kB(p.js.raw)} | ${kB(p.js.gzip)} | ${kB(p.css.raw)} | ${kB(p.css.gzip)} |`),
    '',
    `heaviest (${report.heaviestJs.page}): ${report.heaviestJs.js.files.map((f) => `${f.file} ${kB(f.gzip)}`).join(', ')} kB gzip`,
    `budget: JS ≤ ${kB(report.budget.jsGzip)} kB gzip, CSS ≤ ${kB(report.budget.cssGzip)} kB gzip`,
  ]
  return lines.join('\n')
}

/** What is over the budget, one line each; none when the heaviest page is within it. */
export function budgetFailures(/** @type {AssetReport} */ report) {
  const failures = []
  for (const page of report.pages) {
    if (page.js.gzip > report.budget.jsGzip) failures.push(`${page.page}: first JS ${kB(page.js.gzip)} kB gzip, over the budget of ${kB(report.budget.jsGzip)} kB`)
    if (page.css.gzip > report.budget.cssGzip) failures.push(`${page.page}: CSS ${kB(page.css.gzip)} kB gzip, over the budget of ${kB(report.budget.cssGzip)} kB`)
  }
  return failures
}

/** The build's report: never throws, a missing manifest is just mentioned. */
export function assetReport(root = defaultRoot) {
  try {
    return `initial assets of a public page:\n${formatAssetSizes(assetSizes(root))}`
  } catch (error) {
    return `asset sizes unavailable: ${error instanceof Error ? error.message : String(error)}`
  }
}

// Alone, on a build (or the build under the directory given): the table, and exit code 1 over the budget.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const report = assetSizes(process.argv[2] ? path.resolve(process.argv[2]) : defaultRoot)
  console.log(formatAssetSizes(report))
  const failures = budgetFailures(report)
  console.log(failures.length > 0 ? `over budget:\n${failures.join('\n')}` : 'within budget')
  if (failures.length > 0) process.exitCode = 1
}
