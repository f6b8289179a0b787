// What a public page's first JavaScript is made of: for each page, the chunks it loads
// first (as scripts/asset-size.mjs counts them) with their gzip size, and in each chunk the
// packages (node_modules) and our own files that take most of it. Reads the build:
// dist/client/.vite/bundle-map.json, the byte ranges of every source in each minified chunk, which
// vite.config.ts writes from the chunks' source maps (then dropped). After `node scripts/build.mjs`:
//   npm run bundle-map [-- --top=N]
// Per part: its minified bytes, its share of the chunk's gzip (bytes × the chunk's gzip ratio), and
// what removing it would save (the chunk gzipped without its bytes): what a cut would buy.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { assetSizes } from './asset-size.mjs'

const defaultRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The libraries a React Router app cannot do without: the floor of any page's first JS. */
export const FLOOR_PACKAGES = ['react', 'react-dom', 'react-router', 'scheduler']

/** A source's part: its package (`node_modules/@scope/name/…` → `@scope/name`), or our own file. */
export function partOf(/** @type {string} */ source) {
  if (source === '(bundler)') return source
  const at = source.lastIndexOf('node_modules/')
  if (at < 0) return source
  const [first, second] = source.slice(at + 'node_modules/'.length).split('/')
  return first?.startsWith('@') ? `${first}/${second}` : (first ?? source)
}

const gzip = (/** @type {Buffer} */ bytes) => gzipSync(bytes, { level: 9 }).length

/**
 * @typedef {{ part: string, bytes: number, gzipShare: number, gzipSaved: number }} Part
 * @typedef {{ file: string, bytes: number, gzip: number, parts: Part[] }} ChunkMap
 */

/** One chunk's parts, largest first; `gzipSaved` for the `top` largest only (a gzip each). */
export function chunkMap(/** @type {Buffer} */ code, /** @type {{ name?: string, sources: string[], ranges: [number, number, number][] }} */ map, file = '', top = Infinity) {
  /** @type {Map<string, [number, number][]>} */
  const rangesOf = new Map()
  for (const [start, end, index] of map.ranges) {
    const part = index < 0 ? '(bundler)' : partOf(map.sources[index] ?? '(bundler)')
    const list = rangesOf.get(part) ?? []
    list.push([start, end])
    rangesOf.set(part, list)
  }
  const total = gzip(code)
  const parts = [...rangesOf]
    .map(([part, ranges]) => ({ part, ranges, bytes: ranges.reduce((sum, [start, end]) => sum + end - start, 0) }))
    .sort((a, b) => b.bytes - a.bytes)
    .map(({ part, ranges, bytes }, i) => {
      let gzipSaved = NaN
      if (i < top) {
        const kept = []
        let at = 0
        for (const [start, end] of ranges) {
          kept.push(code.subarray(at, start))
          at = end
        }
        kept.push(code.subarray(at))
        gzipSaved = total - gzip(Buffer.concat(kept))
      }
      return { part, bytes, gzipShare: Math.round((bytes * total) / code.length), gzipSaved }
    })
  // Chunks are named by their hash alone (vite.config.ts): the bundler's name for it says what it is.
  return { file: map.name ? `${file} (${map.name})` : file, bytes: code.length, gzip: total, parts }
}

/** Every public page's first-load chunks, mapped. */
export function bundleMap(root = defaultRoot, top = 12) {
  const clientDir = path.join(root, 'dist', 'client')
  const mapFile = path.join(clientDir, '.vite', 'bundle-map.json')
  if (!fs.existsSync(mapFile)) throw new Error(`${path.relative(root, mapFile)} is missing: build first (node scripts/build.mjs)`)
  /** @type {Record<string, { name?: string, sources: string[], ranges: [number, number, number][] }>} */
  const maps = JSON.parse(fs.readFileSync(mapFile, 'utf8'))
  /** @type {Map<string, ChunkMap>} */
  const chunks = new Map()
  const report = assetSizes(root)
  const pages = report.pages.map((page) => ({
    page: page.page,
    gzip: page.js.gzip,
    chunks: page.js.files.map(({ file }) => {
      let chunk = chunks.get(file)
      if (!chunk) {
        const map = maps[file]
        if (!map) throw new Error(`${file} has no entry in ${path.relative(root, mapFile)}: rebuild`)
        chunk = chunkMap(fs.readFileSync(path.join(clientDir, file)), map, file, top)
        chunks.set(file, chunk)
      }
      return chunk
    }),
  }))
  return { pages, budget: report.budget.jsGzip }
}

const kB = (/** @type {number} */ bytes) => (bytes / 1000).toFixed(1)

export function formatBundleMap(/** @type {ReturnType<typeof bundleMap>} */ map, top = 12) {
  const lines = []
  const shown = new Set()
  for (const page of map.pages) {
    const floor = page.chunks.flatMap((chunk) => chunk.parts).filter((part) => FLOOR_PACKAGES.includes(part.part)).reduce((sum, part) => sum + part.gzipShare, 0)
    lines.push(`## ${page.page}: ${kB(page.gzip)} kB gzip (budget ${kB(map.budget)}; React, react-dom, React Router and scheduler ≈ ${kB(floor)}, the rest ≈ ${kB(page.gzip - floor)})`)
    lines.push('', '| chunk | kB | kB gzip |', '|---|---:|---:|', ...page.chunks.map((chunk) => `| ${chunk.file} | ${kB(chunk.bytes)} | ${kB(chunk.gzip)} |`), '')
    for (const chunk of page.chunks) {
      if (shown.has(chunk.file) || chunk.parts.length < 2) continue
      shown.add(chunk.file)
      lines.push(`### ${chunk.file} (${kB(chunk.gzip)} kB gzip)`, '', '| part | kB | share of gzip kB | saved if cut, gzip kB |', '|---|---:|---:|---:|')
      for (const part of chunk.parts.slice(0, top)) lines.push(`| ${part.part} | ${kB(part.bytes)} | ${kB(part.gzipShare)} | ${kB(part.gzipSaved)} |`)
      const rest = chunk.parts.slice(top)
      if (rest.length > 0) lines.push(`| ${rest.length} more | ${kB(rest.reduce((s, p) => s + p.bytes, 0))} | ${kB(rest.reduce((s, p) => s + p.gzipShare, 0))} | |`)
      lines.push('')
    }
  }
  return lines.join('\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const top = Number(process.argv.find((arg) => arg.startsWith('--top='))?.slice('--top='.length) ?? 12)
  console.log(formatBundleMap(bundleMap(defaultRoot, top), top))
}
