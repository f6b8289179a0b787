import t from 'tap'
import { browser, buildStack, mailsIn, notifyRelease, signedInTab, type Stack, userIdOf, waitUntil } from '../../helpers.ts'
import { recordRelease } from '../../../server/api/catalogue/releases.ts'
import { NOTIFICATION_MAIL_LEASE_MS } from '../../../server/api/notifications/mail.ts'
import { decodeQuotedPrintable, startSmtpServer } from '../../smtp-server.ts'

// Notification mail (docs/API.md "Notification mail and one-click unsubscribe",
// decision 030): which accounts the API hands the BFF's mail worker, the mails the worker queues
// (one per account, in its language, with RFC 8058's headers), and the one-click unsubscribe.
// This file: the worker, the mails and the one-click unsubscribe; the API's claims are
// test/integration/api/notification-mail.test.ts. Time is the test's clock; the worker's and the
// outbox's rounds are run explicitly.

const HOUR = 60 * 60_000
const DAY = 24 * HOUR
const PASSWORD = 'correct horse battery'



interface StoredMail {
  to: string
  subject: string
  text: string
  html: string
  headers?: Record<string, string>
}
const mailsTo = (stack: Stack, to: string) => (mailsIn(stack.config.dataDir, to) as StoredMail[]).filter((mail) => mail.headers?.['List-Unsubscribe'])
const tokenOf = (mail: StoredMail) => new URL(/^<(.+)>$/.exec(mail.headers!['List-Unsubscribe']!)![1]!).searchParams.get('token')!

t.test("the worker: a watched program's release is one mail in the account's language with the one-click headers; a crash before the acknowledgement still makes one", async (t) => {
  let now = Date.parse('2026-11-27T09:00:00Z')
  const stack = await buildStack(t, { auth: true, now: () => now })
  const tab = await signedInTab(stack, 'ada@example.com')
  const ada = await userIdOf(stack, 'ada@example.com')
  t.equal((await tab.send('PATCH', '/api/user', { notify: 'immediate' })).statusCode, 200)
  await stack.db.query(`UPDATE api.users SET language = 'de' WHERE id = $1`, [ada])
  for (const program of ['blender', 'gimp', 'inkscape']) t.equal((await tab.put(`/api/user/watches/${program}`, { events: ['release'] })).statusCode, 200)
  // The editor's release, fanned out by the API to its watchers (the watches part).
  const release = async (programId: string, version: string) => {
    await stack.db.transaction((tx) => recordRelease(tx, { programId, version, date: '2026-11-20', source: 'editor' }, { actor: { id: 'editor', email: 'editor@example.com' }, requestId: 'test' }))
    stack.api.notificationFanout.wake()
    await waitUntil(async () => (await stack.db.query(`SELECT 1 FROM api.notifications WHERE user_id = $1 AND program_id = $2`, [ada, programId])).rowCount > 0)
  }
  await release('blender', '4.5')

  t.equal(await stack.bff.notificationMail.tick(), 1, 'one mail queued')
  t.equal(await stack.bff.notificationMail.tick(), 0, 'and nothing more')
  await stack.bff.mailOutbox.tick()
  const [mail, ...others] = mailsTo(stack, 'ada@example.com')
  t.equal(others.length, 0, 'one mail')
  t.equal(mail!.subject, 'Neue Version von Blender: 4.5', "in the account's language")
  t.match(mail!.headers!['List-Unsubscribe'], /^<http:\/\/localhost:3000\/mail\/unsubscribe\?token=[A-Za-z0-9_.-]+>$/)
  t.equal(mail!.headers!['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click')
  t.match(mail!.html, 'href="http://localhost:3000/programs/blender"', "the program's page")
  t.match(mail!.text, 'http://localhost:3000/mail/unsubscribe?token=', 'the link in the text too')
  const unmailed = await stack.db.query(`SELECT 1 FROM api.notifications WHERE user_id = $1 AND mailed_at IS NULL`, [ada])
  t.equal(unmailed.rowCount, 0, 'the notification is mailed')

  // The worker dies between writing the mail and saying so: the claim runs out, and the next round
  // takes the same claim; the outbox already has its mail.
  now += 60_000
  await release('gimp', '3.2')
  await release('inkscape', '1.5')
  const claims = await stack.bff.notificationMail.claim(10)
  t.equal(claims.length, 1)
  t.equal(await stack.bff.notificationMail.write(claims), 1)
  now += NOTIFICATION_MAIL_LEASE_MS + 1
  t.equal(await stack.bff.notificationMail.tick(), 0, 'taken again: nothing new written')
  await stack.bff.mailOutbox.tick()
  const digests = mailsTo(stack, 'ada@example.com').slice(1)
  t.equal(digests.length, 1, 'still one mail')
  t.equal(digests[0]!.subject, 'Neues zu den Programmen, denen Sie auf Softshelf folgen', 'two events: the digest')
  t.match(digests[0]!.text, 'GIMP: Version 3.2')
  t.match(digests[0]!.text, 'Inkscape: Version 1.5')
  t.equal((await stack.db.query(`SELECT 1 FROM api.notifications WHERE user_id = $1 AND mailed_at IS NULL`, [ada])).rowCount, 0, 'both mailed')
  t.equal((await stack.db.query(`SELECT 1 FROM bff.mail_outbox WHERE user_id = $1 AND kind = 'notification'`, [ada])).rowCount, 2, 'two rows in the outbox in all')
})

t.test('one-click unsubscribe: a POST with the token and no session turns mail off; a GET, a forged, an old or another spelling changes nothing', async (t) => {
  let now = Date.parse('2026-11-27T09:00:00Z')
  const stack = await buildStack(t, { auth: true, now: () => now })
  const adaTab = await signedInTab(stack, 'ada@example.com')
  await signedInTab(stack, 'bob@example.com')
  const [ada, bob] = [await userIdOf(stack, 'ada@example.com'), await userIdOf(stack, 'bob@example.com')]
  await stack.db.query(`UPDATE api.users SET notify = 'immediate'`)
  await stack.db.query(`UPDATE api.users SET language = 'sk' WHERE id = $1`, [ada])
  await notifyRelease(stack, ada, 'blender', '4.5')
  await notifyRelease(stack, bob, 'blender', '4.5')
  await stack.bff.notificationMail.tick()
  await stack.bff.mailOutbox.tick()
  const adaToken = tokenOf(mailsTo(stack, 'ada@example.com')[0]!)
  const bobToken = tokenOf(mailsTo(stack, 'bob@example.com')[0]!)
  const notifyOf = async (id: string) => (await stack.db.query<{ notify: string }>(`SELECT notify FROM api.users WHERE id = $1`, [id])).rows[0]!.notify
  // What a mail provider sends (RFC 8058): from its own site, no cookie, no anti-forgery header.
  const oneClick = (url: string) =>
    stack.bff.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://mail.example.net' }, payload: 'List-Unsubscribe=One-Click' })
  const q = (token: string) => `?token=${encodeURIComponent(token)}`

  const page = await stack.bff.inject({ method: 'GET', url: `/mail/unsubscribe${q(adaToken)}` })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<html lang="sk">', "the account's language")
  t.match(page.body, `<form method="post" action="/mail/unsubscribe${q(adaToken)}">`)
  t.match(page.body, 'name="List-Unsubscribe" value="One-Click"')
  t.equal(page.headers['cache-control'], 'no-store')
  t.equal(page.headers['referrer-policy'], 'no-referrer')
  t.equal(await notifyOf(ada), 'immediate', 'a GET (a link scanner) changes nothing')

  const [payload, signature] = adaToken.split('.') as [string, string]
  const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), u: bob })).toString('base64url')
  for (const forged of [`${payload}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`, `${forgedPayload}.${signature}`, 'nonsense', `${payload}.`]) {
    const answer = await oneClick(`/mail/unsubscribe${q(forged)}`)
    t.equal(answer.statusCode, 400, `a forged token: 400 (${forged.slice(-6)})`)
  }
  const api = await stack.api.inject({ method: 'POST', url: '/api/notifications/unsubscribe', payload: { token: `${forgedPayload}.${signature}` } })
  t.equal(api.statusCode, 400)
  t.equal(api.json().code, 'API_UNSUBSCRIBE_LINK_INVALID')
  t.equal((await stack.bff.inject({ method: 'POST', url: `/mail/unsubscribe${q(adaToken)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'x=1' })).statusCode, 400, 'not the one-click body: 400')
  // Only the route itself takes a post without the anti-forgery header: no other spelling reaches it, and the API's route behind the proxy keeps the check.
  for (const url of [`/mail/unsubscribe/${q(adaToken)}`, `/MAIL/unsubscribe${q(adaToken)}`, `/mail/Unsubscribe${q(adaToken)}`, `/mail/unsubscribe%2F${q(adaToken)}`, `//mail/unsubscribe${q(adaToken)}`]) {
    const answer = await oneClick(url)
    t.not(answer.statusCode, 200, `${url.split('?')[0]}: not the route`)
  }
  const proxied = await stack.bff.inject({ method: 'POST', url: '/api/notifications/unsubscribe', headers: { 'content-type': 'application/json', origin: 'https://mail.example.net' }, payload: { token: adaToken } })
  t.equal(proxied.statusCode, 403, 'through the /api proxy: the anti-forgery check')
  t.equal(proxied.json().code, 'BFF_CSRF_REJECTED')
  t.equal(await notifyOf(ada), 'immediate', 'nothing changed so far')
  t.equal(await notifyOf(bob), 'immediate')

  const done = await oneClick(`/mail/unsubscribe${q(adaToken)}`)
  t.equal(done.statusCode, 200, 'the one-click POST: 200')
  t.match(done.body, 'Hotovo')
  t.equal(await notifyOf(ada), 'off', 'mail is off for that account')
  t.equal((await adaTab.get('/api/user')).json().notify, 'off', 'GET /api/user says so')
  t.equal(await notifyOf(bob), 'immediate', 'and only that one')
  t.equal((await oneClick(`/mail/unsubscribe${q(adaToken)}`)).statusCode, 200, 'a second click: still 200')

  // Bob's link, 61 days on: too old, nothing changes.
  now += 61 * DAY
  const old = await oneClick(`/mail/unsubscribe${q(bobToken)}`)
  t.equal(old.statusCode, 400)
  t.equal((await stack.api.inject({ method: 'POST', url: '/api/notifications/unsubscribe', payload: { token: bobToken } })).json().code, 'API_UNSUBSCRIBE_LINK_EXPIRED')
  t.equal(await notifyOf(bob), 'immediate', 'an old link changes nothing')
})

t.test('over SMTP the mail carries both headers', async (t) => {
  const smtp = await startSmtpServer(t)
  const stack = await buildStack(t, { auth: true, env: { SMTP_URL: smtp.url } })
  const tab = browser(stack.bff)
  await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'grace@example.com' }, { id: 'password', value: PASSWORD }] })
  await waitUntil(() => smtp.received.length === 1)
  const verify = /http:\/\/localhost:3000\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(decodeQuotedPrintable(smtp.received[0]!.raw))![1]
  t.equal((await tab.post('/auth/user/email/verify', { method: 'token', token: verify })).json().status, 'OK')
  const grace = await userIdOf(stack, 'grace@example.com')
  await stack.db.query(`UPDATE api.users SET notify = 'immediate' WHERE id = $1`, [grace])
  await notifyRelease(stack, grace, 'blender', '4.6')
  t.equal(await stack.bff.notificationMail.tick(), 1)
  await stack.bff.mailOutbox.tick()
  const raw = smtp.received.at(-1)!.raw
  t.match(raw, /^Subject: New version of Blender: 4\.6\r?$/m)
  t.match(raw.replace(/\r?\n[ \t]+/g, ' '), /^List-Unsubscribe: <http:\/\/localhost:3000\/mail\/unsubscribe\?token=[A-Za-z0-9_.%-]+>\r?$/m)
  t.match(raw, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m)
})

