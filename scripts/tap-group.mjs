// Runs several bundled tap files one after another in one process, each as a subtest named after
// the file (scripts/tap-run.mjs `--group`). A file's `t` is its subtest (scripts/tap-file.mjs), so
// what it registers at its top level — tests, teardowns, a plan — is its own, and its teardowns run
// when it ends, before the next file starts. What the files share is what a file with several
// stacks shares already: the loaded modules (loaded and compiled once, not once per file: ~1 s of
// each file's time) and the process.
//
//   node scripts/tap-group.mjs test/unit/a.test.ts test/unit/b.test.ts …
//
// After each file a comment `# tap-group counts {…}` gives its counts, which tap-run reports as
// that file's. Each file gets the timeout it would get alone (TAP_TIMEOUT, or what its top-level
// t.setTimeout asks for), counted from its start: the root's timeout is set again as each starts,
// which also tells the runner (IPC) when to send SIGALRM.
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t from 'tap'
import { CURRENT_FILE } from './tap-file.mjs'
import { bundleOf } from './test-bundle.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const fileTimeoutMs = Number(process.env.TAP_TIMEOUT || '120') * 1_000
const LINGER_MS = 5_000

for (const file of process.argv.slice(2)) {
  t.setTimeout(fileTimeoutMs)
  let subtest
  await t.test(file, async (ft) => {
    subtest = ft
    globalThis[CURRENT_FILE] = { t: ft, setTimeout: (ms) => t.setTimeout(ms) }
    await import(pathToFileURL(path.join(root, bundleOf(file))).href)
  })
  globalThis[CURRENT_FILE] = undefined
  t.comment(`tap-group counts ${JSON.stringify(subtest?.counts ?? { total: 1, fail: 1 })}`)
  // The file ran past its time (the root timed out, as a file alone does): the rest are the
  // runner's to start again, in a process of their own.
  if (t.ended || t.results) break
}

// Once the last file has ended, the process should end as a file's own does. Something one of them
// left running (seen once in a full run: the group lingered until the root's timeout) would keep
// it, and its job, waiting: after a few seconds it is named, and the process ends.
setTimeout(() => {
  // The root has ended by now: a plain comment line, which the runner keeps with the last file.
  process.stdout.write(`# tap-group: still running ${LINGER_MS / 1_000} s after its last file: ${process.getActiveResourcesInfo().join(', ')}\n`, () => process.exit())
}, LINGER_MS).unref()
