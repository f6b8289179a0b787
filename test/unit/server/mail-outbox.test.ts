import net from 'node:net'
import pino from 'pino'
import t from 'tap'
import { migrate, readMigrations } from '../../../server/db/migrate.ts'
import type { Database } from '../../../server/db/database.ts'
import {
  MAIL_CLAIM_LEASE_MS,
  MAIL_GIVE_UP_AFTER_MS,
  MAIL_INLINE_WAIT_MS,
  MAIL_PURGE_AFTER_MS,
  MAIL_RETRY_BASE_MS,
  MAIL_RETRY_MAX_MS,
  MailOutbox,
  retryDelayMs,
} from '../../../server/bff/mail/mail-outbox.ts'
import { SmtpMailer, type OutgoingMail } from '../../../server/bff/mail/mailer.ts'
import { openTestDatabase, secondConnection, within } from '../../helpers.ts'
import { startSmtpServer } from '../../smtp-server.ts'

// The outbox's clock: retries come at their time and not a millisecond before, the
// last one at the end of the day, a mail is given up after it, finished rows are purged a day
// later, a sender's claim is retaken only once its lease ran out, and two senders on one
// database send each mail once. A real SMTP server on loopback, stopped and started.

const silent = pino({ level: 'silent' })
const MAIL: OutgoingMail = { to: 'rosalind@example.com', subject: 'Verify', text: 'the link', html: '<p>the link</p>' }

async function database(t: Parameters<typeof openTestDatabase>[0]): Promise<Database> {
  const db = await openTestDatabase(t)
  await migrate(db, 'bff', await readMigrations(new URL('../../../server/bff/migrations/', import.meta.url)))
  return db
}

const rowOf = async (db: Database) =>
  (await db.query<{ status: string; attempts: number; next_attempt_at: string; created_at: string; last_error: string | null }>('SELECT status, attempts, next_attempt_at, created_at, last_error FROM bff.mail_outbox')).rows[0]!

t.test('retry delays double from the base to the bound, jittered between half and all', async (t) => {
  t.equal(retryDelayMs(1, () => 0), MAIL_RETRY_BASE_MS / 2)
  t.equal(retryDelayMs(1, () => 1), MAIL_RETRY_BASE_MS)
  t.equal(retryDelayMs(2, () => 1), MAIL_RETRY_BASE_MS * 2)
  t.equal(retryDelayMs(5, () => 0.5), Math.round(MAIL_RETRY_BASE_MS * 16 * 0.75))
  t.equal(retryDelayMs(30, () => 1), MAIL_RETRY_MAX_MS, 'bounded')
  t.equal(retryDelayMs(30, () => 0), MAIL_RETRY_MAX_MS / 2)
  t.equal(retryDelayMs(1000, () => 1), MAIL_RETRY_MAX_MS, 'no overflow far past the bound')
})

t.test('backoff, give-up and purge follow the clock to the millisecond', async (t) => {
  const db = await database(t)
  const smtp = await startSmtpServer(t)
  await smtp.stop()
  const start = Date.parse('2026-11-27T09:00:00Z')
  let now = start
  const outbox = new MailOutbox({ db, mailer: new SmtpMailer(smtp.url, 'Softshelf <no-reply@softshelf.test>'), log: silent, now: () => now, random: () => 1 })
  t.teardown(() => outbox.stop())

  t.equal(await outbox.deliver(MAIL, { kind: 'verify', locale: 'en', userId: 'u1' }, 'queue'), 'queued')
  let row = await rowOf(db)
  t.equal(row.attempts, 1)
  t.equal(Number(row.next_attempt_at), start + MAIL_RETRY_BASE_MS, 'the first retry after the base (jitter 1)')
  t.match(row.last_error, /^ESOCKET: connect ECONNREFUSED/, "what the transport said, not the message")

  now = start + MAIL_RETRY_BASE_MS - 1
  await outbox.tick()
  t.equal((await rowOf(db)).attempts, 1, 'not tried a millisecond early')
  now = start + MAIL_RETRY_BASE_MS
  await outbox.tick()
  row = await rowOf(db)
  t.equal(row.attempts, 2, 'tried when due')
  t.equal(Number(row.next_attempt_at), now + 2 * MAIL_RETRY_BASE_MS, 'the next wait doubled')

  // Jump to just before the day ends: the retry is due, fails, and the next one is set to the day's end, not past it.
  now = start + MAIL_GIVE_UP_AFTER_MS - 1000
  await outbox.tick()
  row = await rowOf(db)
  t.equal(row.status, 'queued')
  t.equal(Number(row.next_attempt_at), start + MAIL_GIVE_UP_AFTER_MS, 'the last try at the end of the day')
  now = start + MAIL_GIVE_UP_AFTER_MS - 1
  await outbox.tick()
  t.equal((await rowOf(db)).status, 'queued')
  now = start + MAIL_GIVE_UP_AFTER_MS
  await outbox.tick()
  row = await rowOf(db)
  t.equal(row.status, 'failed', 'given up once a day has passed')
  t.equal(await outbox.verificationState('u1'), 'failed')

  const failedAt = now
  now = failedAt + MAIL_PURGE_AFTER_MS - 1
  await outbox.tick()
  t.equal((await db.query('SELECT 1 FROM bff.mail_outbox')).rowCount, 1, 'kept until a day after')
  now = failedAt + MAIL_PURGE_AFTER_MS
  await outbox.tick()
  t.equal((await db.query('SELECT 1 FROM bff.mail_outbox')).rowCount, 0, 'purged a day after')
  t.equal(await outbox.verificationState('u1'), 'sent', 'nothing on record: nothing waits')
})

t.test("a sender that died holding a mail: another takes it once the lease has run out, not before", async (t) => {
  const db = await database(t)
  const smtp = await startSmtpServer(t)
  let now = Date.parse('2026-11-27T09:00:00Z')
  const outbox = new MailOutbox({ db, mailer: new SmtpMailer(smtp.url, 'Softshelf <no-reply@softshelf.test>'), log: silent, now: () => now })
  t.teardown(() => outbox.stop())
  // What a sender leaves when its process is killed between claiming a mail and sending it.
  await db.query(
    `INSERT INTO bff.mail_outbox (id, kind, user_id, recipient, locale, subject, text_body, html_body, status, attempts, next_attempt_at, claimed_until, created_at)
     VALUES ('0b6c1f0e-5f7e-4c47-9d43-3c7b1f8d2a11', 'verify', 'u2', 'rosalind@example.com', 'en', 'Verify', 'the link', '<p>the link</p>', 'queued', 1, $1, $2, $1)`,
    [now, now + MAIL_CLAIM_LEASE_MS],
  )
  t.equal((await outbox.stats()).queued, 1)
  now += MAIL_CLAIM_LEASE_MS - 1
  await outbox.tick()
  t.equal(smtp.received.length, 0, 'held by the other sender')
  now += 1
  await outbox.tick()
  t.equal(smtp.received.length, 1, 'taken over once the lease ran out')
  t.match(smtp.received[0]!.raw, /Message-ID: <0b6c1f0e-5f7e-4c47-9d43-3c7b1f8d2a11@softshelf\.test>/i, 'with the id the first sender would have used')
})

t.test('two senders on one database send each mail once', async (t) => {
  const db = await database(t)
  const other = await secondConnection(t, db)
  const smtp = await startSmtpServer(t)
  await smtp.stop()
  let now = Date.parse('2026-11-27T09:00:00Z')
  const clock = () => now
  const mailer = () => new SmtpMailer(smtp.url, 'Softshelf <no-reply@softshelf.test>')
  const first = new MailOutbox({ db, mailer: mailer(), log: silent, now: clock })
  const second = new MailOutbox({ db: other, mailer: mailer(), log: silent, now: clock })
  t.teardown(() => Promise.all([first.stop(), second.stop()]))
  const count = 30
  for (let i = 0; i < count; i++) await first.deliver({ ...MAIL, to: `reader${i}@example.com` }, { kind: 'verify', locale: 'en', userId: `u${i}` }, 'queue')
  t.equal((await first.stats()).queued, count)
  await smtp.start()
  now += MAIL_GIVE_UP_AFTER_MS - 1
  // Rounds of both senders at once, until the queue is empty.
  for (let round = 0; round < 5 && (await first.stats()).queued > 0; round++) await Promise.all([first.tick(), second.tick()])
  t.equal((await first.stats()).queued, 0)
  const recipients = smtp.received.map((mail) => mail.to[0])
  t.equal(recipients.length, count, 'every mail sent')
  t.equal(new Set(recipients).size, count, 'none twice')
})

t.test("'later' answers once the row is written, without waiting for the server; a sent notice leaves the other queued ones", async (t) => {
  const db = await database(t)
  // A server that takes the connection and never answers: a try that would hold its caller.
  const sockets = new Set<net.Socket>()
  const silentServer = net.createServer((socket) => sockets.add(socket))
  await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    silentServer.close()
  })
  const port = (silentServer.address() as net.AddressInfo).port
  const outbox = new MailOutbox({ db, mailer: new SmtpMailer(`smtp://127.0.0.1:${port}`, 'Softshelf <no-reply@softshelf.test>'), log: silent })
  t.teardown(() => outbox.stop())
  const delivered = outbox.deliver({ ...MAIL, subject: 'Your password was changed' }, { kind: 'securityNotice', locale: 'en', userId: 'u1' }, 'later')
  // 'queue' would hold the caller for MAIL_INLINE_WAIT_MS on this server: 'later' answers well before.
  await within(delivered, MAIL_INLINE_WAIT_MS - 1_000)
  await new Promise<void>((resolve) => {
    const check = () => (sockets.size > 0 ? resolve() : setImmediate(check))
    check()
  })
  t.equal(await delivered, 'queued', 'while the server holds the try')
  t.same((await db.query<{ status: string }>('SELECT status FROM bff.mail_outbox')).rows, [{ status: 'queued' }], 'written before the answer')

  // Two notices to one account: sending the newer one does not discard the older (links only).
  const smtp = await startSmtpServer(t)
  const now = Date.now()
  const sender = new MailOutbox({ db: await database(t), mailer: new SmtpMailer(smtp.url, 'Softshelf <no-reply@softshelf.test>'), log: silent, now: () => now })
  t.teardown(() => sender.stop())
  await smtp.stop()
  t.equal(await sender.deliver({ ...MAIL, subject: 'An authenticator was added' }, { kind: 'securityNotice', locale: 'en', userId: 'u2' }, 'queue'), 'queued')
  await smtp.start()
  t.equal(await sender.deliver({ ...MAIL, subject: 'Your password was changed' }, { kind: 'securityNotice', locale: 'en', userId: 'u2' }, 'queue'), 'sent')
  t.equal(smtp.received.length, 1)
  const left = await sender.stats()
  t.equal(left.queued, 1, 'the older notice still waits for its retry')
})
