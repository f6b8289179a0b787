// Runs tap files, already bundled by scripts/test-bundle.mjs, a few at a time on plain Node, and
// prints what tap's own runner prints with its "tap" reporter: each file as a "# Subtest:" block
// of its TAP, "ok N - <file> # time=…", the plan, the counts and the time. scripts/test.mjs, its
// readers (scripts/test-report.mjs) and scripts/ci-times.mjs read it as they read tap's.
//
// Why not tap's runner: it starts every test process with its process-info and mock module hooks
// (for coverage and t.mockImport, neither used here), which on Node 20 cost each file ~1 s and
// ~1.5 s of CPU before its first test. The tests themselves are tap's as ever;
// `npx tap <file>` runs one through tap's runner and tsx.
//
//   node scripts/tap-run.mjs [--jobs=N] [--timeout=S] [--group=G] test/unit/a.test.ts …
//
// With --group, up to G files run one after another in one process (scripts/tap-group.mjs), but
// those of ownProcess (scripts/test-plan.mjs), and each is still reported as its own file.
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
import { inPlan, ownProcess } from './test-plan.mjs'

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

/**
 * One process on plain Node: a file's bundle, or scripts/tap-group.mjs with several files. Resolves
 * with its output lines, exit, whether the runner's alarm went off and how long it ran.
 */
function runProcess(args, timeoutS, jobId) {
  return new Promise((resolve) => {
    const started = performance.now()
    const key = randomBytes(8).toString('hex')
    const child = spawn(process.execPath, ['--enable-source-maps', ...args], {
      cwd: root,
      env: childEnv(timeoutS, jobId, key),
      // The IPC channel is how a file asks for more time (a top-level t.setTimeout), as with tap's
      // runner; a group asks again as each of its files starts.
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
      resolve({ code, signal, timedOut, timeoutMs, lines: lines.filter((line) => line !== 'TAP version 14'), ms: performance.now() - started })
    })
  })
}

/** One file in a process of its own: its TAP (without its own counts), counts, outcome. */
async function runFile(file, timeoutS, jobId) {
  const run = await runProcess([path.join(root, bundleOf(file))], timeoutS, jobId)
  let counts
  const kept = []
  for (const line of run.lines) {
    const match = COUNTS.exec(line)
    if (match) counts = parseCounts(match[1])
    else kept.push(line)
  }
  const ok = run.code === 0 && !run.timedOut && counts !== undefined && !counts.fail
  return { file, ok, code: run.code, signal: run.signal, timedOut: run.timedOut, timeoutMs: run.timeoutMs, counts, lines: kept, ms: run.ms }
}

const GROUP_COUNTS = /^# tap-group counts (\{.*\})$/
const SUBTEST = /^# Subtest: (.*)$/
const RESULT = /^(not )?ok \d+ - (.*?)(?: # time=([\d.]+)ms)?$/

/**
 * Files one after another in one process (scripts/tap-group.mjs), each reported as if it had had
 * a process of its own: its subtest's TAP one level up, its counts, its time. A file the process
 * ended during (a crash, the alarm) fails with the exit; the files after it run in a new group.
 */
async function runGroup(files, timeoutS, jobId) {
  const run = await runProcess([path.join(root, 'scripts', 'tap-group.mjs'), ...files], timeoutS, jobId)
  const results = []
  let current
  for (const line of run.lines) {
    const subtest = SUBTEST.exec(line)
    const result = RESULT.exec(line)
    const counts = GROUP_COUNTS.exec(line)
    if (!current && subtest && subtest[1] === files[results.length]) {
      current = { file: subtest[1], lines: [] }
    } else if (current && result && result[2] === current.file) {
      current.passed = !result[1]
      current.ms = Number(result[3] ?? 0)
      results.push(current)
      current = undefined
    } else if (!current && counts && results.length > 0) {
      results.at(-1).counts = JSON.parse(counts[1])
    } else if (current) {
      current.lines.push(line.startsWith('    ') ? line.slice(4) : line)
    } else if (results.length > 0 && !/^1\.\.\d+$|^# \{ total: |^# time=/.test(line)) {
      // The YAML block under a failed file's line, or what printed after the file ended.
      results.at(-1).lines.push(line)
    }
  }
  const ended = { code: run.code, signal: run.signal, timedOut: run.timedOut, timeoutMs: run.timeoutMs }
  const reported = results.map((result) => {
    const ok = result.passed && result.counts !== undefined && !result.counts.fail
    return { file: result.file, ok, ...(ok ? { code: 0, signal: null, timedOut: false } : ended), counts: result.counts, lines: result.lines, ms: result.ms }
  })
  if (results.length === files.length) return reported
  // The files after the last one reported start again in a process of their own: none had begun
  // (the process stopped after a file that ran past its time), or one had, which fails with the
  // exit as it would alone (a crash, the alarm) — as does the first, if the process never got to it.
  const rest = files.slice(results.length)
  if (current || results.length === 0) {
    const ms = run.ms - reported.reduce((sum, result) => sum + result.ms, 0)
    reported.push({ file: rest.shift(), ok: false, ...ended, counts: undefined, lines: current?.lines ?? [], ms })
  }
  return rest.length === 0 ? reported : [...reported, ...(await runGroup(rest, timeoutS, jobId))]
}

/**
 * What runs in one process: a file, or up to `group` files one after another. The files of `alone`
 * (globs, scripts/test-plan.mjs) always have a process of their own, and go first: they are the
 * long ones, and the groups then fill the time beside them.
 */
export function processesFor(files, group = 1, alone = []) {
  const single = files.filter((file) => group <= 1 || inPlan(file, alone)).map((file) => [file])
  const rest = group <= 1 ? [] : files.filter((file) => !inPlan(file, alone))
  const groups = []
  for (let start = 0; start < rest.length; start += group) groups.push(rest.slice(start, start + group))
  return [...single, ...groups]
}

export async function runTapFiles(files, { jobs = os.availableParallelism(), timeoutS = 120, group = 1, alone = ownProcess, write = (text) => process.stdout.write(text) } = {}) {
  const started = performance.now()
  const totals = { total: 0, pass: 0, fail: 0, skip: 0, todo: 0 }
  write(`TAP version 14\n1..${files.length}\n`)
  const units = processesFor(files, group, alone)
  let next = 0
  let number = 0
  let failed = 0
  const worker = async (jobId) => {
    while (next < units.length) {
      const unit = units[next++]
      for (const result of unit.length === 1 ? [await runFile(unit[0], timeoutS, jobId)] : await runGroup(unit, timeoutS, jobId)) report(result)
    }
  }
  const report = (result) => {
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
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, units.length)) }, (_, index) => worker(index)))
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
    const group = /^--group=(\d+)$/.exec(arg)
    if (jobs) options.jobs = Number(jobs[1])
    else if (group) options.group = Number(group[1])
    else if (timeout) options.timeoutS = Number(timeout[1])
    else files.push(arg)
  }
  process.exitCode = (await runTapFiles(files, options)) ? 0 : 1
}
