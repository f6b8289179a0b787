import t from 'tap'
import { openTestDatabase } from '../../helpers.ts'

// Both adapters prepare the statements they are sent repeatedly (server/db/pglite.ts,
// server/db/postgres.ts). What a service sees must not depend on it: the same rows and types
// the first time and every later time, the same errors, and tables that change shape.

const TYPED = `SELECT $1::int AS i, $2::bigint AS big, $3::text AS s, $4::jsonb AS j, $5::text[] AS arr, $6::boolean AS b, $7::text AS missing, now() IS NOT NULL AS has_now`
const PARAMS = [7, '9007199254740993', 'héllo', JSON.stringify({ a: [1, null] }), ['x', 'y'], true, null]

t.test('a statement answers the same the first time, later, and once the prepared ones are many', async (t) => {
  const db = await openTestDatabase(t)
  const first = await db.query(TYPED, PARAMS)
  const again = await db.query(TYPED, PARAMS)
  t.same(again.rows, first.rows)
  t.match(first.rows[0], { i: 7, s: 'héllo', j: { a: [1, null] }, arr: ['x', 'y'], b: true, missing: null, has_now: true })
  t.equal(String(first.rows[0]!.big), '9007199254740993', 'a bigint keeps every digit')
  // Past the adapters' limit of prepared texts, statements run unprepared: same answers.
  const sums: number[] = []
  for (let i = 0; i < 300; i++) sums.push((await db.query<{ n: number }>(`SELECT $1::int + ${i} AS n`, [1])).rows[0]!.n)
  t.same(sums, Array.from({ length: 300 }, (_, i) => 1 + i))
  t.same((await db.query(`${TYPED} -- past the limit`, PARAMS)).rows, first.rows)
  t.equal((await db.query<{ n: number }>('SELECT $1::int + 299 AS n', [2])).rows[0]!.n, 301, 'a prepared text still answers')
})

t.test('errors carry their code the first and every later time, and the next statement runs', async (t) => {
  const db = await openTestDatabase(t)
  await db.exec('CREATE TABLE uniq (k text PRIMARY KEY)')
  const insert = 'INSERT INTO uniq (k) VALUES ($1)'
  await db.query(insert, ['a'])
  await t.rejects(db.query(insert, ['a']), { code: '23505' })
  await t.rejects(db.query(insert, ['a']), { code: '23505' })
  await t.rejects(db.query('SELECT * FROM nowhere WHERE k = $1', ['a']), { code: '42P01' })
  await db.query(insert, ['b'])
  t.same((await db.query('SELECT k FROM uniq ORDER BY k')).rows, [{ k: 'a' }, { k: 'b' }])
})

t.test('a table that changes shape is read in its new shape', async (t) => {
  const db = await openTestDatabase(t)
  await db.exec("CREATE TABLE shape (a int); INSERT INTO shape VALUES (1)")
  const read = 'SELECT * FROM shape WHERE a = $1'
  t.same((await db.query(read, [1])).rows, [{ a: 1 }])
  t.same((await db.query(read, [1])).rows, [{ a: 1 }])
  await db.exec("ALTER TABLE shape ADD COLUMN b text NOT NULL DEFAULT 'x'")
  t.same((await db.query(read, [1])).rows, [{ a: 1, b: 'x' }], 'outside a transaction')
  t.same((await db.query(read, [1])).rows, [{ a: 1, b: 'x' }], 'and again')

  const inTx = 'SELECT * FROM shape WHERE a >= $1'
  t.same(await db.transaction(async (tx) => (await tx.query(inTx, [1])).rows), [{ a: 1, b: 'x' }])
  await db.exec('ALTER TABLE shape ADD COLUMN c int NOT NULL DEFAULT 3')
  // Inside a transaction the changed shape may fail the statement (it aborts the transaction);
  // the next transaction reads the new shape.
  await db.transaction(async (tx) => (await tx.query(inTx, [1])).rows).catch(() => undefined)
  t.same(await db.transaction(async (tx) => (await tx.query(inTx, [1])).rows), [{ a: 1, b: 'x', c: 3 }])
})

t.test('a rolled-back transaction leaves nothing of its prepared writes', async (t) => {
  const db = await openTestDatabase(t)
  await db.exec('CREATE TABLE kept (k text)')
  const insert = 'INSERT INTO kept (k) VALUES ($1)'
  await db.query(insert, ['before'])
  await t.rejects(
    db.transaction(async (tx) => {
      await tx.query(insert, ['inside'])
      throw new Error('changed my mind')
    }),
    /changed my mind/,
  )
  await db.transaction(async (tx) => {
    await tx.query(insert, ['committed'])
  })
  t.same((await db.query('SELECT k FROM kept ORDER BY k')).rows, [{ k: 'before' }, { k: 'committed' }])
})
