import pino from 'pino'
import t from 'tap'
import { AccountDeletions } from '../../../server/api/users/deletions.ts'
import { MailOutbox } from '../../../server/bff/mail/mail-outbox.ts'
import { MailboxMailer } from '../../../server/bff/mail/mailer.ts'
import type { Database } from '../../../server/db/database.ts'
import { migrate, readMigrations } from '../../../server/db/migrate.ts'
import { databaseProbe } from '../../../server/http/readiness.ts'
import { LogCapture, openTestDatabase, tempDir, waitUntil } from '../../helpers.ts'

// Background work logs what changed, not each run. A fault that is not an outage (those
// have their own log) and that every run meets again — a broken query, a core that keeps
// refusing one deletion — is one warn line when it begins and one info line when the work succeeds
// again, not a line per run: the mail outbox every 5 s, the deletion sweep every minute, a
// readiness probe every second. The outbox runs here on a 1 ms timer; the test counts its rounds.

/** A fault every run meets again and that is not the database out of reach (a missing column). */
const broken = () => Object.assign(new Error('column "claimed_until" does not exist'), { code: '42703' })

function capture() {
  const stream = new LogCapture()
  return { log: pino({ level: 'info' }, stream), lines: () => stream.lines.map((line) => (({ level, msg, failures }) => ({ level, msg, ...(failures ? { failures } : {}) }))(JSON.parse(line))) }
}

t.test('the mail outbox that cannot read its table says so once, and once when it can again', async (t) => {
  const db = await openTestDatabase(t)
  await migrate(db, 'bff', await readMigrations(new URL('../../../server/bff/migrations/', import.meta.url)))
  let failing = true
  let rounds = 0
  const faulty: Database = Object.assign(Object.create(db) as Database, {
    query: (async (...args: Parameters<Database['query']>) => {
      rounds += 1
      if (failing) throw broken()
      return db.query(...args)
    }) as Database['query'],
  })
  const { log, lines } = capture()
  const outbox = new MailOutbox({ db: faulty, mailer: new MailboxMailer(tempDir(t), 'Softshelf <no-reply@softshelf.test>'), log: log as never })
  t.teardown(() => outbox.stop())
  outbox.start(1)
  await waitUntil(() => rounds >= 10)
  t.same(lines(), [{ level: 40, msg: 'the mail outbox could not be read' }], 'ten failed rounds: one warning')
  failing = false
  const from = rounds
  await waitUntil(() => rounds >= from + 20)
  t.same(
    lines().map(({ level, msg }) => ({ level, msg })),
    [
      { level: 40, msg: 'the mail outbox could not be read' },
      { level: 30, msg: 'the mail outbox works again' },
    ],
    'then one line when a round succeeds, and nothing for the next ones',
  )
})

t.test('a deletion the core keeps refusing is one line while it lasts, and one when the sweep finishes them', async (t) => {
  let waiting = [{ user_id: 'user-1' }, { user_id: 'user-2' }]
  const db = { query: async () => ({ rows: waiting, rowCount: waiting.length }) } as unknown as Database
  const { log, lines } = capture()
  const deletions = new AccountDeletions(db, async () => {
    throw new Error('the auth core answered 500')
  }, log as never, async () => {})
  for (let sweep = 0; sweep < 5; sweep++) await deletions.resume()
  t.same(lines(), [{ level: 40, msg: 'an account deletion could not be finished yet; it is tried again every minute' }], 'five sweeps of two stuck deletions: one warning')
  waiting = []
  await deletions.resume()
  await deletions.resume()
  t.same(lines(), [
    { level: 40, msg: 'an account deletion could not be finished yet; it is tried again every minute' },
    { level: 30, msg: 'finishing account deletions works again', failures: 5 },
  ])
})

t.test('a readiness probe that keeps failing is one line, and one when it passes again', async (t) => {
  let failing = true
  const { log, lines } = capture()
  const probe = databaseProbe({ query: async () => { if (failing) throw broken(); return { rows: [], rowCount: 0 } } } as unknown as Database, log)
  for (let i = 0; i < 10; i++) t.equal(await probe(), 'unreachable')
  failing = false
  for (let i = 0; i < 3; i++) t.equal(await probe(), 'ok')
  t.same(lines(), [
    { level: 40, msg: 'readiness: database not usable' },
    { level: 30, msg: 'readiness: the database works again', failures: 10 },
  ])
})
