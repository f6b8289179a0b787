import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'

/**
 * React Router publishes a production build beside the development one, but its package exports
 * only the development build (its own Vite plugin swaps them). That one keeps ~30 development
 * warnings and their texts in every page's JS; the browser bundle takes the production build
 * instead (0.7 kB gzip of the public pages' first-load budget). Development and server rendering keep
 * the warnings.
 */
const root = fileURLToPath(new URL('.', import.meta.url))
const reactRouterProduction = fileURLToPath(new URL('./node_modules/react-router/dist/production/index.mjs', import.meta.url))

/**
 * What every page loads first (the entry and its static imports, rolldown's `$initial` modules)
 * goes into two chunks: the libraries, which stay cached from one release to the next, and our own
 * code. Left alone, rolldown cut it into seven files (a few hundred bytes each for the small
 * shared modules), each with its own import and export glue and gzip framing: 1.3 kB gzip of the
 * first-load budget. Pages and everything loaded on demand stay in chunks of their own.
 */
const initialChunks = {
  groups: [
    { name: 'vendor', test: /node_modules/, tags: ['$initial' as const], priority: 2 },
    { name: 'app', tags: ['$initial' as const], priority: 1 },
    // What the account pages share (their forms' outcomes, messages and return paths): one chunk,
    // not one per set of pages using each, whose names every page's preload lists would carry.
    // A program's card and its icon (with the logos it draws from): every public page shows cards,
    // and as one chunk, not three, they cost 0.3 kB gzip less on each (issue 30).
    { name: 'program-card', test: /\/(client\/components\/(program-card|program-icon)\.tsx|shared\/catalogue\/logos\.ts)$/, priority: 0 },
    { name: 'account', test: /\/(client\/lib\/account\/|shared\/auth\/(forms|return-path)\.ts)/, priority: 0 },
  ],
}

/**
 * The route table names each page's source module (`handle.module`, client/lib/i18n/namespaces.ts) for
 * the server, which preloads the page's built chunk from the manifest (server/bff/plugins/ssr.ts).
 * The browser never reads them, so its bundle leaves them out: 0.14 kB gzip of every page's initial
 * JS (the first-load budget). Only the browser build, and only the route tables (the app's, and the
 * operator console's own, issue 28), where every `'client/….tsx'` string is such a path.
 */
const routeTables = new Set(['./client/routes.tsx', './client/pages/operator/routes.ts'].map((file) => fileURLToPath(new URL(file, import.meta.url))))
const serverOnlyModulePaths: Plugin = {
  name: 'softshelf:server-only-module-paths',
  apply: (_config, { command, isSsrBuild }) => command === 'build' && !isSsrBuild,
  transform(code, id) {
    if (!routeTables.has(id)) return null
    return { code: code.replace(/(['"`])client\/[\w/.-]+\.tsx\1/g, 'undefined'), map: null }
  },
}

/**
 * The browser translates with a small runtime over the same resources (client/lib/i18n/browser.ts,
 * decision 031), not i18next (15 kB gzip of every page's first JS, issue 30): in the browser, in
 * development as in the build, `react-i18next` is client/lib/i18n/react.tsx, and a module that
 * would bring i18next itself into the browser fails (type imports are gone by then). The server
 * renders with react-i18next and i18next; a unit test proves both write the same text.
 */
const browserTranslations: Plugin = {
  name: 'softshelf:browser-translations',
  enforce: 'pre',
  resolveId(id, importer) {
    if (this.environment.config.consumer !== 'client') return null
    if (id === 'react-i18next') return fileURLToPath(new URL('./client/lib/i18n/react.tsx', import.meta.url))
    if (id === 'i18next' || id.startsWith('i18next/')) this.error(`${importer ?? 'a module'} imports i18next into the browser: the browser translates with client/lib/i18n/browser.ts (decision 031)`)
    return null
  },
}

/**
 * React Router's browser build carries code that a data router like ours (a route table,
 * createBrowserRouter) never runs, yet keeps because a component or the router refers to it:
 * `<Link prefetch>`'s behaviour and page links (they need the framework's manifest; without its
 * `<HydratedRouter>` they do nothing or throw), the React Server Components error handler
 * (rendered only under an RSC router), the instrumentation of `createBrowserRouter({
 * unstable_instrumentations })` and route patching (`patchRoutesOnNavigation`,
 * `router.patchRoutes`), neither of which we use, and React Router's own error page (the root
 * route's ErrorBoundary catches every error first). Cutting them is 3.5 kB gzip of every page's
 * first JS (issue 30). Each cut names the code it replaces; a React Router release that changes
 * it fails the build here, to be looked at again, rather than passing unnoticed. The server's
 * bundle keeps React Router whole.
 */
const reactRouterChunk = /node_modules\/react-router\/dist\/production\/chunk-\w+\.mjs$/
const reactRouterCuts: [what: string, find: RegExp, replace: (match: string) => string][] = [
  ['<Link prefetch> page links', /\nfunction PrefetchPageLinks\(\{ page, \.\.\.linkProps \}\) \{\n[\s\S]*?\n\}\n/, () => '\nfunction PrefetchPageLinks() {\n  return null;\n}\n'],
  ['the RSC error handler', /\nfunction RSCErrorHandler\(\{\n {2}children,\n {2}error\n\}\) \{\n[\s\S]*?\n\}\n/, () => '\nfunction RSCErrorHandler({ children }) {\n  return children;\n}\n'],
  ['router instrumentation', /\n {2}if \(init\.instrumentations\) \{\n/g, () => '\n  if (false) {\n'],
  // What <Link> asks for its `prefetch` prop answers [false, ref, {}] without the framework's context.
  ['<Link prefetch> behaviour', /\nfunction usePrefetchBehavior\(prefetch, theirElementProps\) \{\n[\s\S]*?\n\}\n/, () => '\nfunction usePrefetchBehavior() {\n  return [false, React8.useRef(null), {}];\n}\n'],
  // Routes added after the router starts (patchRoutesOnNavigation, router.patchRoutes): not used.
  ['route patching', /\nfunction patchRoutesImpl\(routeId, children, dataRoutes, manifest, mapRouteProperties2, allowElementMutations\) \{\n[\s\S]*?\n\}\n/, () => '\nfunction patchRoutesImpl() {\n  throw new Error("patchRoutes: not in this build (vite.config.ts)");\n}\n'],
  // React Router's own error page, for an error no route's ErrorBoundary catches: the root's catches every one.
  ['the default error page', /\nfunction DefaultErrorComponent\(\) \{\n[\s\S]*?\n\}\n/, () => '\nfunction DefaultErrorComponent() {\n  return null;\n}\n'],
]
const reactRouterTrim: Plugin = {
  name: 'softshelf:react-router-trim',
  apply: (_config, { command, isSsrBuild }) => command === 'build' && !isSsrBuild,
  transform(code, id) {
    if (!reactRouterChunk.test(id) || !code.includes('function createRouter(')) return null
    for (const [what, find, replace] of reactRouterCuts) {
      if (!find.test(code)) this.error(`react-router changed: ${what} not found in ${id} (vite.config.ts, reactRouterCuts)`)
      find.lastIndex = 0
      // As many lines as it replaces: the code after it keeps its place for the source map.
      code = code.replace(find, (match) => {
        const cut = replace(match)
        return cut + '\n'.repeat(match.split('\n').length - cut.split('\n').length)
      })
    }
    return { code, map: null }
  },
}

/**
 * A dynamic import is there to move a module out of the first load (the browser build) and must do
 * so: one that a static import elsewhere keeps in the same chunk (INEFFECTIVE_DYNAMIC_IMPORT) fails
 * the build rather than printing a warning nobody reads (issue 27). Other warnings keep Vite's
 * handling.
 */
export function failOnIneffectiveDynamicImport(warning: { code?: string; message: string }, warn: (warning: { code?: string; message: string }) => void): void {
  if (warning.code === 'INEFFECTIVE_DYNAMIC_IMPORT') throw new Error(`${warning.message} (a dynamic import must split a chunk, or be a static import)`)
  warn(warning)
}

const base64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/**
 * Where each byte of a minified chunk comes from, read from its source map's mappings (base64
 * VLQ): `[start, end, source]` byte ranges, adjacent ranges of one source merged. A segment's bytes
 * run to the next segment's column or the end of its line; bytes before a line's first segment,
 * of a segment without a source, and the newlines are the bundler's own (source -1).
 */
export function sourceRanges(code: string, mappings: string): [number, number, number][] {
  const ranges: [number, number, number][] = []
  const add = (start: number, end: number, source: number) => {
    if (end <= start) return
    const last = ranges.at(-1)
    if (last && last[2] === source && last[1] === start) last[1] = end
    else ranges.push([start, end, source])
  }
  const mapped = mappings.split(';')
  let offset = 0
  let sourceIndex = 0
  code.split('\n').forEach((text, lineNumber) => {
    const length = Buffer.byteLength(text)
    // Columns count UTF-16 units; ranges count UTF-8 bytes, as gzip and the network do.
    const byteAt = (column: number) => offset + Buffer.byteLength(text.slice(0, column))
    let column = 0
    const segments: { start: number; source: number }[] = []
    const line = mapped[lineNumber] ?? ''
    for (const segment of line ? line.split(',') : []) {
      const fields: number[] = []
      let value = 0
      let shift = 0
      for (const char of segment) {
        const digit = base64.indexOf(char)
        value += (digit & 31) << shift
        if (digit & 32) shift += 5
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1)
          value = 0
          shift = 0
        }
      }
      column += fields[0] ?? 0
      if (fields.length > 1) sourceIndex += fields[1] ?? 0
      segments.push({ start: byteAt(column), source: fields.length > 1 ? sourceIndex : -1 })
    }
    add(offset, segments[0]?.start ?? offset + length, -1)
    segments.forEach((segment, i) => add(segment.start, segments[i + 1]?.start ?? offset + length, segment.source))
    offset += length
    if (offset < Buffer.byteLength(code)) add(offset, offset + 1, -1)
    offset += 1
  })
  return ranges
}

/**
 * What each browser chunk is made of, for `npm run bundle-map` (scripts/bundle-map.mjs): the byte
 * ranges of every source file in the minified chunk, written to dist/client/.vite/bundle-map.json (not
 * served: only dist/client/assets is). The chunks are built with hidden source maps for it, which
 * this plugin then deletes (KEEP_SOURCE_MAPS=1 keeps them for a closer look; never in a release).
 */
const bundleMap: Plugin = {
  name: 'softshelf:bundle-map',
  apply: (_config, { command, isSsrBuild }) => command === 'build' && !isSsrBuild,
  // After the bundle is written, when every plugin has had its say on the chunks' code.
  writeBundle(options, bundle) {
    const outDir = path.resolve(root, options.dir ?? 'dist/client')
    const chunks: Record<string, { name: string; sources: string[]; ranges: [number, number, number][] }> = {}
    for (const [fileName, output] of Object.entries(bundle)) {
      if (output.type !== 'chunk') continue
      // A chunk without a map is the bundler's own (its runtime).
      chunks[fileName] = {
        name: output.name,
        sources: output.map?.sources.map((source) => path.relative(root, path.resolve(outDir, path.dirname(fileName), source ?? ''))) ?? [],
        ranges: output.map ? sourceRanges(output.code, output.map.mappings) : [[0, Buffer.byteLength(output.code), -1]],
      }
      if (!process.env.KEEP_SOURCE_MAPS) fs.rmSync(path.join(outDir, `${fileName}.map`), { force: true })
    }
    fs.mkdirSync(path.join(outDir, '.vite'), { recursive: true })
    fs.writeFileSync(path.join(outDir, '.vite', 'bundle-map.json'), `${JSON.stringify(chunks)}\n`)
  },
}

// One config for the browser bundle (dist/client) and the server-rendering bundle (dist/ssr,
// built with --ssr). In development the BFF runs Vite in middleware mode.
export default defineConfig(({ command, isSsrBuild }) => ({
  plugins: [react(), browserTranslations, reactRouterTrim, serverOnlyModulePaths, bundleMap],
  publicDir: 'public',
  resolve:
    command === 'build' && !isSsrBuild
      ? {
          alias: [
            { find: /^react-router$/, replacement: reactRouterProduction },
            // React 19 has useSyncExternalStore; the shim (react-i18next's) only hands over to it (0.3 kB gzip, issue 15).
            { find: /^use-sync-external-store\/shim$/, replacement: 'react' },
          ],
        }
      : {},
  build: isSsrBuild
    ? {
        outDir: 'dist/ssr',
        emptyOutDir: true,
        target: 'node20',
        sourcemap: true,
        copyPublicDir: false,
        // The server renders every part of a page at once (client/entry-server.tsx hands the deferred
        // parts their code, and the page heads are built on the server): the splits the browser
        // bundle makes buy it nothing, so its bundle is one file and every dynamic import is inlined.
        rolldownOptions: { output: { codeSplitting: false }, onwarn: failOnIneffectiveDynamicImport },
      }
    : {
        outDir: 'dist/client',
        emptyOutDir: true,
        manifest: true,
        // Only for the bundle map (the plugin above), which drops them: no map is written.
        sourcemap: 'hidden',
        target: 'es2022',
        assetsInlineLimit: 0,
        // Every browser with modulepreload (Chrome 66, Firefox 115, Safari 17 and later) gets no use
        // of Vite's polyfill for it, yet every page carried it (0.2 kB gzip of the first-load budget,
        // issue 15). An older browser still runs every page; it fetches a page's chunks after the
        // entry rather than beside it.
        modulePreload: { polyfill: false },
        // Chunks are named by their hash alone: each lazy import lists the files it needs, and every
        // chunk imports the entry and the libraries by name, so names cost 0.3 kB gzip of every
        // page's first JS (issue 30). Which chunk is what: the manifest, and `npm run bundle-map`.
        rolldownOptions: { output: { codeSplitting: initialChunks, entryFileNames: 'assets/[hash].js', chunkFileNames: 'assets/[hash].js' }, onwarn: failOnIneffectiveDynamicImport },
      },
  // The built server bundle carries its libraries but the ones the server's own code shares with it
  // (React, React Router, i18next): Sentry's browser SDK, SuperTokens' web SDK, tus and the QR code
  // are only named on the server, and loading them as ~600 modules from node_modules cost every
  // start ~0.3 s of CPU (issue 30). In development Vite loads them from node_modules as it does.
  ssr: command === 'build' ? { noExternal: true, external: ['react', 'react-dom', 'react-router', 'react-i18next', 'i18next'] } : { noExternal: [] },
  server: { middlewareMode: true },
  appType: 'custom',
}))
