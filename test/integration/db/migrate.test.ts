import t from 'tap'
import { migrate, type Migration } from '../../../server/db/migrate.ts'
import { openPostgres } from '../../../server/db/postgres.ts'
import { openTestDatabase } from '../../helpers.ts'

const migrations: Migration[] = [
  { version: 1, name: 'things', sql: 'CREATE TABLE things (id serial PRIMARY KEY, name text NOT NULL);' },
  { version: 2, name: 'seed', sql: "INSERT INTO things (name) VALUES ('first');" },
]

t.test('migrations apply once, in order, in their own schema, and are recorded', async (t) => {
  const db = await openTestDatabase(t)
  t.same(await migrate(db, 'demo', migrations), ['1_things', '2_seed'])
  t.same(await migrate(db, 'demo', migrations), [], 'a second start applies nothing')
  const { rows } = await db.query<{ name: string }>('SELECT name FROM demo.things')
  t.same(rows, [{ name: 'first' }])
  const recorded = await db.query<{ version: number }>('SELECT version FROM demo.schema_migrations ORDER BY version')
  t.same(recorded.rows.map((r) => r.version), [1, 2])
})

t.test('a failing migration applies nothing of the batch', async (t) => {
  const db = await openTestDatabase(t)
  const broken = [...migrations, { version: 3, name: 'broken', sql: 'ALTER TABLE nowhere ADD COLUMN x int;' }]
  await t.rejects(migrate(db, 'demo', broken))
  const exists = await db.query("SELECT 1 FROM information_schema.tables WHERE table_schema = 'demo' AND table_name = 'things'")
  t.equal(exists.rows.length, 0)
})

t.test('a migration edited after it was applied stops the start', async (t) => {
  const db = await openTestDatabase(t)
  await migrate(db, 'demo', migrations)
  const edited = [migrations[0]!, { ...migrations[1]!, sql: "INSERT INTO things (name) VALUES ('changed');" }]
  await t.rejects(migrate(db, 'demo', edited), /was changed after it was applied/)
})

t.test('two instances starting together against one PostgreSQL apply each migration once', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (CI runs it)' }, async (t) => {
  const db = await openTestDatabase(t)
  // A second, independent pool to the same database stands for a second instance.
  const { rows } = await db.query<{ db: string }>('SELECT current_database() AS db')
  const url = new URL(process.env.TEST_DATABASE_URL!)
  url.pathname = `/${rows[0]!.db}`
  const other = await openPostgres({ connectionString: url.href, max: 2 })
  t.teardown(() => other.close())
  const slow: Migration[] = [{ version: 1, name: 'slow', sql: 'SELECT pg_sleep(0.3); CREATE TABLE once (id int);' }]
  const results = await Promise.all([migrate(db, 'race', slow), migrate(other, 'race', slow)])
  t.same(results.flat(), ['1_slow'], 'exactly one instance applied it')
})

t.test('rowCount is the rows a statement returned or changed, on PGlite as on PostgreSQL', async (t) => {
  const db = await openTestDatabase(t)
  await db.exec('CREATE TABLE counted (n integer)')
  t.equal((await db.query('INSERT INTO counted SELECT generate_series(1, 3)')).rowCount, 3, 'insert')
  t.equal((await db.query('SELECT * FROM counted WHERE n > 1')).rowCount, 2, 'select')
  t.equal((await db.query('SELECT * FROM counted WHERE n > 9')).rowCount, 0, 'empty select')
  t.equal((await db.query('UPDATE counted SET n = n + 1 WHERE n < 3')).rowCount, 2, 'update')
  t.equal((await db.query('DELETE FROM counted RETURNING n')).rowCount, 3, 'delete returning')
})
