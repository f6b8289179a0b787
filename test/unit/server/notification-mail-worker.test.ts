import t from 'tap'
import pino from 'pino'
import { LogCapture, root } from '../../helpers.ts'
import { EmailTexts } from '../../../server/bff/mail/emails.ts'
import type { MailOutbox } from '../../../server/bff/mail/mail-outbox.ts'
import { NotificationMailWorker, unsubscribeUrl } from '../../../server/bff/mail/notification-mail.ts'
import type { UpstreamApi } from '../../../server/bff/upstream-api.ts'
import { UnsubscribeTokens } from '../../../server/api/notifications/mail.ts'
import { UNSUBSCRIBE_TOKEN_MAX_AGE_MS, type Notification } from '../../../shared/catalogue/living.ts'

// Decision 030: the parts of notification mail that need no database.

t.test('without the core key and the operator token the worker says once that notification mail is off, and asks nothing', async (t) => {
  const logs = new LogCapture()
  let asked = 0
  const upstreamApi = { request: async () => (asked++, { status: 200, headers: {}, body: Buffer.from('{"claims":[]}') }) } as unknown as UpstreamApi
  const worker = new NotificationMailWorker({ upstreamApi, outbox: {} as MailOutbox, emails: new EmailTexts(root, 'Softshelf'), appUrl: 'http://localhost:3000', secret: undefined, log: pino(logs) })
  worker.start(1)
  worker.start(1)
  await new Promise((resolve) => setTimeout(resolve, 20))
  await worker.stop()
  const lines = logs.lines.map((line) => JSON.parse(line) as { level: number; msg: string; event?: string })
  t.equal(lines.length, 1, 'one line')
  t.equal(lines[0]!.level, 40, 'a warning')
  t.equal(lines[0]!.event, 'notification-mail')
  t.match(lines[0]!.msg, /Notification mail is off/)
  t.equal(asked, 0, 'the API is never asked')
})

t.test('the unsubscribe token: its account back, forged or old ones refused', async (t) => {
  let now = Date.parse('2026-12-01T00:00:00Z')
  const tokens = new UnsubscribeTokens(Buffer.alloc(32, 7), () => now)
  const token = tokens.issue('user-1', 'pl')
  t.same(tokens.check(token), { userId: 'user-1', language: 'pl' })
  t.equal(new UnsubscribeTokens(Buffer.alloc(32, 8), () => now).check(token), 'invalid', 'another key: invalid')
  const [payload, signature] = token.split('.') as [string, string]
  const other = Buffer.from(JSON.stringify({ u: 'user-2', i: Math.floor(now / 1000), l: 'pl' })).toString('base64url')
  t.equal(tokens.check(`${other}.${signature}`), 'invalid', "another account's id under this signature: invalid")
  t.equal(tokens.check(`${payload}.${signature.slice(1)}A`), 'invalid')
  t.equal(tokens.check(''), 'invalid')
  t.equal(tokens.check(`${payload}.${signature}.x`), 'invalid')
  now += UNSUBSCRIBE_TOKEN_MAX_AGE_MS
  t.same(tokens.check(token), { userId: 'user-1', language: 'pl' }, 'exactly 60 days: still valid')
  now += 1_000
  t.equal(tokens.check(token), 'expired', 'past 60 days: expired')
})

t.test('the mail: one event in the subject, several as a digest, "more" counted, links on APP_URL, escaped', async (t) => {
  const emails = new EmailTexts(root, 'Softshelf')
  const release = (programId: string, programName: string, version: string): Notification => ({
    id: '1',
    type: 'release',
    programId,
    at: '2026-12-01T00:00:00.000Z',
    read: false,
    data: { version, date: '2026-12-01', source: 'editor', programName },
  })
  const link = unsubscribeUrl('https://softshelf.example', 'abc.def')
  const one = emails.renderNotifications('en', 'a@example.com', [release('blender', 'Blender', '4.5')], 0, { appUrl: 'https://softshelf.example', unsubscribeUrl: link })
  t.equal(one.subject, 'New version of Blender: 4.5')
  t.match(one.html, 'href="https://softshelf.example/programs/blender"')
  t.match(one.text, 'https://softshelf.example/mail/unsubscribe?token=abc.def')
  const digest = emails.renderNotifications('cs', 'a@example.com', [release('blender', 'Blender', '4.5'), release('x', '<b>X</b>', '1')], 3, { appUrl: 'https://softshelf.example', unsubscribeUrl: link })
  t.equal(digest.subject, 'Novinky programů, které sledujete na Softshelf')
  t.match(digest.text, 'Další upozornění: 3.')
  t.match(digest.html, '&lt;b&gt;X&lt;/b&gt;', 'names escaped in the HTML')
  t.notMatch(digest.html, '<b>X</b>')
  const price: Notification = { id: '2', type: 'price', programId: 'p', at: '2026-12-01T00:00:00.000Z', read: false, data: { before: null, after: { amount: 9.99, currency: 'EUR', period: 'month' }, programName: 'P' } }
  // Intl writes a no-break space between the amount and the sign.
  t.match(emails.renderNotifications('de', 'a@example.com', [price], 0, { appUrl: 'https://s', unsubscribeUrl: link }).subject, /^P: der Preis ist jetzt 9,99\s€ im Monat$/)
})
