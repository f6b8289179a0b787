// The tap files of `npm test`, each bundled into one ES module with its TypeScript compiled away,
// so that scripts/tap-run.mjs runs them on plain Node with no module hooks. Under `--import=tsx`
// every module a test loads, node_modules included, passes through hooks on another thread: ~1 s
// and ~1.5 s of CPU per file before its first test. `npx tap <file>` still runs
// a single file through tsx, as before.
//
// A bundle behaves as its sources do: packages stay imports from node_modules (the bundle lives
// below the project, so they resolve) but for a few ES-module packages of hundreds of files each
// (INLINED_PACKAGES), `import.meta.url`, `.dirname` and `.filename` of every source
// are written as that source's own location (migrations, seeds, fixtures and the files a test reads
// are found where they are), names are kept (`keepNames`: an error's class name is what it says),
// and stack traces map back to the sources (inline source maps, `--enable-source-maps`).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * Packages compiled into the bundles rather than imported from node_modules: ES modules of many
 * small files each (typebox alone is ~680; with Stripe's and jose's ~950 of the ~2,900 modules a
 * test process loaded), which Node reads, compiles and links one by one in every test process.
 * Bundled once into chunks the files share (splitting), each is a few files. Only packages of plain
 * code: none finds files of its own at run time, holds state another copy would miss, or is
 * imported by a package that stays outside (the other packages are CommonJS or load files of their
 * own, and they stay as Node loads them).
 */
export const INLINED_PACKAGES = new Set(['typebox', '@fastify/type-provider-typebox', 'stripe', 'jose'])

/** The package a bare specifier names: `@scope/name` or `name`. */
function packageOf(specifier) {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** The module a bundle's `import t from 'tap'` loads: tap's root test, or the file's own subtest in a group. */
const TAP_FILE = path.join('scripts', 'tap-file.mjs')

/**
 * Every package import stays an import from node_modules but those of INLINED_PACKAGES; "tap" is
 * TAP_FILE (which itself imports tap), so that scripts/tap-group.mjs can run several files in one process.
 */
function externalPackages(root) {
  const tapFile = path.join(root, TAP_FILE)
  return {
    name: 'external-packages',
    setup(build) {
      build.onResolve({ filter: /^tap$/ }, (args) => (args.importer === tapFile ? { external: true } : { path: tapFile }))
      // A bare specifier (`node:` builtins included); relative and absolute paths are the project's.
      build.onResolve({ filter: /^[^./]/ }, (args) => (INLINED_PACKAGES.has(packageOf(args.path)) ? undefined : { external: true }))
    },
  }
}

/** Where the bundles go, relative to the project; a bundle keeps its source's path with `.mjs`. */
export const BUNDLE_DIR = path.join('node_modules', '.cache', 'softshelf', 'tap')

/** The `*.test.ts` files under each folder, relative to root, sorted. */
export function testFiles(root, folders) {
  const files = []
  for (const folder of folders) {
    const dir = path.join(root, folder)
    if (!fs.existsSync(dir)) continue
    for (const name of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (name.endsWith('.test.ts')) files.push(path.join(folder, name).split(path.sep).join('/'))
    }
  }
  return files.sort()
}

/** The bundle of a test file, relative to root. */
export function bundleOf(file) {
  return path.join(BUNDLE_DIR, file.replace(/\.ts$/, '.mjs')).split(path.sep).join('/')
}

/**
 * Each source's import.meta as the source itself would see it, not as the bundle's: a source that
 * names it is compiled on its own first with those three values defined (in code only, not in its
 * strings), and the bundle takes that code with its source map.
 */
function ownImportMeta(esbuild) {
  return {
    name: 'own-import-meta',
    setup(build) {
      // The project's own files and those of the inlined packages (whose import.meta, if any, is then theirs too).
      build.onLoad({ filter: /\.(ts|tsx|mts|js|mjs)$/ }, async (args) => {
        const source = await fs.promises.readFile(args.path, 'utf8')
        const extension = path.extname(args.path).slice(1)
        const loader = extension === 'tsx' ? 'tsx' : extension.endsWith('ts') ? 'ts' : 'js'
        if (!source.includes('import.meta')) return { contents: source, loader }
        const { code } = await esbuild.transform(source, {
          loader,
          format: 'esm',
          jsx: 'automatic',
          sourcefile: args.path,
          sourcemap: 'inline',
          define: {
            'import.meta.url': JSON.stringify(pathToFileURL(args.path).href),
            'import.meta.dirname': JSON.stringify(path.dirname(args.path)),
            'import.meta.filename': JSON.stringify(args.path),
          },
        })
        return { contents: code, loader: 'js' }
      })
    },
  }
}

/**
 * Bundles the files (relative to root) into BUNDLE_DIR below root, emptied first; returns the
 * bundles' paths, relative to root.
 */
export async function bundleTests(root, files) {
  const esbuild = await import('esbuild')
  const outdir = path.join(root, BUNDLE_DIR)
  fs.rmSync(outdir, { recursive: true, force: true })
  try {
    await esbuild.build({
      absWorkingDir: root,
      entryPoints: files,
      outbase: '.',
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      // What several files import (our own modules and the inlined packages) is in chunks they share.
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      jsx: 'automatic',
      keepNames: true,
      sourcemap: 'inline',
      sourcesContent: false,
      plugins: [externalPackages(root), ownImportMeta(esbuild)],
      logLevel: 'warning',
    })
  } finally {
    // Its service process would otherwise live (and ping) as long as the caller: the whole test run.
    await esbuild.stop()
  }
  return files.map(bundleOf)
}

// `node scripts/test-bundle.mjs <folder>…`: bundles the test files of those folders (npm test's step).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  const files = testFiles(root, process.argv.slice(2))
  await bundleTests(root, files)
  console.log(`${files.length} files bundled into ${BUNDLE_DIR}`)
}
