import t from 'tap'
import { browser, buildStack } from '../../helpers.ts'
import { decodeQuotedPrintable, startSmtpServer } from '../../smtp-server.ts'

// With SMTP_URL the emails leave through a real SMTP server (smtp-server on loopback stands for
// the operator's), and the local mailbox stays empty.

t.test('verification mail goes out over SMTP', async (t) => {
  const smtp = await startSmtpServer(t)
  const stack = await buildStack(t, { auth: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Softshelf <hello@softshelf.test>' } })
  const tab = browser(stack.bff)
  const response = await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'grace@example.com' }, { id: 'password', value: 'a long enough password' }] })
  t.equal(response.json().status, 'OK')
  t.equal(smtp.received.length, 1)
  const mail = smtp.received[0]!
  t.equal(mail.from, 'hello@softshelf.test')
  t.same(mail.to, ['grace@example.com'])
  const body = decodeQuotedPrintable(mail.raw)
  t.match(body, /Subject: Verify your email address for Softshelf/)
  t.match(body, /http:\/\/localhost:3000\/verify-email\?token=[A-Za-z0-9_-]+&tenantId=public/)
  t.equal((await stack.bff.inject({ method: 'GET', url: '/dev/mail' })).statusCode, 404, 'no local mailbox with SMTP')
})

t.test('a mail server that is down does not undo the sign-up', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { SMTP_URL: 'smtp://127.0.0.1:9' } })
  const tab = browser(stack.bff)
  const response = await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'ida@example.com' }, { id: 'password', value: 'a long enough password' }] })
  t.equal(response.statusCode, 200)
  t.equal(response.json().status, 'OK', 'the account is made; the mail can be sent again later')
  t.same((await tab.get('/api/user/check-email?email=ida@example.com')).json(), { success: true })
  const resend = await tab.post('/auth/user/email/verify/token')
  t.equal(resend.statusCode, 503, 'asking again while the server is down is an error the page can show')
  t.match(resend.json(), { code: 'BFF_MAIL_UNAVAILABLE', message: 'We could not send the email right now. Please try again in a few minutes.' })

  // A reset link for an account and for an address without one: the same answer while mail is
  // down, so the outage does not reveal which addresses have accounts.
  const anonymous = browser(stack.bff)
  const known = await anonymous.post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'ida@example.com' }] })
  const unknown = await anonymous.post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'nobody@example.com' }] })
  t.equal(known.statusCode, 503)
  t.equal(unknown.statusCode, 503)
  t.same({ ...unknown.json(), requestId: null }, { ...known.json(), requestId: null })
})

t.test('with mail working, a reset for an address without an account is a quiet OK', async (t) => {
  const smtp = await startSmtpServer(t)
  const stack = await buildStack(t, { auth: true, env: { SMTP_URL: smtp.url } })
  const response = await browser(stack.bff).post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'nobody@example.com' }] })
  t.equal(response.statusCode, 200)
  t.equal(response.json().status, 'OK')
  t.equal(smtp.received.length, 0, 'nothing is sent')
})
