// What scripts/test.mjs (and scripts/ci-times.mjs, from a log) reports by name at the end of a run:
// every failing tap file and subtest, every failing browser test, and the flaky candidates — a tap
// file slower than SLOW_TAP_FILE_S, a browser test slower than SLOW_BROWSER_TEST_S, a browser test
// that passed only on a retry. Readers take the output one line at a time and fill
// `report.failures` and `report.slow` with one line per test.

export const SLOW_TAP_FILE_S = Number(process.env.SLOW_TAP_FILE_S ?? 60)
export const SLOW_BROWSER_TEST_S = Number(process.env.SLOW_BROWSER_TEST_S ?? 20)

/**
 * tap's TAP 14 output: the path of each result ("file > subtest > assertion") from the
 * "# Subtest:" lines (four spaces a level), each "not ok" by that path (the deepest of a branch: its
 * parents failed because it did), and the files slower than SLOW_TAP_FILE_S.
 */
export function tapReader(run, report) {
  const names = []
  const failed = []
  return {
    onLine(line) {
      const subtest = /^((?: {4})*)# Subtest: (.*)$/.exec(line)
      if (subtest) {
        const level = subtest[1].length / 4
        names.length = level
        names[level] = subtest[2]
        return
      }
      const result = /^((?: {4})*)(not ok|ok) \d+ - (.*?)(?: # (time=([\d.]+)ms|SKIP.*|TODO.*))?\s*$/.exec(line)
      if (!result) return
      const level = result[1].length / 4
      const name = result[3]
      if (result[2] === 'not ok' && !/^TODO/.test(result[4] ?? '')) failed.push([...names.slice(0, level), name].join(' > '))
      const seconds = Number(result[5] ?? 0) / 1000
      if (level === 0 && seconds > SLOW_TAP_FILE_S) report.slow.push(`tap (${run}): ${name} took ${seconds.toFixed(1)} s (above ${SLOW_TAP_FILE_S} s)`)
    },
    done() {
      for (const entry of failed) {
        if (!failed.some((other) => other.startsWith(`${entry} > `))) report.failures.push(`tap (${run}): ${entry}`)
      }
    },
  }
}

/**
 * Playwright's list reporter: "  ✘   12 test/e2e/x.spec.ts:10:3 › title (7.4s)"; a retry adds
 * "(retry #1)" before the time. A test that failed and then passed on a retry is flaky: it leaves the
 * failures for the slow list, named as such.
 */
export function playwrightReader(report) {
  const failedAt = new Map()
  return {
    onLine(line) {
      const match = /^\s+(✓|✘|-)\s+\d+ (?:\[[^\]]+\] › )?(\S+\.spec\.ts:\d+:\d+ › .*?)( \(retry #\d+\))? \(([\d.]+)(ms|s|m)\)\s*$/.exec(line)
      if (!match) return
      const [, mark, name, retry] = match
      const seconds = Number(match[4]) * { ms: 0.001, s: 1, m: 60 }[match[5]]
      if (mark === '✘') {
        if (!failedAt.has(name)) {
          failedAt.set(name, report.failures.length)
          report.failures.push(`browser: ${name} (${seconds.toFixed(1)} s)`)
        }
      } else if (mark === '✓' && retry) {
        if (failedAt.has(name)) report.failures[failedAt.get(name)] = undefined
        report.slow.push(`browser: ${name} passed on a retry${retry.trim().replace(/^\(retry #(\d+)\)$/, ' (#$1)')}`)
      } else if (mark === '✓' && seconds > SLOW_BROWSER_TEST_S) {
        report.slow.push(`browser: ${name} took ${seconds.toFixed(1)} s (above ${SLOW_BROWSER_TEST_S} s)`)
      }
    },
    done() {
      const kept = report.failures.filter((entry) => entry !== undefined)
      report.failures.length = 0
      report.failures.push(...kept)
    },
  }
}
