import t from 'tap'
import { MailQuota } from '../../../server/bff/mail/mail-quota.ts'
import { MAIL_PER_RECIPIENT_PER_HOUR, MAIL_QUOTA_WINDOW_MS } from '../../../shared/constants.ts'
import { browser, buildStack, LogCapture, formFields } from '../../helpers.ts'
import { startSmtpServer } from '../../smtp-server.ts'

// 25 reset requests for one address from one IP sent 20 mails in a minute. Reset and
// verification mails to one recipient are capped per hour; past the cap nothing is sent and the
// answer is the one a sent mail gets, so the cap tells nothing.


t.test('mail to one recipient is capped at 5 an hour, with the same answers past the cap', async (t) => {
  const smtp = await startSmtpServer(t)
  const logs = new LogCapture()
  const stack = await buildStack(t, { auth: true, bffLogStream: logs, env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info', AUTH_RATE_LIMIT_MAX: '1000' } })
  const to = (address: string) => smtp.received.filter((mail) => mail.to.some((rcpt) => rcpt.toLowerCase() === address)).length

  await t.test('resets: 8 requests, 5 mails, 8 identical answers', async (t) => {
    t.equal((await browser(stack.bff).post('/auth/signup', formFields({ email: 'ada@example.com', password: 'a long enough password' }))).json().status, 'OK')
    t.equal(to('ada@example.com'), 1, 'the sign-up sent the verification mail')
    const answers = []
    for (let i = 0; i < 8; i++) {
      // Case and spaces do not make another recipient.
      const response = await browser(stack.bff).post('/auth/user/password/reset/token', formFields({ email: i % 2 ? ' ADA@example.com ' : 'ada@example.com' }))
      answers.push({ code: response.statusCode, body: response.body })
    }
    t.equal(to('ada@example.com'), 5, 'the verification mail and 4 resets: the cap')
    t.same(answers, Array(8).fill({ code: 200, body: '{"status":"OK"}' }), 'every answer is the one a sent mail gets')
  })

  await t.test('verification resends count in the same cap', async (t) => {
    const tab = browser(stack.bff)
    t.equal((await tab.post('/auth/signup', formFields({ email: 'bob@example.com', password: 'a long enough password' }))).json().status, 'OK')
    const answers = []
    for (let i = 0; i < 3; i++) answers.push((await tab.post('/auth/user/email/verify/token')).body)
    for (let i = 0; i < 3; i++) answers.push((await browser(stack.bff).post('/auth/user/password/reset/token', formFields({ email: 'bob@example.com' }))).body)
    t.equal(to('bob@example.com'), 5)
    t.same(answers.slice(0, 3), Array(3).fill('{"status":"OK"}'))
    t.same(answers.slice(3), Array(3).fill('{"status":"OK"}'))
  })

  await t.test('parallel requests cannot exceed the cap', async (t) => {
    t.equal((await browser(stack.bff).post('/auth/signup', formFields({ email: 'cy@example.com', password: 'a long enough password' }))).json().status, 'OK')
    const responses = await Promise.all(Array.from({ length: 10 }, () => browser(stack.bff).post('/auth/user/password/reset/token', formFields({ email: 'cy@example.com' }))))
    t.same(responses.map((r) => r.json().status), Array(10).fill('OK'))
    t.equal(to('cy@example.com'), 5)
  })

  await t.test('other recipients are not affected', async (t) => {
    t.equal((await browser(stack.bff).post('/auth/signup', formFields({ email: 'dee@example.com', password: 'a long enough password' }))).json().status, 'OK')
    await browser(stack.bff).post('/auth/user/password/reset/token', formFields({ email: 'dee@example.com' }))
    t.equal(to('dee@example.com'), 2)
  })

  await t.test('a capped mail is logged at info with a hashed recipient', async (t) => {
    const lines = logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === 'mail-capped')
    t.ok(lines.length >= 3)
    for (const line of lines) t.match(line, { level: 30, recipientHash: /^[0-9a-f]{16}$/, kind: /^(reset|verify)$/ })
    t.notMatch(logs.text, /(ada|bob|cy)@example\.com/i)
  })

  await t.test('the cap survives a restart', async (t) => {
    const again = await buildStack(t, { auth: true, db: stack.db, env: { SMTP_URL: smtp.url } })
    const before = to('ada@example.com')
    t.equal((await browser(again.bff).post('/auth/user/password/reset/token', formFields({ email: 'ada@example.com' }))).json().status, 'OK')
    t.equal(to('ada@example.com'), before)
  })
})

t.test('the cap holds for any hour: a place frees exactly an hour after its mail', async (t) => {
  const stack = await buildStack(t)
  const start = Date.UTC(2026, 10, 22, 12, 0, 0)
  let now = start
  const quota = new MailQuota(stack.db, MAIL_PER_RECIPIENT_PER_HOUR, MAIL_QUOTA_WINDOW_MS, () => now)
  const take = async (address = 'eve@example.com') => (await quota.take(address)) !== null
  t.equal(MAIL_PER_RECIPIENT_PER_HOUR, 5)
  t.ok(await take(), 'the first mail at 12:00')
  now = start + 10 * 60_000
  for (let i = 0; i < 4; i++) t.ok(await take(), `mail ${i + 2} at 12:10`)
  t.notOk(await take(), 'the sixth is refused')
  t.notOk(await take(' EVE@Example.com '), 'the same recipient in other case and spaces')
  t.ok(await take('fay@example.com'), 'another recipient has its own cap')
  now = start + MAIL_QUOTA_WINDOW_MS - 1
  t.notOk(await take(), 'still refused a millisecond before 13:00')
  t.equal(await quota.count('eve@example.com'), 5)
  now = start + MAIL_QUOTA_WINDOW_MS
  t.ok(await take(), 'at 13:00 the 12:00 mail has left the window')
  t.notOk(await take(), 'and only its place was freed')
  now = start + 10 * 60_000 + MAIL_QUOTA_WINDOW_MS
  const grants = [await quota.take('eve@example.com'), await quota.take('eve@example.com')]
  t.ok(grants.every((grant) => grant !== null), 'at 13:10 the four 12:10 places are free')
  await quota.giveBack(grants[0]!)
  t.equal(await quota.count('eve@example.com'), 2, 'a mail that was not handed over gives its place back')
})
