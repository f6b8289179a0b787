import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { root } from '../helpers.ts'

// A public page's first JavaScript is at most 110 kB gzip, and the build fails above it
// (scripts/build.mjs runs the same check as `node scripts/asset-size.mjs` after building). Here on
// a made-up build: the entry the template loads, the libraries it imports, and the listing's chunk,
// of random (incompressible) bytes, so their gzip size is what the test asks for.

function fakeBuild(t: Test, pageBytes: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-budget-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const client = path.join(dir, 'dist', 'client')
  fs.mkdirSync(path.join(client, 'assets'), { recursive: true })
  fs.mkdirSync(path.join(client, '.vite'))
  fs.writeFileSync(path.join(client, 'index.html'), '<script type="module" crossorigin src="/assets/entry.js"></script><link rel="stylesheet" href="/assets/index.css">')
  fs.writeFileSync(path.join(client, 'assets', 'entry.js'), randomBytes(40_000))
  fs.writeFileSync(path.join(client, 'assets', 'libraries.js'), randomBytes(60_000))
  fs.writeFileSync(path.join(client, 'assets', 'listing.js'), randomBytes(pageBytes))
  fs.writeFileSync(path.join(client, 'assets', 'index.css'), 'body{margin:0}')
  const manifest = {
    'index.html': { file: 'assets/entry.js', imports: ['_libraries.js'], css: ['assets/index.css'] },
    '_libraries.js': { file: 'assets/libraries.js' },
    'client/pages/catalogue-listing.tsx': { file: 'assets/listing.js', imports: ['_libraries.js'] },
    'client/pages/home.tsx': { file: 'assets/entry.js' },
  }
  fs.writeFileSync(path.join(client, '.vite', 'manifest.json'), JSON.stringify(manifest))
  return dir
}

const check = (dir: string) => spawnSync(process.execPath, [path.join(root, 'scripts', 'asset-size.mjs'), dir], { encoding: 'utf8' })

t.test('a public page over 110 kB gzip of first JS fails the check, naming the page', async (t) => {
  const result = check(fakeBuild(t, 12_000))
  t.equal(result.status, 1, result.stdout)
  t.match(result.stdout, /over budget:\nclient\/pages\/catalogue-listing\.tsx: first JS 112\.\d kB gzip, over the budget of 110\.0 kB/)
  t.notMatch(result.stdout, /client\/pages\/home\.tsx: first JS/, 'the page within the budget is not named')
})

t.test('every public page within 110 kB passes', async (t) => {
  const result = check(fakeBuild(t, 8_000))
  t.equal(result.status, 0, result.stdout)
  t.match(result.stdout, /\| client\/pages\/catalogue-listing\.tsx \| 3 \| [\d.]+ \| 108\.\d \|/)
  t.match(result.stdout, /within budget/)
})

t.test('the build runs the same check and stops on it', async (t) => {
  const build = fs.readFileSync(path.join(root, 'scripts', 'build.mjs'), 'utf8')
  t.match(build, /budgetFailures\(sizes\.assetSizes\(root\)\)/)
  t.match(build, /process\.exit\(1\)/)
})
