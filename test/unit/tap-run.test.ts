import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
// @ts-expect-error a plain .mjs module of the test runner, without types
import { processesFor, runTapFiles } from '../../scripts/tap-run.mjs'
// @ts-expect-error a plain .mjs module of the test runner, without types
import { bundleOf } from '../../scripts/test-bundle.mjs'
// @ts-expect-error a plain .mjs module of the test runner, without types
import { tapReader } from '../../scripts/test-report.mjs'
import { root } from '../helpers.ts'

// npm test runs the tap files with scripts/tap-run.mjs: what it prints must say what tap's runner
// says — each file's results, passes and failures counted, a file that hangs stopped at its time
// (or the time it asked for) and named, a file that dies without its counts a failure — in the form the readers know.

/** Writes bundles straight into the bundle folder of a fresh folder name; removed when `t` ends. */
function bundleWriter(t: Test, prefix: string, header = '') {
  const folder = `test/${prefix}-${randomBytes(4).toString('hex')}`
  t.teardown(() => fs.rmSync(path.join(root, path.dirname(bundleOf(`${folder}/x.test.ts`) as string)), { recursive: true, force: true }))
  return (name: string, body: string) => {
    const file = path.join(root, bundleOf(`${folder}/${name}`) as string)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, `${header}${body}`)
    return `${folder}/${name}`
  }
}

/** What npm test's report lists as failed, read from a run's output. */
function reportedFailures(output: string): string[] {
  const report = { failures: [] as string[], slow: [] as string[] }
  const reader = tapReader('PGlite', report)
  for (const line of output.split('\n')) reader.onLine(line)
  reader.done()
  return report.failures
}

t.test('passes, failures, a hang and a crash: counted, named, and the run fails', async (t) => {
  const write = bundleWriter(t, 'tap-run')
  const passes = write('passes.test.ts', "import t from 'tap'\nt.test('two checks', async (t) => { t.ok(true); t.equal(1, 1) })\n")
  const fails = write('fails.test.ts', "import t from 'tap'\nt.test('a check that fails', async (t) => { t.equal(1, 2, 'one is two') })\n")
  const hangs = write('hangs.test.ts', "import t from 'tap'\nt.test('waits forever', () => new Promise(() => setInterval(() => {}, 1000)))\n")
  const dies = write('dies.test.ts', "import t from 'tap'\nt.ok(true)\nprocess.exit(3)\n")
  // Past the runner's bound, within the file's own (a top-level t.setTimeout, as the container test has).
  const asks = write('asks.test.ts', "import t from 'tap'\nt.setTimeout(60_000)\nt.test('takes a while', () => new Promise((resolve) => setTimeout(resolve, 6_000)))\n")

  let output = ''
  const ok = (await runTapFiles([passes, fails, hangs, dies, asks], { jobs: 3, timeoutS: 5, write: (text: string) => void (output += text) })) as boolean
  t.equal(ok, false, 'the run fails')
  t.match(output, /^TAP version 14\n1\.\.5\n/, 'a plan for the files')
  t.match(output, new RegExp(`^ok \\d - ${passes} # time=`, 'm'), 'the passing file is ok')
  t.match(output, new RegExp(`^ok \\d - ${asks} # time=`, 'm'), 'the file that asked for more time is given it')
  for (const file of [fails, hangs, dies]) t.match(output, new RegExp(`^not ok \\d - ${file} # time=`, 'm'), `${file} is not ok`)
  t.match(output, /^# \{ total: \d+, pass: 4, fail: \d+ \}\n# time=[\d.]+ms\n$/m, 'the counts at the end, once')
  t.equal(output.match(/# \{ total/g)?.length, 1, 'no file\'s own counts are left in')
  t.match(output, /timeout: 5000/, 'the hang is stopped at its time')

  const failures = reportedFailures(output)
  t.ok(failures.includes(`tap (PGlite): ${fails} > a check that fails > one is two`), 'the failing check by name')
  t.ok(failures.some((entry) => entry.startsWith(`tap (PGlite): ${hangs}`)), 'the hanging file by name')
  t.ok(failures.includes(`tap (PGlite): ${dies}`), 'the file that died by name')
  t.notOk(failures.some((entry) => entry.includes(passes) || entry.includes(asks)), 'not the passing ones')
})

t.test('files run one after another in one process are reported as if each had its own', async (t) => {
  // As scripts/test-bundle.mjs writes a bundle: "tap" is scripts/tap-file.mjs.
  const write = bundleWriter(t, 'tap-group', `import t from ${JSON.stringify(path.join(root, 'scripts', 'tap-file.mjs'))}\n`)
  const first = write('first.test.ts', "globalThis.groupOrder = ['first']\nt.teardown(() => globalThis.groupOrder.push('first torn down'))\nt.test('two checks', async (t) => { t.ok(true); t.equal(1, 1) })")
  const second = write('second.test.ts', "t.test('the first file was torn down before this one began', async (t) => { t.same(globalThis.groupOrder, ['first', 'first torn down']) })")
  const fails = write('fails.test.ts', "t.test('a check that fails', async (t) => { t.equal(1, 2, 'one is two') })")
  const dies = write('dies.test.ts', 't.ok(true)\nprocess.exit(3)')
  const after = write('after.test.ts', "t.test('runs although the one before ended the process', async (t) => { t.equal(globalThis.groupOrder, undefined, 'in a process of its own') })")
  const hangs = write('hangs.test.ts', "t.test('waits forever', () => new Promise(() => setInterval(() => {}, 1000)))")
  const asks = write('asks.test.ts', "t.setTimeout(60_000)\nt.test('takes a while', () => new Promise((resolve) => setTimeout(resolve, 4_000)))")
  const last = write('last.test.ts', "t.test('one check', async (t) => { t.pass('done') })")

  let output = ''
  const files = [first, second, fails, dies, after, hangs, asks, last]
  const ok = (await runTapFiles(files, { jobs: 2, timeoutS: 3, group: 8, write: (text: string) => void (output += text) })) as boolean
  t.equal(ok, false, 'the run fails')
  t.match(output, /^TAP version 14\n1\.\.8\n/, 'a plan for the files')
  for (const file of [first, second, after, asks, last]) t.match(output, new RegExp(`^ok \\d - ${file} # time=`, 'm'), `${file} is ok`)
  for (const file of [fails, dies, hangs]) t.match(output, new RegExp(`^not ok \\d - ${file} # time=`, 'm'), `${file} is not ok`)
  t.equal(output.match(/^(?:not )?ok \d+ - /gm)?.length, 8, 'each file reported once')
  t.match(output, /^# \{ total: \d+, pass: \d+, fail: 3 \}\n# time=[\d.]+ms\n$/m, 'the counts of the files, once')
  t.notMatch(output, /tap-group counts/, 'the group\'s own lines are not passed on')
  t.match(output, new RegExp(`# Subtest: ${first}\\n    # Subtest: two checks\\n        ok 1 - `), 'a file\'s TAP at the level it has alone')
  t.match(output, /timeout: 3000/, 'the hang is stopped at its time')

  const failures = reportedFailures(output)
  t.ok(failures.includes(`tap (PGlite): ${fails} > a check that fails > one is two`), 'the failing check by name')
  t.ok(failures.some((entry) => entry.startsWith(`tap (PGlite): ${hangs}`)), 'the hanging file by name')
  t.ok(failures.some((entry) => entry.startsWith(`tap (PGlite): ${dies}`)), 'the file that ended the process by name')
  t.notOk(failures.some((entry) => [first, second, after, asks, last].some((file) => entry.includes(file))), 'not the passing ones')
})

t.test('which files share a process', async (t) => {
  t.same(processesFor(['a', 'b', 'c'], 1), [['a'], ['b'], ['c']], 'one each without groups')
  t.same(processesFor(['a', 'b', 'c', 'd', 'e'], 2, ['d']), [['d'], ['a', 'b'], ['c', 'e']], 'groups of two, the one kept alone first')
})
