// `npm test`: lint and type check (side by side), build, the tap suite (on PGlite, and again on PostgreSQL when
// TEST_DATABASE_URL is set), the system tests once, then the browser tests. Stops at the first failing step and ends
// with a summary: each step's wall time, every failing tap file and subtest and every failing
// browser test by name, the slow ones and those that passed on a retry (flaky candidates; the limits
// are in scripts/test-report.mjs), then one line "tests: N passed, N failed, N skipped".
// CI keeps only the end of the log, so the end names what failed. `node scripts/ci-times.mjs` turns
// a log of this into per-step and per-file tables.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { testFiles } from './test-bundle.mjs'
import { databaseFree, databaseNeutral, inPlan } from './test-plan.mjs'
import { playwrightReader, tapReader } from './test-report.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name) => path.join(root, 'node_modules', '.bin', name)
const totals = { passed: 0, failed: 0, skipped: 0 }
/** @type {{label: string, seconds: number, code: number}[]} */
const stepTimes = []
const startedAt = performance.now()
/** Names of what failed and of what passed slowly or on a retry, for the summary (scripts/test-report.mjs). */
const report = { failures: [], slow: [] }

function run(label, command, args, env = {}, onLine) {
  console.log(`\n=== ${label} ===`)
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    let tail = ''
    let partial = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (text) => {
      process.stdout.write(text)
      tail = (tail + text).slice(-4000)
      if (onLine) {
        const lines = (partial + text).split('\n')
        partial = lines.pop() ?? ''
        for (const line of lines) onLine(line)
      }
    })
    child.on('close', (code) => {
      if (onLine && partial) onLine(partial)
      const seconds = (performance.now() - started) / 1000
      stepTimes.push({ label, seconds, code: code ?? 1 })
      console.log(`--- ${label}: ${seconds.toFixed(1)} s (exit ${code ?? 1})`)
      resolve({ code: code ?? 1, tail })
    })
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
  imageBuild?.stop()
  console.log('\n=== summary ===')
  for (const { label, seconds, code: exit } of stepTimes) console.log(`${label}: ${seconds.toFixed(1)} s${exit === 0 ? '' : ` (exit ${exit})`}`)
  console.log(`all steps (wall): ${((performance.now() - startedAt) / 1000).toFixed(1)} s`)
  if (report.slow.length > 0) console.log(`\nslow to pass or passed on a retry (${report.slow.length}; flaky candidates):\n${report.slow.map((entry) => `  ${entry}`).join('\n')}`)
  if (report.failures.length > 0) console.log(`\nfailed (${report.failures.length}):\n${report.failures.map((entry) => `  ${entry}`).join('\n')}`)
  console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`)
  process.exit(code)
}

async function step(label, command, args, env, count, reader) {
  const { code, tail } = await run(label, command, args, env, reader?.onLine)
  count?.(tail)
  reader?.done?.()
  if (code !== 0) {
    console.error(`\n${label} failed (exit ${code})`)
    if (totals.failed === 0) totals.failed = 1
    finish(code)
  }
}

/**
 * Steps that only read the tree run side by side (lint and the type check are one process each, on
 * one core each): each one's output is kept and printed as a block when it ends, so the log reads as
 * if they had run one after the other; the first failure stops the run as `step` does.
 */
async function sideBySide(steps) {
  const results = await Promise.all(
    steps.map(
      ({ label, command, args }) =>
        new Promise((resolve) => {
          const started = performance.now()
          const child = spawn(command, args, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] })
          let output = ''
          child.stdout.setEncoding('utf8').on('data', (text) => (output += text))
          child.stderr.setEncoding('utf8').on('data', (text) => (output += text))
          child.on('close', (code) => resolve({ label, code: code ?? 1, output, seconds: (performance.now() - started) / 1000 }))
        }),
    ),
  )
  for (const { label, code, output, seconds } of results) {
    console.log(`\n=== ${label} ===`)
    if (output) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
    stepTimes.push({ label, seconds, code })
    console.log(`--- ${label}: ${seconds.toFixed(1)} s (exit ${code}) (side by side with ${results.filter((other) => other.label !== label).map((other) => other.label).join(', ')})`)
  }
  const failed = results.find((result) => result.code !== 0)
  if (failed) {
    console.error(`\n${failed.label} failed (exit ${failed.code})`)
    if (totals.failed === 0) totals.failed = 1
    finish(failed.code)
  }
}

/**
 * The container image of test/system/container.test.ts, built in the background from the tap steps on:
 * on a fresh machine most of that build waits on the network (debootstrap, Node and npm ci in the
 * image) or the disk, and it runs at the lowest CPU priority, so the steps beside it lose less than
 * it takes alone (docs/BENCHMARKS.md, 2026-12-07, fourth step): nice 19 for podman and debootstrap,
 * and the smallest CPU share for the build's RUN steps (`--cpu-shares 2`: they run in a cgroup of
 * their own, which nice does not reach; at the default share the steps beside them slowed by half). The
 * container test then builds again and finds every layer in podman's cache. Its output goes to a
 * file; the test itself reports any failure of the build. Not started where podman is missing.
 */
function startImageBuild() {
  const script = path.join(root, 'scripts', 'container', 'build.sh')
  const podman = ['/usr/bin/podman', '/usr/local/bin/podman', '/usr/sbin/podman'].some((file) => fs.existsSync(file))
  if (!podman || systemTests.every((file) => !file.endsWith('container.test.ts'))) return undefined
  const logFile = path.join(root, 'node_modules', '.cache', 'softshelf', 'image-build.log')
  fs.mkdirSync(path.dirname(logFile), { recursive: true })
  const log = fs.openSync(logFile, 'w')
  const started = performance.now()
  // Its own process group, so a run that stops early stops the build's podman too.
  const child = spawn('nice', ['-n', '19', script, '--cpu-shares', '2'], {
    cwd: root,
    env: { ...process.env, SOFTSHELF_IMAGE: process.env.SOFTSHELF_TEST_IMAGE ?? 'localhost/softshelf:test' },
    stdio: ['ignore', log, log],
    detached: true,
  })
  fs.closeSync(log)
  // Its time is taken when it ends, not when the run comes to wait for it.
  const done = new Promise((resolve) => {
    const end = (code) => resolve({ code, seconds: (performance.now() - started) / 1000 })
    child.on('error', () => end(1))
    child.on('close', (code) => end(code ?? 1))
  })
  return {
    stop: () => {
      try {
        process.kill(-child.pid, 'SIGTERM')
      } catch {
        // already ended
      }
    },
    /** Waits for the build and prints its line (not counted in the wall time: it ran beside the others). */
    async wait() {
      const { code, seconds } = await done
      console.log(`\n=== container image ===\n(scripts/container/build.sh, in the background since the tap steps began; its output: ${path.relative(root, logFile)})`)
      if (code !== 0) console.log(fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-15).join('\n'))
      console.log(`--- container image: ${seconds.toFixed(1)} s (exit ${code}) (in the background)`)
    },
  }
}
const systemTests = testFiles(root, ['test/system'])
/** @type {ReturnType<typeof startImageBuild>} */
let imageBuild

await sideBySide([
  // eslint, then madge: no import cycle, type imports included (.madgerc). In one lane, eslint and
  // madge (~8 s) together take about as long as the type check beside them.
  { label: 'lint', command: 'npm', args: ['run', '--silent', 'lint'] },
  { label: 'type check', command: bin('tsc'), args: ['-p', 'tsconfig.json'] },
])
await step('build', process.execPath, [path.join(root, 'scripts', 'build.mjs')])
// Started once the app is built: beside a fresh machine's debootstrap, lint and the type check took
// 41 and 54 s (22 and 31 s alone) and the build 20 s (14); the tap steps leave it ten minutes and more.
imageBuild = startImageBuild()
// Every tap file is bundled without its TypeScript and run on plain Node by scripts/tap-run.mjs:
// no module hooks before its first test (scripts/test-bundle.mjs says why).
const tapFiles = testFiles(root, ['test/unit', 'test/integration'])
await step('bundle tap files', process.execPath, [path.join(root, 'scripts', 'test-bundle.mjs'), 'test/unit', 'test/integration', 'test/system'])
const tapRun = path.join(root, 'scripts', 'tap-run.mjs')
// One file per core (one at a time left a core idle while the other waited on a socket
// or a timer) fills both without oversubscribing them.
const jobs = `--jobs=${os.availableParallelism()}`
// Eight files to a process, one after another (scripts/tap-group.mjs): each pays Node's start and
// the loading of the app's modules once per eight, not once — and its first stack is built on
// warm code: in npm test the PGlite step took 519 s instead of 781, PostgreSQL 207 instead of 343. A file is
// reported as it would be alone.
const group = '--group=8'
await step('tap on PGlite', process.execPath, [tapRun, jobs, group, ...tapFiles], { TEST_DATABASE_URL: '' }, countTap, tapReader('PGlite', report))
if (process.env.TEST_DATABASE_URL) {
  // The second run is for what can behave differently on PostgreSQL: the SQL. Unit tests, the files
  // that never open a database and the BFF files that only check HTTP behaviour on a stack ran once
  // already; the rule and the list are in scripts/test-plan.mjs (checked by test/unit/test-plan.test.ts).
  const once = [...databaseFree, ...databaseNeutral]
  await step('tap on PostgreSQL', process.execPath, [tapRun, jobs, group, ...tapFiles.filter((file) => !inPlan(file, once))], {}, countTap, tapReader('PostgreSQL', report))
} else {
  console.log('\n(TEST_DATABASE_URL is not set: the PostgreSQL run is skipped; .ci/run sets it)')
}
// The container test's image must be built (or have failed) before the system tests start.
await imageBuild?.wait()
// System tests (test/system/*.test.ts) start whole processes, servers or a container and take
// minutes: they run once, not once per database, and one at a time: each starts processes on ports
// it picked as free, which a neighbour's process could take.
if (systemTests.length > 0) await step('system tests (once)', process.execPath, [tapRun, '--jobs=1', ...systemTests], {}, countTap, tapReader('system', report))
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
if (!fs.existsSync(chromium)) {
  console.error(`\nChromium not found at ${chromium}: install it (apt-get install chromium) or set CHROMIUM_PATH.`)
  totals.failed += 1
  finish(1)
}
await step('browser tests (Playwright + Chromium)', bin('playwright'), ['test'], {}, countPlaywright, playwrightReader(report))
finish(0)
