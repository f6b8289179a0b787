import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

// scripts/ci-times.mjs reads an `npm test` log into the per-step table of CI's time:
// steps side by side count once, as the longest, and a step in the background (the container
// image) is listed but not added, since its time is inside the others'; browser tests are read
// whatever their project is called.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

const log = [
  '=== container image ===',
  '(scripts/container/build.sh, in the background since the start)',
  '=== lint ===',
  '--- lint: 18.0 s (exit 0) (side by side with type check)',
  '=== type check ===',
  '--- type check: 25.0 s (exit 0) (side by side with lint)',
  '=== build ===',
  '--- build: 12.0 s (exit 0)',
  '=== tap on PGlite ===',
  'TAP version 14',
  'ok 1 - test/unit/a.test.ts # time=3000ms',
  'ok 2 - test/unit/b.test.ts # time=1000ms',
  '1..2',
  '--- tap on PGlite: 2.5 s (exit 0)',
  '--- container image: 300.0 s (exit 0) (in the background)',
  '=== system tests (once) ===',
  '--- system tests (once): 40.0 s (exit 0)',
  '=== browser tests (Playwright + Chromium) ===',
  '  ✓    1 [side by side] › test/e2e/a.spec.ts:10:3 › signs up (7.4s)',
  '  ✘    2 [alone] › test/e2e/b.spec.ts:5:1 › announces (12.0s)',
  '--- browser tests (Playwright + Chromium): 20.0 s (exit 1)',
].join('\n')

t.test('the table adds side-by-side steps once and the background build not at all', async (t) => {
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'ci-times.mjs')], { input: log, encoding: 'utf8' })
  t.equal(result.status, 0, result.stderr)
  const out = result.stdout
  t.match(out, /\| container image \(in the background, not added\) \| 300\.0 \|/, 'the background build is listed with its time')
  t.match(out, /\| lint \(side by side with type check\) \| 18\.0 \|/)
  // 25 (the longer of lint and type check) + 12 + 2.5 + 40 + 20
  t.match(out, /\| \*\*all steps \(wall\)\*\* \| \*\*99\.5\*\* \|/, 'the total leaves the background build out')
  t.match(out, /\| test\/unit\/a\.test\.ts \| 3\.0 \| 3\.0 \|/, 'per-file times still read')
  // Playwright names a test's project in brackets, "[side by side]" with spaces too.
  t.match(out, /\| \*\*\(failed\)\*\* test\/e2e\/b\.spec\.ts:5:1 › announces \| 12\.0 \|/, 'a browser test of a project whose name has spaces, failed')
  t.match(out, /\| test\/e2e\/a\.spec\.ts:10:3 › signs up \| 7\.4 \|/)
  t.match(out, /\| \*\*2 tests\*\* \| \*\*19\.4\*\* \|/)
})
