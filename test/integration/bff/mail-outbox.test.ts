import t from 'tap'
import { browser, buildStack, LogCapture, waitUntil } from '../../helpers.ts'
import { decodeQuotedPrintable, startSmtpServer, type ReceivedMail } from '../../smtp-server.ts'
import { MAIL_GIVE_UP_AFTER_MS, MAIL_PURGE_AFTER_MS, MAIL_RETRY_BASE_MS, retryDelayMs } from '../../../server/bff/mail/mail-outbox.ts'

// Mail that cannot go out: with the mail server down, a sign-up answered OK and its
// verification mail was never sent, not even once the server was back. Now it waits in the
// outbox, /check-email's status call says so, the worker sends it when the server answers (driven
// here by the test's clock and an explicit round, no sleeps), and /metrics shows the queue.

const PASSWORD = 'a long enough password'
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

function linkIn(mail: ReceivedMail): URL {
  const match = /http:\/\/localhost:3000\/verify-email\?token=[A-Za-z0-9_-]+&tenantId=public/.exec(decodeQuotedPrintable(mail.raw))
  if (!match) throw new Error('no verification link in the mail')
  return new URL(match[0])
}

const messageIdOf = (mail: ReceivedMail) => /^Message-ID: (<[^>]+>)/im.exec(mail.raw)?.[1]

/** One Prometheus sample's value (summed over label sets), or undefined when absent. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const lines = text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
  const matching = lines.filter((line) => line.includes(labels))
  if (matching.length === 0) return undefined
  return matching.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)
}

t.test('a sign-up while the mail server is down: OK, queued, and sent when it is back', async (t) => {
  const smtp = await startSmtpServer(t)
  await smtp.stop()
  let now = Date.parse('2026-11-27T09:00:00Z')
  const logs = new LogCapture()
  const stack = await buildStack(t, { auth: true, now: () => now, bffLogStream: logs, env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info' } })
  const metrics = async () => (await stack.bff.inject({ method: 'GET', url: '/metrics', headers: bearer(stack.operatorToken) })).body

  const tab = browser(stack.bff)
  const signUp = await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'hedy@example.com' }, { id: 'password', value: PASSWORD }] })
  t.equal(signUp.statusCode, 200)
  t.equal(signUp.json().status, 'OK', 'the account is made')
  const status = await tab.get('/api/user/verification-mail')
  t.equal(status.statusCode, 200)
  t.same(status.json(), { mail: 'queued' }, "/check-email's status says the mail could not be sent yet")
  t.equal(status.headers['cache-control'], 'no-store')
  // The sign-up's own try may outlive its inline wait on a busy machine: its failure (the outage's
  // one line) and the row's release are awaited, so the worker's try below is a second one.
  const outageLines = () => logs.lines.filter((line) => line.includes('"outage":"mail server"'))
  await waitUntil(async () => outageLines().length > 0 && (await stack.db.query("SELECT 1 FROM bff.mail_outbox WHERE status = 'queued' AND claimed_until IS NULL")).rows.length === 1)

  now += 90_000
  let scraped = await metrics()
  t.equal(sample(scraped, 'softshelf_mail_outbox_queued'), 1, 'the queue in /metrics')
  t.equal(sample(scraped, 'softshelf_mail_outbox_oldest_queued_age_seconds'), 90, 'its oldest mail has waited 90 s')
  now -= 90_000

  // Still down at the first retry: a round fails and leaves it queued; the outage was logged once, when it began.
  now += MAIL_RETRY_BASE_MS
  await stack.bff.mailOutbox.tick()
  t.same((await tab.get('/api/user/verification-mail')).json(), { mail: 'queued' })
  t.equal(smtp.received.length, 0)
  t.equal(outageLines().length, 1, 'one line for the outage, not one per try')
  t.match(JSON.parse(outageLines()[0]!), { level: 40, msg: 'mail server unreachable', cause: /ECONNREFUSED/ })

  await smtp.start()
  // Not due yet: the second retry waits at least 30 s (the doubled base, jittered down to half).
  now += MAIL_RETRY_BASE_MS - 1
  await stack.bff.mailOutbox.tick()
  t.equal(smtp.received.length, 0, 'nothing is sent before its time')
  now += MAIL_RETRY_BASE_MS + 1
  await stack.bff.mailOutbox.tick()
  t.equal(smtp.received.length, 1, 'the verification mail arrives once the server is back')
  const mail = smtp.received[0]!
  t.same(mail.to, ['hedy@example.com'])
  t.match(decodeQuotedPrintable(mail.raw), /Subject: Verify your email address for Softshelf/)
  t.match(messageIdOf(mail), /^<[0-9a-f-]{36}@/, 'a Message-ID every try of this mail carries')
  t.same((await tab.get('/api/user/verification-mail')).json(), { mail: 'sent' })
  t.match(JSON.parse(outageLines()[1]!), { level: 30, msg: 'mail server reachable again' }, 'and one when it ended')

  // The link works.
  const link = linkIn(mail)
  const verified = await browser(stack.bff).post('/auth/user/email/verify', { method: 'token', token: link.searchParams.get('token') })
  t.equal(verified.json().status, 'OK', 'the link verifies the email')
  t.equal((await tab.get('/auth/user/email/verify')).json().isVerified, true)

  scraped = await metrics()
  t.equal(sample(scraped, 'softshelf_mail_outbox_queued'), 0)
  t.equal(sample(scraped, 'softshelf_mail_outbox_oldest_queued_age_seconds'), 0)
  t.equal(sample(scraped, 'softshelf_mail_sent_total', 'kind="verify"'), 1)

  // Another round sends nothing again.
  now += 60 * 60_000
  await stack.bff.mailOutbox.tick()
  t.equal(smtp.received.length, 1, 'sent once')
  // The message (with its token) is not kept, and never logged.
  const { rows } = await stack.db.query<{ text_body: string | null; html_body: string | null; recipient: string | null }>('SELECT text_body, html_body, recipient FROM bff.mail_outbox')
  t.same(rows, [{ text_body: null, html_body: null, recipient: null }], 'the sent message is cleared from the outbox')
  t.notMatch(logs.text, link.searchParams.get('token')!, 'the token is in no log line')
})

t.test('with the server up, the verification mail leaves at once and the status says sent', async (t) => {
  const smtp = await startSmtpServer(t)
  const stack = await buildStack(t, { auth: true, env: { SMTP_URL: smtp.url } })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'ada@example.com' }, { id: 'password', value: PASSWORD }] })).json().status, 'OK')
  t.equal(smtp.received.length, 1, 'sent during the sign-up, not by the worker')
  t.same((await tab.get('/api/user/verification-mail')).json(), { mail: 'sent' })
  t.equal((await browser(stack.bff).get('/api/user/verification-mail')).statusCode, 401, 'the status is the session\'s own: no session, no answer')
})

t.test('a mail that cannot go out for a day is given up; /check-email says so, a resend works, and rows are purged', async (t) => {
  const smtp = await startSmtpServer(t)
  await smtp.stop()
  const start = Date.parse('2026-11-27T09:00:00Z')
  let now = start
  const logs = new LogCapture()
  const stack = await buildStack(t, { auth: true, now: () => now, bffLogStream: logs, env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info' } })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'joan@example.com' }, { id: 'password', value: PASSWORD }] })).json().status, 'OK')

  // Every round, a minute apart, for a day: tries are spread out by the backoff (tens in a day, not
  // 1,440), from the sign-up's own try on (which may outlive its inline wait on a busy machine: the
  // clock moves once it has failed).
  const attempts = async () => (await stack.db.query<{ attempts: number }>('SELECT attempts FROM bff.mail_outbox')).rows[0]!.attempts
  await waitUntil(async () => (await stack.db.query("SELECT 1 FROM bff.mail_outbox WHERE status = 'queued' AND attempts = 1 AND claimed_until IS NULL")).rows.length === 1)
  const rounds: number[] = []
  while (now < start + MAIL_GIVE_UP_AFTER_MS - 60_000) {
    now += 60_000
    rounds.push(now)
    await stack.bff.mailOutbox.tick()
  }
  t.same((await tab.get('/api/user/verification-mail')).json(), { mail: 'queued' }, 'still tried a minute before the day ends')
  // The jitter is random: the tries lie between those of the longest waits (every draw 1) and of
  // the shortest (every draw 0) in the same rounds.
  const triesWhenEveryDrawIs = (draw: number) => {
    let tries = 1
    let next = start + retryDelayMs(tries, () => draw)
    for (const round of rounds) {
      if (round < next) continue
      tries++
      next = Math.min(round + retryDelayMs(tries, () => draw), start + MAIL_GIVE_UP_AFTER_MS)
    }
    return tries
  }
  const tries = await attempts()
  const [fewest, most] = [triesWhenEveryDrawIs(1), triesWhenEveryDrawIs(0)]
  t.ok(fewest >= 20 && most <= 60, `the backoff allows ${fewest}–${most} tries in a day, not one a round`)
  t.ok(tries >= fewest && tries <= most, `tried ${tries} times in a day (${fewest}–${most})`)
  now = start + MAIL_GIVE_UP_AFTER_MS
  await stack.bff.mailOutbox.tick()
  t.same((await tab.get('/api/user/verification-mail')).json(), { mail: 'failed' }, 'given up at the end of the day')
  t.equal(logs.lines.filter((line) => line.includes('"mail-given-up"')).length, 1, 'logged once, at error')
  const scraped = (await stack.bff.inject({ method: 'GET', url: '/metrics', headers: bearer(stack.operatorToken) })).body
  t.equal(sample(scraped, 'softshelf_mail_failed_total', 'kind="verify"'), 1)
  t.equal(sample(scraped, 'softshelf_mail_outbox_queued'), 0)

  // The server is back: nothing more is sent by itself; the resend the page offers works.
  await smtp.start()
  now += 60_000
  await stack.bff.mailOutbox.tick()
  t.equal(smtp.received.length, 0, 'a given-up mail is not sent')
  t.equal((await tab.post('/auth/user/email/verify/token')).json().status, 'OK')
  t.equal(smtp.received.length, 1, 'the resend goes out')
  t.same((await tab.get('/api/user/verification-mail')).json(), { mail: 'sent' })

  // Rows are deleted a day after they were finished, not before.
  const count = async () => (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM bff.mail_outbox')).rows[0]!.n
  const resentAt = now
  now = resentAt + MAIL_PURGE_AFTER_MS - 1
  await stack.bff.mailOutbox.tick()
  t.equal(await count(), 1, 'the resent row is kept for a day (the given-up one, older, is gone)')
  now = resentAt + MAIL_PURGE_AFTER_MS
  await stack.bff.mailOutbox.tick()
  t.equal(await count(), 0, 'and deleted after it')
})

t.test('a resend or a reset while the server is down still answers 503, and leaves nothing to send later', async (t) => {
  const smtp = await startSmtpServer(t)
  let now = Date.parse('2026-11-27T09:00:00Z')
  const logs = new LogCapture()
  const stack = await buildStack(t, { auth: true, now: () => now, bffLogStream: logs, env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info' } })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'lise@example.com' }, { id: 'password', value: PASSWORD }] })).json().status, 'OK')
  await smtp.stop()
  const resend = await tab.post('/auth/user/email/verify/token')
  t.equal(resend.statusCode, 503)
  t.equal(resend.json().code, 'BFF_MAIL_UNAVAILABLE')
  t.equal(resend.headers['retry-after'], '60', 'with the minute its message speaks of')
  const reset = await browser(stack.bff).post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'lise@example.com' }] })
  t.equal(reset.statusCode, 503)
  // An address without an account sends nothing, yet asks the mailer whether it could: the same 503.
  const unknown = await browser(stack.bff).post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'nobody@example.com' }] })
  t.equal(unknown.statusCode, 503)
  t.equal((await tab.post('/auth/user/email/verify/token')).statusCode, 503)
  // The outage is one warning when it begins, not an error line per request that met it.
  const lines = logs.lines.map((line) => JSON.parse(line) as { level: number; msg: string; outage?: string })
  t.same(lines.filter((line) => line.level >= 50).map((line) => line.msg), [], 'no error line for four refused requests')
  t.equal(lines.filter((line) => line.outage === 'mail server' && line.level === 40).length, 1, 'one warning for the outage')
  await smtp.start()
  now += MAIL_GIVE_UP_AFTER_MS
  await stack.bff.mailOutbox.tick()
  t.equal(smtp.received.length, 1, 'only the sign-up mail: what the asker was told failed is not sent behind their back')
})
