// The "queued mail" step of the notifications fan-out row (bench/bench-fanout.ts):
// after the fan-out, every account due a mail (the row's 'immediate' accounts and its 'daily' ones,
// never mailed before) gets its mail written to the BFF's outbox by the notification mail worker
// (server/bff/mail/notification-mail.ts), which claims from the API's internal routes
// (server/api/notifications/mail-routes.ts, over Fastify's inject: the routes, their validation
// and JSON both ways, without a socket) and acknowledges; the step ends when every mail is in the
// outbox and every notification is marked mailed. The addresses are taken as already seen verified
// (the steady state: the auth core is asked about an address once, decision 030); the bench has no
// core, so one asked about would fail the step. Sending is the outbox's own worker, not measured.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import pino from 'pino'
import type { Database } from '../server/db/database.ts'
import { migrate, readMigrations } from '../server/db/migrate.ts'
import { NotificationMail, UnsubscribeTokens, unsubscribeKey } from '../server/api/notifications/mail.ts'
import notificationMailRoutes from '../server/api/notifications/mail-routes.ts'
import { MailOutbox } from '../server/bff/mail/mail-outbox.ts'
import { EmailTexts } from '../server/bff/mail/emails.ts'
import { NotificationMailWorker } from '../server/bff/mail/notification-mail.ts'
import type { UpstreamApi } from '../server/bff/upstream-api.ts'
import type { FanoutStep } from './fanout-step.ts'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const KEY = 'bench-notification-mail-key-0123456789'

export const queuedMailStep: FanoutStep = {
  name: 'queued mail',
  async prepare(db: Database) {
    // The BFF's schema (the outbox), and every address already seen verified.
    await migrate(db, 'bff', await readMigrations(new URL('../server/bff/migrations/', import.meta.url)))
    await db.query(`INSERT INTO api.notification_mail_accounts (user_id, verified_email) SELECT id, email FROM api.users ON CONFLICT (user_id) DO NOTHING`)
    await unsubscribeKey(db)
  },
  async run(db: Database, { watchers }) {
    const log = pino({ level: 'warn' })
    const { rows: due } = await db.query<{ n: string }>(`SELECT count(DISTINCT user_id)::text AS n FROM api.notifications WHERE mailed_at IS NULL`)
    const expected = Number(due[0]!.n)

    const api = Fastify({ logger: false })
    const mail = new NotificationMail(
      {
        db,
        coreUser: async () => {
          throw new Error('the bench has no auth core: every address is known verified')
        },
        log,
        now: Date.now,
      },
      new UnsubscribeTokens(await unsubscribeKey(db), Date.now),
    )
    await api.register(notificationMailRoutes, { mail, secrets: [KEY] })
    await api.ready()
    const upstreamApi = {
      async request(req: { method: string; path: string; headers?: Record<string, string>; body?: unknown }) {
        const answer = await api.inject({ method: req.method as 'POST', url: req.path, headers: req.headers ?? {}, payload: req.body as string })
        return { status: answer.statusCode, headers: answer.headers, body: answer.rawPayload }
      },
    } as unknown as UpstreamApi
    const outbox = new MailOutbox({
      db,
      mailer: {
        send: async () => {
          throw new Error('not sent in the bench')
        },
        check: async () => undefined,
        close: async () => undefined,
      },
      log,
    })
    const worker = new NotificationMailWorker({ upstreamApi, outbox, emails: new EmailTexts(root, 'Softshelf'), appUrl: 'http://localhost:3000', secret: KEY, log })
    let queued = 0
    for (let round = 0; round < 100; round++) {
      const more = await worker.tick()
      queued += more
      if (more === 0) break
    }
    await api.close()
    const { rows } = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM bff.mail_outbox WHERE kind = 'notification' AND status = 'queued'`)
    const left = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM api.notifications WHERE mailed_at IS NULL`)
    if (queued !== expected || Number(rows[0]!.n) !== expected || Number(left.rows[0]!.n) !== 0) {
      throw new Error(`${queued} mails queued, ${rows[0]!.n} in the outbox, for ${expected} accounts due one of ${watchers}; ${left.rows[0]!.n} notifications left unmailed`)
    }
  },
}
