#!/usr/bin/env node
// Where CI's time goes: reads the output of `npm test` (scripts/test.mjs) from a file or stdin and
// prints, as Markdown tables, the wall time of each step, the time of each tap file in each tap run
// (PGlite, PostgreSQL, system tests), largest first, the slowest browser tests, and by name what
// failed and what was slow to pass (scripts/test-report.mjs, as at the end of `npm test`).
//
//   node scripts/ci-times.mjs npmtest.log            # every file
//   npm test 2>&1 | tee ci.log; node scripts/ci-times.mjs --top 30 ci.log
//
// Step times come from the "--- <step>: N s" lines scripts/test.mjs prints; for an older log
// without them, a tap step's time is its final "# time=" and the others are left blank.
import fs from 'node:fs'
import { playwrightReader, tapReader } from './test-report.mjs'

const args = process.argv.slice(2)
let top = Infinity
const files = []
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i])
  else if (args[i] === '--help' || args[i] === '-h') {
    console.log('usage: node scripts/ci-times.mjs [--top N] [npm-test.log]   (stdin when no file)')
    process.exit(0)
  } else files.push(args[i])
}
const text = files.length > 0 ? files.map((file) => fs.readFileSync(file, 'utf8')).join('\n') : fs.readFileSync(0, 'utf8')

/** @type {{label: string, seconds: number | undefined, lines: string[], exit?: number, sideBy?: string, background?: boolean}[]} */
const steps = []
let current
for (const line of text.split('\n')) {
  const start = /^=== (.+) ===$/.exec(line)
  if (start?.[1] === 'summary') {
    current = undefined
    continue
  }
  if (start) {
    current = { label: start[1], seconds: undefined, lines: [] }
    steps.push(current)
    continue
  }
  const end = /^--- (.+?): ([\d.]+) s(?: \(exit (\d+)\))?(?: \(side by side with (.+)\))?( \(in the background\))?$/.exec(line)
  if (end) {
    const step = steps.findLast((s) => s.label === end[1])
    if (step) {
      step.seconds = Number(end[2])
      if (end[3] !== undefined) step.exit = Number(end[3])
      if (end[4] !== undefined) step.sideBy = end[4]
      if (end[5] !== undefined) step.background = true
    }
    continue
  }
  current?.lines.push(line)
}

const report = { failures: [], slow: [] }
const runName = (label) => (/PGlite/i.test(label) ? 'PGlite' : /PostgreSQL/i.test(label) ? 'PostgreSQL' : /system/i.test(label) ? 'system' : label)
const tapRuns = []
const byFile = new Map()
const browserTests = []
for (const step of steps) {
  const isTap = step.lines.some((line) => /^TAP version/.test(line))
  if (isTap) {
    const run = runName(step.label)
    tapRuns.push(run)
    const reader = tapReader(run, report)
    for (const line of step.lines) reader.onLine(line)
    reader.done()
    for (const line of step.lines) {
      // Top-level results only: a file's line starts at column 0.
      const match = /^(not ok|ok) \d+ - (\S+)(?: # time=([\d.]+)ms)?/.exec(line)
      if (match) {
        const file = match[2]
        const row = byFile.get(file) ?? {}
        row[run] = (row[run] ?? 0) + Number(match[3] ?? 0) / 1000
        if (match[1] === 'not ok') row.failed = true
        byFile.set(file, row)
      }
    }
    if (step.seconds === undefined) {
      const last = step.lines.findLast((line) => /^# time=[\d.]+ms/.test(line))
      if (last) step.seconds = Number(/[\d.]+/.exec(last)[0]) / 1000
    }
  }
  const browser = playwrightReader(report)
  for (const line of step.lines) browser.onLine(line)
  browser.done()
  for (const line of step.lines) {
    // Playwright's list reporter: "  ✓   12 test/e2e/x.spec.ts:10:3 › title (7.4s)"
    const match = /^\s+(✓|✘|-|±)\s+\d+ (?:\[[^\]]+\] › )?(\S+\.spec\.ts:\d+:\d+) › (.*) \(([\d.]+)(ms|s|m)\)\s*$/.exec(line)
    if (match) {
      const factor = { ms: 0.001, s: 1, m: 60 }[match[5]]
      browserTests.push({ mark: match[1], where: match[2], title: match[3], seconds: Number(match[4]) * factor })
    }
  }
}

const fmt = (seconds) => (seconds === undefined ? '' : seconds.toFixed(1))
const out = []
out.push('| step | wall s |', '|---|---:|')
// Steps run side by side count once, as the longest of them.
let total = 0
let group = 0
for (const step of steps) {
  // A step in the background ran beside the others from the start: its time is in theirs.
  if (step.background) {
    out.push(`| ${step.label}${step.exit ? ` (exit ${step.exit})` : ''} (in the background, not added) | ${fmt(step.seconds)} |`)
    continue
  }
  if (step.sideBy) group = Math.max(group, step.seconds ?? 0)
  else {
    total += group + (step.seconds ?? 0)
    group = 0
  }
  out.push(`| ${step.label}${step.exit ? ` (exit ${step.exit})` : ''}${step.sideBy ? ` (side by side with ${step.sideBy})` : ''} | ${fmt(step.seconds)} |`)
}
total += group
out.push(`| **all steps (wall)** | **${fmt(total)}** |`, '')

const runs = [...new Set(tapRuns)]
if (runs.length > 0) {
  const rows = [...byFile].map(([file, row]) => ({ file, row, sum: runs.reduce((s, run) => s + (row[run] ?? 0), 0) }))
  rows.sort((a, b) => b.sum - a.sum)
  out.push(`| tap file | ${runs.map((run) => `${run} s`).join(' | ')} | sum s |`, `|---|${runs.map(() => '---:|').join('')}---:|`)
  for (const { file, row, sum } of rows.slice(0, top)) {
    out.push(`| ${file}${row.failed ? ' **(failed)**' : ''} | ${runs.map((run) => fmt(row[run])).join(' | ')} | ${fmt(sum)} |`)
  }
  if (rows.length > top) {
    const rest = rows.slice(top)
    out.push(`| … ${rest.length} more files | ${runs.map((run) => fmt(rest.reduce((s, r) => s + (r.row[run] ?? 0), 0))).join(' | ')} | ${fmt(rest.reduce((s, r) => s + r.sum, 0))} |`)
  }
  const count = (run) => rows.filter((r) => r.row[run] !== undefined).length
  out.push(`| **files (count)** | ${runs.map((run) => `**${count(run)}**`).join(' | ')} | |`)
  out.push(`| **sum of file times** | ${runs.map((run) => `**${fmt(rows.reduce((s, r) => s + (r.row[run] ?? 0), 0))}**`).join(' | ')} | **${fmt(rows.reduce((s, r) => s + r.sum, 0))}** |`)
  out.push(`| **step wall time** | ${runs.map((run) => `**${fmt(steps.filter((s) => runName(s.label) === run).reduce((s, step) => s + (step.seconds ?? 0), 0))}**`).join(' | ')} | |`, '')
}

if (browserTests.length > 0) {
  const sorted = [...browserTests].sort((a, b) => b.seconds - a.seconds)
  out.push('| browser test | s |', '|---|---:|')
  for (const test of sorted.slice(0, top)) out.push(`| ${test.mark === '✘' ? '**(failed)** ' : ''}${test.where} › ${test.title.replaceAll('|', '\\|')} | ${fmt(test.seconds)} |`)
  if (sorted.length > top) out.push(`| … ${sorted.length - top} more tests | ${fmt(sorted.slice(top).reduce((s, t) => s + t.seconds, 0))} |`)
  out.push(`| **${browserTests.length} tests** | **${fmt(browserTests.reduce((s, t) => s + t.seconds, 0))}** |`, '')
}
if (report.slow.length > 0) out.push(`slow to pass or passed on a retry (${report.slow.length}):`, ...report.slow.map((entry) => `- ${entry}`), '')
if (report.failures.length > 0) out.push(`failed (${report.failures.length}):`, ...report.failures.map((entry) => `- ${entry}`), '')
console.log(out.join('\n'))
