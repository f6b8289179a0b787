import t from 'tap'
import { applySeed } from '../../../server/api/catalogue/seed.ts'
import { NotificationFanout } from '../../../server/api/notifications/fanout.ts'
import { recordCatalogueEvent } from '../../../server/api/catalogue/release-history.ts'
import { recordRelease } from '../../../server/api/catalogue/releases.ts'
import { migrateApiSchema } from '../../../server/api/schema.ts'
import type { Database } from '../../../server/db/database.ts'
import { LogCapture, openTestDatabase, secondConnection, waitUntil } from '../../helpers.ts'
import pino from 'pino'

// The fan-out of catalogue events to the watchers' notifications, below the HTTP
// routes: bounded batches with a cursor, a restart halfway, two workers at once, only the
// watchers of the event's type, and notify 'off' accounts' rows mailed already.

const db = await openTestDatabase(t)
await migrateApiSchema(db)
await applySeed(db)
const logs = new LogCapture()
const log = pino({ level: 'info' }, logs)
const context = { actor: { id: 'u-editor', email: 'editor@example.com' }, requestId: 'req-fanout' }

/** `count` accounts `<prefix>-00001`… watching `programId` for `events`; every `offEvery`-th with notify 'off'. */
async function watchers(prefix: string, count: number, programId: string, events: string[], offEvery = 0): Promise<void> {
  await db.query(
    `INSERT INTO api.users (id, email, notify)
     SELECT $1 || '-' || lpad(i::text, 5, '0'), $1 || '-' || i || '@example.com', CASE WHEN $2 > 0 AND i % $2 = 0 THEN 'off' ELSE 'daily' END
     FROM generate_series(1, $3::int) AS i`,
    [prefix, offEvery, count],
  )
  await db.query(`INSERT INTO api.watches (user_id, program_id, events) SELECT id, $2, $3::text[] FROM api.users WHERE id LIKE $1 || '-%'`, [prefix, programId, events])
}

async function release(programId: string, version: string): Promise<string> {
  const outcome = await db.transaction((tx) => recordRelease(tx, { programId, version, date: '2026-12-01', source: 'editor' }, context))
  if (outcome.outcome !== 'recorded' || !outcome.current) throw new Error(`no release: ${JSON.stringify(outcome)}`)
  return pendingEvent(programId)
}

async function pendingEvent(programId: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id::text AS id FROM api.catalogue_events WHERE program_id = $1 AND done_at IS NULL ORDER BY id DESC LIMIT 1', [programId])
  return rows[0]!.id
}

async function notificationsOf(event: string, dbx: Database = db) {
  const { rows } = await dbx.query<{ user_id: string; n: string }>('SELECT user_id, count(*)::text AS n FROM api.notifications WHERE dedupe = $1 GROUP BY user_id ORDER BY user_id', [`event:${event}`])
  return rows
}

async function eventState(event: string) {
  const { rows } = await db.query<{ fanned_out_to: string | null; done: boolean }>('SELECT fanned_out_to, done_at IS NOT NULL AS done FROM api.catalogue_events WHERE id = $1::bigint', [event])
  return rows[0]!
}

t.test('a release becomes one notification per watcher of releases, in bounded batches with a cursor; others are not told', async (t) => {
  await watchers('batch', 25, 'blender', ['release', 'price'], 5)
  await watchers('pricey', 4, 'blender', ['price', 'licence'])
  await watchers('elsewhere', 3, 'gimp', ['release'])
  const event = await release('blender', '9.1')
  const fanout = new NotificationFanout(db, log, { batchSize: 10 })

  t.same(await fanout.runBatch(), { event, notified: 10, done: false }, 'the first ten')
  t.same(await eventState(event), { fanned_out_to: 'batch-00010', done: false }, 'the cursor is the last watcher served')
  t.equal((await notificationsOf(event)).length, 10)
  t.same(await fanout.runBatch(), { event, notified: 10, done: false })
  t.same(await fanout.runBatch(), { event, notified: 5, done: true }, 'a short batch finishes the event')
  t.same(await eventState(event), { fanned_out_to: 'batch-00025', done: true })
  t.equal(await fanout.runBatch(), null, 'nothing left')

  const told = await notificationsOf(event)
  t.same(told.map((row) => row.user_id), Array.from({ length: 25 }, (_, i) => `batch-${String(i + 1).padStart(5, '0')}`), 'every watcher of releases, no one watching only price and licence, no watcher of another program')
  t.ok(told.every((row) => row.n === '1'), 'once each')

  const { rows } = await db.query<{ user_id: string; type: string; program_id: string; data: Record<string, unknown>; mailed: boolean; read_at: null; same_at: boolean }>(
    `SELECT n.user_id, n.type, n.program_id, n.data, n.mailed_at IS NOT NULL AS mailed, n.read_at, n.at = e.at AS same_at
     FROM api.notifications n JOIN api.catalogue_events e ON n.dedupe = 'event:' || e.id WHERE e.id = $1::bigint ORDER BY n.user_id`,
    [event],
  )
  t.match(rows[0], { type: 'release', program_id: 'blender', read_at: null, same_at: true, mailed: false, data: { version: '9.1', date: '2026-12-01', source: 'editor', programName: 'Blender' } })
  t.same(rows.filter((row) => row.mailed).map((row) => row.user_id), ['batch-00005', 'batch-00010', 'batch-00015', 'batch-00020', 'batch-00025'], "notify 'off': mailed_at set at insert, so the mail never looks at them; the others NULL")
})

t.test('a price event reaches the watchers of price, with the program\'s name added', async (t) => {
  await db.transaction((tx) => recordCatalogueEvent(tx, 'blender', 'price', { before: null, after: { amount: 10, currency: 'EUR', period: 'one-time' } }))
  const event = await pendingEvent('blender')
  const fanout = new NotificationFanout(db, log, { batchSize: 1000 })
  t.equal(await fanout.drain(), 1, 'one batch')
  const told = await notificationsOf(event)
  t.equal(told.length, 29, 'the 25 watching release and price, the 4 watching price and licence')
  const { rows } = await db.query<{ data: Record<string, unknown> }>("SELECT data FROM api.notifications WHERE dedupe = $1 AND user_id = 'pricey-00001'", [`event:${event}`])
  t.same(rows[0]!.data, { before: null, after: { amount: 10, currency: 'EUR', period: 'one-time' }, programName: 'Blender' })
})

t.test('a restart halfway resumes after the cursor: every watcher exactly one notification', async (t) => {
  await watchers('restart', 57, 'krita', ['release'])
  const event = await release('krita', '9.0')
  const before = new NotificationFanout(db, log, { batchSize: 20 })
  t.same(await before.runBatch(), { event, notified: 20, done: false })
  await before.stop()
  // "Crashed": a new instance, with nothing of the old one but the database.
  const after = new NotificationFanout(db, log, { batchSize: 20 })
  t.equal(await after.drain(), 2, 'the rest in two batches')
  const told = await notificationsOf(event)
  t.equal(told.length, 57)
  t.ok(told.every((row) => row.n === '1'))

  // A batch whose commit was lost (the cursor not moved) is run again: it adds nothing twice.
  await db.query("UPDATE api.catalogue_events SET fanned_out_to = 'restart-00010', done_at = NULL WHERE id = $1::bigint", [event])
  t.equal(await new NotificationFanout(db, log, { batchSize: 20 }).drain(), 3)
  const again = await notificationsOf(event)
  t.equal(again.length, 57)
  t.ok(again.every((row) => row.n === '1'), 'still exactly one each')
})

t.test('two workers at once: each event worked by one at a time, every watcher told once', async (t) => {
  await watchers('twice', 300, 'meshlab', ['release', 'licence'])
  const first = await release('meshlab', '9.0')
  await db.transaction((tx) => recordCatalogueEvent(tx, 'meshlab', 'licence', { before: 'freeware', after: 'open-source' }))
  const second = await pendingEvent('meshlab')
  const other = await secondConnection(t, db)
  const a = new NotificationFanout(db, log, { batchSize: 25 })
  const b = new NotificationFanout(other, log, { batchSize: 25 })
  await Promise.all([a.drain(), b.drain()])
  for (const event of [first, second]) {
    const told = await notificationsOf(event)
    t.equal(told.length, 300, `event ${event}: every watcher`)
    t.ok(told.every((row) => row.n === '1'), `event ${event}: once each`)
    t.same(await eventState(event), { fanned_out_to: 'twice-00300', done: true })
  }
})

t.test('an event another worker holds is skipped, not waited for', { skip: db.kind === 'pglite' ? 'PGlite is one connection: no second worker can hold a lock' : false }, async (t) => {
  await watchers('held', 5, 'audacity', ['release'])
  const event = await release('audacity', '9.0')
  const other = await secondConnection(t, db)
  let release_!: () => void
  const holding = new Promise<void>((resolve) => (release_ = resolve))
  let locked!: () => void
  const isLocked = new Promise<void>((resolve) => (locked = resolve))
  const holder = other.transaction(async (tx) => {
    await tx.query('SELECT id FROM api.catalogue_events WHERE id = $1::bigint FOR UPDATE', [event])
    locked()
    await holding
  })
  await isLocked
  const fanout = new NotificationFanout(db, log)
  t.equal(await fanout.runBatch(), null, 'the held event is not taken')
  t.same(await notificationsOf(event), [])
  release_()
  await holder
  t.same(await fanout.runBatch(), { event, notified: 5, done: true }, 'taken once free')
})

t.test('a failing run is logged once, and its recovery once', async (t) => {
  let attempts = 0
  let broken = true
  const flaky: Database = {
    kind: db.kind,
    query: (text, params) => db.query(text, params),
    exec: (text) => db.exec(text),
    close: () => db.close(),
    transaction: (fn, options) => {
      attempts++
      return broken ? Promise.reject(new Error('disk full (test)')) : db.transaction(fn, options)
    },
  }
  const lines = new LogCapture()
  const fanout = new NotificationFanout(flaky, pino({ level: 'info' }, lines), { intervalMs: 5 })
  t.teardown(() => fanout.stop())
  fanout.start()
  await waitUntil(() => attempts >= 5)
  t.equal(lines.lines.length, 1, 'five failed runs, one line')
  t.match(JSON.parse(lines.lines[0]!), { level: 40, msg: /notification fan-out failed/, err: { message: 'disk full (test)' } })
  broken = false
  await waitUntil(() => lines.lines.length === 2)
  t.match(JSON.parse(lines.lines[1]!), { level: 30, msg: 'the notification fan-out works again' })
  const more = attempts
  await waitUntil(() => attempts >= more + 3)
  await fanout.stop()
  t.equal(lines.lines.length, 2, 'runs that work say nothing')
})
