import path from 'node:path'
import type { LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { buildBff } from '../../../server/bff/app.ts'
import { MailboxMailer } from '../../../server/bff/mail/mailer.ts'
import { browser, buildStack, lastMailLink, LogCapture, openTestDatabase, testBuildInfo, testConfig, type Stack } from '../../helpers.ts'

// The local mailbox: it holds sign-in links, so it answers only this machine's own
// browser — a loopback socket, no forwarding header (behind a proxy on the same host the socket is
// loopback for everyone), a loopback Host (no DNS rebinding) and a loopback http:// APP_URL.
// Anything else is the ordinary not-found answer, so nothing tells that it exists.

async function withMessage(stack: Stack): Promise<string> {
  const mailbox = new MailboxMailer(path.join(stack.config.dataDir, 'mail'), 'Softshelf <no-reply@localhost>')
  await mailbox.send({ to: 'ada@example.com', subject: 'Reset your Softshelf password', text: 'http://localhost:3000/reset-password?token=secret-token', html: '<p>secret-token</p>' })
  const [mail] = await mailbox.list()
  return mail!.id
}

function assertHidden(t: Test, response: LightMyRequestResponse, label: string): void {
  t.equal(response.statusCode, 404, label)
  t.match(response.headers['content-type'], /^application\/json/, label)
  t.equal(response.headers['content-type']?.toString().startsWith('application/json') ? response.json().code : response.body.slice(0, 40), 'BFF_NOT_FOUND', label)
  t.notMatch(response.body, /secret-token|mailbox|Reset your/i, `${label}: nothing of the mailbox`)
}

t.test('the mailbox answers this machine\'s browser and nothing else', async (t) => {
  const stack = await buildStack(t)
  const id = await withMessage(stack)
  const get = (url: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') => stack.bff.inject({ method: 'GET', url, headers, remoteAddress })

  for (const [host, remote] of [['localhost:3000', '127.0.0.1'], ['localhost', '127.0.0.1'], ['127.0.0.1:3000', '127.0.0.1'], ['[::1]:3000', '::1'], ['LOCALHOST:3000', '::ffff:127.0.0.1']] as const) {
    const list = await get('/dev/mail', { host }, remote)
    t.equal(list.statusCode, 200, `list, Host ${host}, socket ${remote}`)
    t.match(list.body, 'Reset your Softshelf password')
    const one = await get(`/dev/mail/${id}`, { host }, remote)
    t.equal(one.statusCode, 200, `message, Host ${host}`)
    t.match(one.body, 'secret-token')
  }

  const refused: Array<[string, Record<string, string>, string?]> = [
    ['a proxy\'s X-Forwarded-For', { host: 'localhost:3000', 'x-forwarded-for': '203.0.113.9' }],
    ['X-Forwarded-For naming this machine', { host: 'localhost:3000', 'x-forwarded-for': '127.0.0.1' }],
    ['Forwarded', { host: 'localhost:3000', forwarded: 'for=203.0.113.9;proto=https' }],
    ['X-Real-IP', { host: 'localhost:3000', 'x-real-ip': '203.0.113.9' }],
    ['a foreign Host (DNS rebinding)', { host: 'evil.example' }],
    ['a foreign Host with a port', { host: 'evil.example:3000' }],
    ['a Host that only starts like localhost', { host: 'localhost.evil.example:3000' }],
    ['a Host that only starts like 127.0.0.1', { host: '127.0.0.1.nip.io' }],
    ['a LAN address as Host', { host: '192.168.1.20:3000' }],
    ['another machine\'s socket', { host: 'localhost:3000' }, '203.0.113.9'],
    ['a LAN socket', { host: 'localhost:3000' }, '192.168.1.20'],
  ]
  for (const [label, headers, remote] of refused) {
    assertHidden(t, await get('/dev/mail', headers, remote), `list: ${label}`)
    assertHidden(t, await get(`/dev/mail/${id}`, headers, remote), `message: ${label}`)
  }
})

t.test('behind TRUST_PROXY the forwarded request is refused too', async (t) => {
  const stack = await buildStack(t, { env: { TRUST_PROXY: '127.0.0.1' } })
  const id = await withMessage(stack)
  assertHidden(t, await stack.bff.inject({ url: '/dev/mail', headers: { host: 'localhost:3000', 'x-forwarded-for': '203.0.113.9' } }), 'list')
  assertHidden(t, await stack.bff.inject({ url: `/dev/mail/${id}`, headers: { host: 'localhost:3000', 'x-forwarded-for': '203.0.113.9' } }), 'message')
  t.equal((await stack.bff.inject({ url: '/dev/mail', headers: { host: 'localhost:3000' } })).statusCode, 200, 'the machine\'s own browser still reads it')
})

t.test('with an APP_URL that is not a loopback http:// address the mailbox never answers', async (t) => {
  for (const appUrl of ['https://localhost:3000', 'http://192.168.1.20:3000', 'https://shelf.example.com']) {
    const stack = await buildStack(t, { env: { APP_URL: appUrl } })
    const id = await withMessage(stack)
    assertHidden(t, await stack.bff.inject({ url: '/dev/mail', headers: { host: 'localhost:3000' } }), `list, APP_URL ${appUrl}`)
    assertHidden(t, await stack.bff.inject({ url: `/dev/mail/${id}`, headers: { host: 'localhost:3000' } }), `message, APP_URL ${appUrl}`)
  }
})

// With NODE_ENV=production, a loopback APP_URL and no SMTP_URL the mailbox answered,
// and a proxy on the same host that adds no forwarding header (HAProxy without `option
// forwardfor`, nginx's default proxy_pass) keeps the client's loopback Host: anyone read every
// reset link. In production no development convenience is served, whatever the headers; the mail
// is still kept in DATA_DIR/mail, and the start-up log says once that no mail leaves the machine.
t.test('with NODE_ENV=production the mailbox is never served, in any spelling, though every header looks local', async (t) => {
  const logs = new LogCapture()
  const stack = await buildStack(t, { auth: true, bffLogStream: logs, env: { NODE_ENV: 'production', LOG_LEVEL: 'info', APP_URL: 'http://localhost:3000' } })
  const id = await withMessage(stack)
  const local = { host: 'localhost:3000' }
  const spellings = [
    '/dev/mail', '/dev/mail/', '/dev/mail?', '/dev/mail?page=1', '/DEV/MAIL', '/Dev/Mail/', '/dev//mail', '/dev/mail#x', '/dev/%6Dail',
    `/dev/mail/${id}`, `/dev/mail/${id}/`, `/dev/mail/${id}?raw=1`, `/DEV/MAIL/${id}`, `/dev//mail/${id}`,
  ]
  for (const url of spellings) {
    for (const method of ['GET', 'HEAD'] as const) {
      for (const [host, remoteAddress] of [['localhost:3000', '127.0.0.1'], ['127.0.0.1:3000', '127.0.0.1'], ['[::1]:3000', '::1']] as const) {
        const response = await stack.bff.inject({ method, url, headers: { host }, remoteAddress })
        t.equal(response.statusCode, 404, `${method} ${url}, Host ${host}`)
        t.notMatch(response.body, /secret-token|Local mailbox|Reset your Softshelf/i, `${method} ${url}: nothing of the mailbox`)
      }
    }
  }

  // The mail still goes somewhere the operator can read it: DATA_DIR/mail.
  const signUp = await browser(stack.bff).post('/auth/signup', { formFields: [{ id: 'email', value: 'grace@example.com' }, { id: 'password', value: 'correct horse battery' }] }, local)
  t.equal(signUp.json().status, 'OK')
  t.equal(lastMailLink(stack, 'grace@example.com').pathname, '/verify-email', 'the verification mail is in DATA_DIR/mail')

  const lines = logs.lines.map((line) => JSON.parse(line) as { level: number; msg?: string; mailFolder?: string })
  const notice = lines.filter((line) => /No mail leaves this machine/.test(line.msg ?? ''))
  t.equal(notice.length, 1, 'the start-up log says it once, not per mail or request')
  t.equal(notice[0]?.level, 40, 'as a warning')
  t.equal(notice[0]?.mailFolder, path.join(stack.config.dataDir, 'mail'), 'naming the folder')
  t.match(notice[0]?.msg, /SMTP_URL is not set/)
})

t.test('outside production the start-up log has no such warning, and with SMTP_URL in production neither', async (t) => {
  const logs = new LogCapture()
  await buildStack(t, { bffLogStream: logs, env: { LOG_LEVEL: 'info' } })
  t.notMatch(logs.text, /No mail leaves this machine/)
  const smtpLogs = new LogCapture()
  await buildStack(t, { bffLogStream: smtpLogs, env: { NODE_ENV: 'production', LOG_LEVEL: 'info', SMTP_URL: 'smtp://127.0.0.1:9' } })
  t.notMatch(smtpLogs.text, /No mail leaves this machine/)
})

t.test('with NODE_ENV=production the BFF refuses to serve the client through Vite (--dev)', async (t) => {
  const config = testConfig(t, { NODE_ENV: 'production' })
  await t.rejects(buildBff({ config, db: await openTestDatabase(t), buildInfo: testBuildInfo, upstreamApiUrl: 'http://127.0.0.1:9', dev: true }), { name: 'ConfigError', message: /--dev .* not served with NODE_ENV=production/ })
})
