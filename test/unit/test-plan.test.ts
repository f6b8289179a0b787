import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
// @ts-expect-error a plain .mjs module of the test runner, without types
import { databaseFree, databaseNeutral, inPlan, notDatabaseNeutral } from '../../scripts/test-plan.mjs'

// CI's PostgreSQL run leaves out the BFF files that only check HTTP behaviour
// (scripts/test-plan.mjs). A file stays on that list only while it has nothing that could answer
// differently on PostgreSQL: this test reads each listed file for SQL of its own, a second
// connection, a lock or concurrent requests, and fails naming the file and the line.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const neutral = databaseNeutral as string[]
const rules = notDatabaseNeutral as { pattern: RegExp; why: string }[]

t.test('every database-neutral file exists, is a BFF integration file, and is listed once', async (t) => {
  t.ok(neutral.length > 0)
  t.equal(new Set(neutral).size, neutral.length, 'no file twice')
  for (const file of neutral) {
    t.ok(fs.existsSync(path.join(root, file)), `${file} exists`)
    t.match(file, /^test\/integration\/bff\/[\w-]+\.test\.ts$/, `${file} is a BFF file (api, authcore, db, backup and scripts run on both)`)
  }
  t.same(
    (databaseFree as string[]).filter((glob) => neutral.includes(glob)),
    [],
    'no file is on both lists',
  )
})

t.test('no database-neutral file has SQL of its own, a second connection, a lock or concurrent requests', async (t) => {
  for (const file of neutral) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n')
    const found = lines.flatMap((line, index) => rules.filter(({ pattern }) => pattern.test(line)).map(({ why }) => `${file}:${index + 1}: ${why}: ${line.trim()}`))
    t.same(found, [], `${file} answers the same on PGlite and PostgreSQL`)
  }
})

t.test('the rule sees what it is for', async (t) => {
  const seen = (line: string) => rules.filter(({ pattern }) => pattern.test(line)).map(({ why }) => why)
  t.same(seen("await stack.db.query('UPDATE api.users SET disabled_at = now()')"), ['SQL of its own'])
  t.same(seen('await db.transaction((tx) => recordRelease(tx, release))'), ['SQL of its own'])
  t.same(seen("await tx.exec('LOCK TABLE authcore.sessions IN ACCESS EXCLUSIVE MODE')"), ['SQL of its own', 'a lock'])
  t.same(seen('const other = await secondConnection(t, db)'), ['a second connection or a probed database'])
  t.same(seen("const answers = await Promise.all(Array.from({ length: 9 }, () => tab.post('/auth/signin', form)))"), ['concurrent requests'])
  t.same(seen('await Promise.all([bff.errorReporter!.flush(), api.errorReporter!.flush()])'), [], 'flushing reporters is not a request')
  t.same(seen("const version = /\"logosVersion\":\"([0-9a-f]+)\"/.exec(page.body)?.[1]"), [], 'a regular expression is not SQL')
})

t.test('a plan names files and folders; every entry is one that exists', async (t) => {
  const free = databaseFree as string[]
  for (const glob of [...free, ...neutral]) {
    t.ok(glob.endsWith('/**') ? fs.statSync(path.join(root, glob.slice(0, -3))).isDirectory() : fs.statSync(path.join(root, glob)).isFile(), `${glob} exists`)
  }
  t.ok(inPlan('test/unit/server/config.test.ts', ['test/unit/**']), 'a folder holds what is below it')
  t.notOk(inPlan('test/unitary.test.ts', ['test/unit/**']), 'not a folder of the same prefix')
  t.ok(inPlan('test/integration/process.test.ts', free))
  t.notOk(inPlan('test/integration/bff/auth.test.ts', [...free, ...neutral]), 'a file not listed runs on both')
})
