// `npm test`: lint, type check, build, the tap suite (on PGlite, and again on PostgreSQL when
// TEST_DATABASE_URL is set), the system tests once, then the browser tests. Stops at the first failing step and ends
// with one summary line: "tests: N passed, N failed, N skipped".
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name) => path.join(root, 'node_modules', '.bin', name)
const totals = { passed: 0, failed: 0, skipped: 0 }

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label} ===`)
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    let tail = ''
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk)
      tail = (tail + chunk.toString()).slice(-4000)
    })
    child.on('close', (code) => resolve({ code: code ?? 1, tail }))
  })
}

function countTap(tail) {
  const match = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?(?:, skip: (\d+))?(?:, todo: (\d+))?/.exec(tail)
  if (!match) return
  totals.passed += Number(match[2] ?? 0)
  totals.failed += Number(match[3] ?? 0)
  totals.skipped += Number(match[4] ?? 0) + Number(match[5] ?? 0)
}

function countPlaywright(tail) {
  totals.passed += Number(/(\d+) passed/.exec(tail)?.[1] ?? 0)
  totals.failed += Number(/(\d+) failed/.exec(tail)?.[1] ?? 0) + Number(/(\d+) flaky/.exec(tail)?.[1] ?? 0)
  totals.skipped += Number(/(\d+) skipped/.exec(tail)?.[1] ?? 0)
}

function finish(code) {
  console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`)
  process.exit(code)
}

async function step(label, command, args, env, count) {
  const { code, tail } = await run(label, command, args, env)
  count?.(tail)
  if (code !== 0) {
    console.error(`\n${label} failed (exit ${code})`)
    if (totals.failed === 0) totals.failed = 1
    finish(code)
  }
}

await step('lint', bin('eslint'), ['.'])
await step('type check', bin('tsc'), ['-p', 'tsconfig.json'])
await step('build', process.execPath, [path.join(root, 'scripts', 'build.mjs')])
await step('tap on PGlite', bin('tap'), [], { TEST_DATABASE_URL: '' }, countTap)
if (process.env.TEST_DATABASE_URL) {
  // The second run is for what touches the database: unit tests and the files that never open one
  // (or that run the embedded default whatever the environment says) ran once already.
  const databaseFree = ['test/unit/**', 'test/integration/process.test.ts', 'test/integration/bff/upstream-streamed.test.ts', 'test/integration/bff/slow-clients.test.ts']
  await step('tap on PostgreSQL', bin('tap'), databaseFree.map((glob) => `--exclude=${glob}`), {}, countTap)
} else {
  console.log('\n(TEST_DATABASE_URL is not set: the PostgreSQL run is skipped; .ci/run sets it)')
}
// System tests (test/system/*.test.ts) start whole processes, servers or a container and take
// minutes: they run once, not once per database.
const systemTests = fs.existsSync(path.join(root, 'test', 'system'))
  ? fs.readdirSync(path.join(root, 'test', 'system')).filter((name) => name.endsWith('.test.ts')).map((name) => path.join('test', 'system', name))
  : []
if (systemTests.length > 0) await step('system tests (once)', bin('tap'), systemTests, {}, countTap)
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
if (!fs.existsSync(chromium)) {
  console.error(`\nChromium not found at ${chromium}: install it (apt-get install chromium) or set CHROMIUM_PATH.`)
  totals.failed += 1
  finish(1)
}
await step('browser tests (Playwright + Chromium)', bin('playwright'), ['test'], {}, countPlaywright)
finish(0)
