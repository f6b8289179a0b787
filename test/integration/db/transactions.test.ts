import t from 'tap'
import { DatabaseTimeoutError, TransactionMisuseError } from '../../../server/db/guard.ts'
import { openTestDatabase, within } from '../../helpers.ts'

// The transaction rule (decision 009), on PGlite and on PostgreSQL: inside a
// transaction only its own handle may be used — a query through the database handle is refused
// at once instead of waiting (on PGlite, forever) — and nothing waits on the database past its
// bound. Each case ends by showing that the database still serves.


t.test('a query through the database handle inside its own transaction is refused, not queued', async (t) => {
  const db = await openTestDatabase(t)
  await db.exec('CREATE TABLE kept (n int)')
  const outcome = await within(
    db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO kept (n) VALUES (1)')
        await db.query('SELECT count(*) FROM kept')
      })
      .then(() => 'committed', (error: unknown) => error),
  )
  t.type(outcome, TransactionMisuseError, 'the misuse is named')
  t.match((outcome as Error).message, /outside the transaction/)
  t.same((await db.query('SELECT count(*)::int AS n FROM kept')).rows, [{ n: 0 }], 'the transaction rolled back and the database serves')

  const nested = await within(db.transaction(() => db.transaction(async () => 1)).catch((error: unknown) => error))
  t.type(nested, TransactionMisuseError, 'a nested transaction on the same database is refused too')
  const exec = await within(db.transaction(() => db.exec('SELECT 1')).catch((error: unknown) => error))
  t.type(exec, TransactionMisuseError, 'and so is exec')
})

t.test('work a transaction started may use the database once the transaction is over', async (t) => {
  const db = await openTestDatabase(t)
  let later: Promise<unknown> = Promise.resolve()
  await db.transaction(async (tx) => {
    await tx.query('SELECT 1')
    // Started inside, runs after the commit: not a misuse.
    later = new Promise((resolve) => setImmediate(resolve)).then(() => db.query('SELECT 2 AS n'))
  })
  t.same(((await within(later)) as { rows: unknown[] }).rows, [{ n: 2 }])
  t.same((await Promise.all([db.query('SELECT 3 AS n'), db.transaction((tx) => tx.query('SELECT 4 AS n'))])).map((r) => r.rows), [[{ n: 3 }], [{ n: 4 }]], 'unrelated callers still take turns')
})

t.test('a transaction stuck past its bound fails with a timeout, rolls back and frees the database', async (t) => {
  const db = await openTestDatabase(t, { timeoutMs: 300 })
  await db.exec('CREATE TABLE stuck (n int)')
  let release = () => {}
  const forever = new Promise<void>((resolve) => (release = resolve))
  let afterRelease: Promise<unknown> = Promise.resolve()
  const waiting = db.query('SELECT 1 AS n').then(
    () => 'answered',
    (error: unknown) => error,
  )
  const outcome = await within(
    db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO stuck (n) VALUES (1)')
        await forever
        afterRelease = tx.query('INSERT INTO stuck (n) VALUES (2)')
        await afterRelease
      })
      .catch((error: unknown) => error),
  )
  t.type(outcome, DatabaseTimeoutError)
  t.equal((outcome as DatabaseTimeoutError).statusCode, 503, 'answered as 503 by the services')
  const queued = await within(waiting)
  // PGlite: the query queued behind the stuck transaction may time out itself; PostgreSQL answers it.
  t.ok(queued === 'answered' || queued instanceof DatabaseTimeoutError, 'the queued query ended one way or the other')
  release()
  await t.rejects(within(new Promise((resolve) => setImmediate(resolve)).then(() => afterRelease)), 'the body that outlived its transaction cannot write')
  t.same((await within(db.query('SELECT count(*)::int AS n FROM stuck'))).rows, [{ n: 0 }], 'nothing of the stuck transaction was kept')
  t.same((await within(db.transaction((tx) => tx.query('SELECT 5 AS n')))).rows, [{ n: 5 }], 'the database serves again')
})
