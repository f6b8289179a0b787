// Runs tap files, already bundled by scripts/test-bundle.mjs, a few at a time on plain Node, and
// prints what tap's own runner prints with its "tap" reporter: each file as a "# Subtest:" block
// of its TAP, "ok N - <file> # time=…", the plan, the counts and the time. scripts/test.mjs, its
// readers (scripts/test-report.mjs) and scripts/ci-times.mjs read it as they read tap's.
//
// Why not tap's runner: it starts every test process with its process-info and mock module hooks
// (for coverage and t.mockImport, neither used here), which on Node 20 cost each file ~1 s and
// ~1.5 s of CPU before its first test (issue 30, goal 3). The tests themselves are tap's as ever;
// `npx tap <file>` runs one through tap's runner and tsx.
//
//   node scripts/tap-run.mjs [--jobs=N] [--timeout=S] test/unit/a.test.ts …
//
// Each file's bundle (bundleOf) must exist. A file is given S seconds (120 by default, as
// package.json's tap config) or what its top-level t.setTimeout asks for: then SIGALRM, which tap
// answers by reporting what was still running, and SIGKILL a second later. Exit code 1 when a file
// failed.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundleOf } from './test-bundle.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const COUNTS = /^# (\{ total: .*\})\s*$/

/** tap's "{ total: 3, pass: 2, fail: 1 }" comment as numbers. */
function parseCounts(text) {
  const counts = {}
  for (const [, key, value] of text.matchAll(/(\w+): (\d+)/g)) counts[key] = Number(value)
  return counts
}

/**
 * As tap's runner sets it: TAP=1, the job, the file's own timeout. What a tap run around this one
 * set (when a test runs the runner) is left out: a child id would make the file keep its counts,
 * process-info hooks would load again.
 */
function childEnv(timeoutS, jobId, key) {
  const env = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('TAP_') || name.startsWith('_TAPJS_') || (name === 'NODE_OPTIONS' && value?.includes('@tapjs/'))) continue
    env[name] = value
  }
  return { ...env, TAP: '1', TAP_TIMEOUT: String(timeoutS), TAP_JOB_ID: String(jobId), TAP_CHILD_KEY: key }
}

/** One file on plain Node: its TAP (without the version line and its own counts), counts, outcome. */
function runFile(file, timeoutS, jobId) {
  return new Promise((resolve) => {
    const started = performance.now()
    const key = randomBytes(8).toString('hex')
    const child = spawn(process.execPath, ['--enable-source-maps', path.join(root, bundleOf(file))], {
      cwd: root,
      env: childEnv(timeoutS, jobId, key),
      // The IPC channel is how a file asks for more time (a top-level t.setTimeout), as with tap's runner.
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (text) => (output += text))
    let timedOut = false
    let alarm
    const arm = (ms) => {
      clearTimeout(alarm)
      alarm = setTimeout(() => {
        timedOut = true
        child.kill('SIGALRM')
        setTimeout(() => child.kill('SIGKILL'), 1_000).unref()
      }, ms)
    }
    let timeoutMs = timeoutS * 1_000
    arm(timeoutMs)
    child.on('message', (message) => {
      if (message && typeof message === 'object' && message.key === key && typeof message.setTimeout === 'number' && message.setTimeout > 0) {
        timeoutMs = message.setTimeout
        arm(timeoutMs)
      }
    })
    child.on('close', (code, signal) => {
      clearTimeout(alarm)
      const lines = output.split('\n')
      if (lines.at(-1) === '') lines.pop()
      let counts
      const kept = []
      for (const line of lines) {
        const match = COUNTS.exec(line)
        if (match) counts = parseCounts(match[1])
        else if (line !== 'TAP version 14') kept.push(line)
      }
      const ok = code === 0 && !timedOut && counts !== undefined && !counts.fail
      resolve({ file, ok, code, signal, timedOut, timeoutMs, counts, lines: kept, ms: performance.now() - started })
    })
  })
}

export async function runTapFiles(files, { jobs = os.availableParallelism(), timeoutS = 120, write = (text) => process.stdout.write(text) } = {}) {
  const started = performance.now()
  const totals = { total: 0, pass: 0, fail: 0, skip: 0, todo: 0 }
  write(`TAP version 14\n1..${files.length}\n`)
  let next = 0
  let number = 0
  let failed = 0
  const worker = async (jobId) => {
    while (next < files.length) {
      const result = await runFile(files[next++], timeoutS, jobId)
      number += 1
      const counts = result.counts ?? { total: 1, fail: 1 }
      for (const key of Object.keys(totals)) totals[key] += counts[key] ?? 0
      if (!result.ok && !counts.fail) {
        totals.total += 1
        totals.fail += 1
      }
      if (!result.ok) failed += 1
      const block = [`# Subtest: ${result.file}`, ...result.lines.map((line) => (line === '' ? '' : `    ${line}`))]
      const time = ` # time=${result.ms.toFixed(3)}ms`
      block.push(`${result.ok ? 'ok' : 'not ok'} ${number} - ${result.file}${time}`)
      if (!result.ok) {
        block.push('  ---', `  exitCode: ${result.code}`, `  signal: ${result.signal}`)
        if (result.timedOut) block.push(`  timeout: ${result.timeoutMs}`)
        if (!result.counts) block.push('  note: the file ended without its counts')
        block.push('  ...')
      }
      write(`${block.join('\n')}\n\n`)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, files.length)) }, (_, index) => worker(index)))
  const shown = Object.entries(totals)
    .filter(([key, value]) => key === 'total' || value > 0)
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ')
  write(`# { ${shown} }\n# time=${(performance.now() - started).toFixed(3)}ms\n`)
  return failed === 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = { jobs: os.availableParallelism(), timeoutS: 120 }
  const files = []
  for (const arg of process.argv.slice(2)) {
    const jobs = /^--jobs=(\d+)$/.exec(arg)
    const timeout = /^--timeout=(\d+)$/.exec(arg)
    if (jobs) options.jobs = Number(jobs[1])
    else if (timeout) options.timeoutS = Number(timeout[1])
    else files.push(arg)
  }
  process.exitCode = (await runTapFiles(files, options)) ? 0 : 1
}
