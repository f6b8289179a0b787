// What `import t from 'tap'` is in a test file's bundle (scripts/test-bundle.mjs points the
// bundles' "tap" here): tap's root test when the file has a process of its own, and the file's own
// subtest when scripts/tap-group.mjs runs it with others in one process — so its top-level tests,
// teardowns, plan and comments are the file's, as they would be alone. A file's top-level
// `t.setTimeout` asks the group for the time, as it would ask the runner.
import tap from 'tap'

export * from 'tap'

/** Set by scripts/tap-group.mjs while a file runs: its subtest, and how it asks for more time. */
export const CURRENT_FILE = Symbol.for('softshelf.tap-group.file')

function current() {
  return globalThis[CURRENT_FILE]
}

export default new Proxy(Object.create(null), {
  get(_, property) {
    const file = current()
    if (file && property === 'setTimeout') return file.setTimeout
    const t = file?.t ?? tap
    const value = Reflect.get(t, property)
    return typeof value === 'function' ? value.bind(t) : value
  },
  set: (_, property, value) => Reflect.set(current()?.t ?? tap, property, value),
  has: (_, property) => Reflect.has(current()?.t ?? tap, property),
})
