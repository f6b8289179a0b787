import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import t, { type Test } from 'tap'
import { browser, buildStack } from '../../helpers.ts'

// With SMTP_URL the emails leave through a real SMTP server (smtp-server on loopback stands for
// the operator's), and the local mailbox stays empty.

interface Received {
  from: string
  to: string[]
  raw: string
}

async function startSmtp(t: Test): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, received }
}

/** The quoted-printable body of a message, decoded enough to read a link. */
const decodeQp = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

t.test('verification mail goes out over SMTP', async (t) => {
  const smtp = await startSmtp(t)
  const stack = await buildStack(t, { auth: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Softshelf <hello@softshelf.test>' } })
  const tab = browser(stack.bff)
  const response = await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'grace@example.com' }, { id: 'password', value: 'a long enough password' }] })
  t.equal(response.json().status, 'OK')
  t.equal(smtp.received.length, 1)
  const mail = smtp.received[0]!
  t.equal(mail.from, 'hello@softshelf.test')
  t.same(mail.to, ['grace@example.com'])
  const body = decodeQp(mail.raw)
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
  const smtp = await startSmtp(t)
  const stack = await buildStack(t, { auth: true, env: { SMTP_URL: smtp.url } })
  const response = await browser(stack.bff).post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'nobody@example.com' }] })
  t.equal(response.statusCode, 200)
  t.equal(response.json().status, 'OK')
  t.equal(smtp.received.length, 0, 'nothing is sent')
})
