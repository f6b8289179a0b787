import t, { type Test } from 'tap'
import { base32Decode } from '../../../server/authcore/totp.ts'
import { MAIL_RETRY_BASE_MS } from '../../../server/bff/mail/mail-outbox.ts'
import { browser, buildStack, confirmedAuthenticator, lastMailLink, mailsIn, signedInTab, TestClock, waitUntil, type MailboxMessage, credentials } from '../../helpers.ts'
import { decodeQuotedPrintable, startSmtpServer } from '../../smtp-server.ts'

// Security notices: every change to an account's security — an authenticator added
// (confirmed) or removed, recovery codes renewed, the password changed or reset, the email
// changed, sessions signed out — sends one notice to the account's address, in the account's
// language, naming what changed, when (UTC), the device and IP, and what to do if it was not the
// owner. A refused attempt sends none, a retried change no second one, and a mail server that is
// down does not turn the change into an error: the notice waits in the outbox.

const PASSWORD = 'correct horse battery'
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
const IP = '203.0.113.7'
/** The request that makes a change: Firefox on Linux, from IP behind the trusted proxy. */
const FROM = { 'user-agent': FIREFOX, 'x-forwarded-for': IP }
const FORGOT = 'http://localhost:3000/forgot-password'
const PROFILE = 'http://localhost:3000/@/my-profile'
/** 14:30 UTC on 6 December 2026: the BFF's clock, so the mail's time is known. */
const clock = Date.UTC(2026, 11, 6, 14, 30)

/** The auth core's clock, near the wall clock (the SDK checks its tokens' expiry on that); the codes come from it. */
const coreClock = new TestClock()
const stack = await buildStack(t, { auth: true, now: () => clock, coreNow: coreClock.now, env: { RATE_LIMIT_MAX: '10000', AUTH_RATE_LIMIT_MAX: '1000', TRUST_PROXY: '127.0.0.1' } })

type Tab = ReturnType<typeof browser>
/** A code no window the core accepts (period −1…+1) would take. */

type StoredMail = MailboxMessage
const mailsTo = (to: string) => mailsIn(stack.config.dataDir, to)

async function userIdOf(email: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>('SELECT id FROM api.users WHERE email = $1', [email])
  return rows[0]!.id
}

/** The notices written for an account: the outbox row is written before the change answers. */
async function noticesOf(userId: string): Promise<number> {
  const { rows } = await stack.db.query<{ count: string | number }>(`SELECT count(*) AS count FROM bff.mail_outbox WHERE kind = 'securityNotice' AND user_id = $1`, [userId])
  return Number(rows[0]!.count)
}
const noticesFor = async (email: string) => noticesOf(await userIdOf(email))

/** The account's newest notice, once the mailbox has it (it leaves without the change waiting for it). */
async function newestNotice(email: string, subject: string): Promise<StoredMail> {
  await waitUntil(() => mailsTo(email).some((mail) => mail.subject === subject))
  return mailsTo(email).filter((mail) => mail.subject === subject).at(-1)!
}

const send = (tab: Tab, method: 'POST' | 'DELETE' | 'PATCH', url: string, payload?: unknown, headers?: Record<string, string>) => tab.send(method, url, payload, headers)

/** The language the user chooses on the profile. */
async function chooseLanguage(tab: Tab, language: string): Promise<void> {
  const answer = await send(tab, 'PATCH', '/api/user', { language })
  if (answer.statusCode !== 200) throw new Error(`no language: ${answer.body}`)
}

/** A confirmed authenticator (the account's first): its secret. */
const setUpTotp = async (tab: Tab, headers: Record<string, string> = {}) => (await confirmedAuthenticator(tab, 'Phone', headers, coreClock)).secret

/** What every notice says besides what changed, in English. */
function saysTheRest(t: Test, mail: StoredMail): void {
  t.match(mail.text, /^When: December 6, 2026 at 02:30 PM UTC$/m, 'when, in UTC')
  t.match(mail.text, /^Device: Firefox on Linux$/m, 'the device, read from the User-Agent')
  t.match(mail.text, new RegExp(`^IP address: ${IP.replace(/\./g, '\\.')}$`, 'm'), 'the IP')
  t.match(mail.text, FORGOT, 'the way to reset the password')
  t.match(mail.text, PROFILE, 'and to review devices and authenticators')
  t.match(mail.html, `href="${FORGOT}"`, 'a button to reset it')
}

t.test('an authenticator confirmed is told once, in the account\'s language; one only created or refused is not', async (t) => {
  const tab = await signedInTab(stack, 'added@example.com', PASSWORD, { 'accept-language': 'de' })
  t.equal((await tab.post('/auth/totp/device', { deviceName: 'Phone' }, FROM)).json().status, 'OK')
  t.equal(await noticesFor('added@example.com'), 0, 'a device set up but not confirmed adds nothing: no notice')
  const secret = base32Decode((await tab.post('/auth/totp/device', { deviceName: 'Phone' })).json().secret)
  const wrong = await tab.post('/auth/totp/device/verify', { deviceName: 'Phone', totp: coreClock.wrongTotp(secret) }, FROM)
  t.equal(wrong.json().status, 'INVALID_TOTP_ERROR')
  t.equal(await noticesFor('added@example.com'), 0, 'a wrong code: no notice')

  const verified = await tab.post('/auth/totp/device/verify', { deviceName: 'Phone', totp: coreClock.totp(secret) }, FROM)
  t.equal(verified.json().status, 'OK')
  t.equal(await noticesFor('added@example.com'), 1, 'confirmed: one notice')
  const again = await tab.post('/auth/totp/device/verify', { deviceName: 'Phone', totp: coreClock.totp(secret, 1) }, FROM)
  t.match(again.json(), { status: 'OK', wasAlreadyVerified: true })
  t.equal(await noticesFor('added@example.com'), 1, 'confirmed again: no second notice')

  const notice = await newestNotice('added@example.com', 'Ihrem Softshelf-Konto wurde eine Authenticator-App hinzugefügt')
  t.match(notice.text, /^Ihrem Softshelf-Konto wurde eine Authenticator-App hinzugefügt: /m, 'the first line says what changed')
  t.match(notice.text, /^Zeitpunkt: 6\. Dezember 2026 um 14:30 UTC$/m, 'when, in UTC, the German way')
  t.match(notice.text, /^Gerät: Firefox unter Linux$/m)
  t.match(notice.text, `IP-Adresse: ${IP}`)
  t.match(notice.text, FORGOT)
  t.match(notice.text, PROFILE)

  // A second authenticator, with a code of the first: told too.
  const tablet = await tab.post('/auth/totp/device', { deviceName: 'Tablet', totp: coreClock.totp(secret, 1) })
  t.equal(tablet.json().status, 'OK')
  const tabletSecret = base32Decode(tablet.json().secret)
  // Confirmed through the tenant's spelling of the path, which the SDK routes to the same API.
  t.equal((await tab.post('/auth/public/totp/device/verify?x=1', { deviceName: 'Tablet', totp: coreClock.totp(tabletSecret) }, FROM)).json().status, 'OK')
  t.equal(await noticesFor('added@example.com'), 2, 'the second authenticator: its own notice')
  await waitUntil(() => mailsTo('added@example.com').filter((mail) => mail.subject === 'Ihrem Softshelf-Konto wurde eine Authenticator-App hinzugefügt').length === 2)
})

t.test('an authenticator removed is told; a wrong code or a device gone already is not', async (t) => {
  const tab = await signedInTab(stack, 'removed@example.com')
  await chooseLanguage(tab, 'hu')
  const secret = await setUpTotp(tab)
  const before = await noticesFor('removed@example.com')
  t.equal(before, 1, 'the set-up was told')

  const wrong = await send(tab, 'DELETE', '/api/user/totp/devices/Phone', { totp: coreClock.wrongTotp(secret) }, FROM)
  t.ok(wrong.statusCode >= 400 && wrong.statusCode < 500, 'refused')
  t.equal(await noticesFor('removed@example.com'), before, 'a wrong code: no notice')
  // A code works once: the set-up spent this period's.
  const removed = await send(tab, 'DELETE', '/api/user/totp/devices/Phone', { totp: coreClock.totp(secret, 1) }, FROM)
  t.equal(removed.statusCode, 204)
  t.equal(await noticesFor('removed@example.com'), before + 1, 'removed: one notice')
  const gone = await send(tab, 'DELETE', '/api/user/totp/devices/Phone', { totp: coreClock.totp(secret, -1) }, FROM)
  t.equal(gone.statusCode, 404)
  t.equal(await noticesFor('removed@example.com'), before + 1, 'asked again: no second notice')

  const notice = await newestNotice('removed@example.com', 'Egy hitelesítő alkalmazást eltávolítottak Softshelf-fiókjából')
  t.match(notice.text, /^Egy hitelesítő alkalmazást eltávolítottak Softshelf-fiókjából: /m, 'in the language chosen on the profile')
  t.match(notice.text, /^Időpont: 2026\. december 6\. 14:30 UTC$/m)
  t.match(notice.text, /^Eszköz: Firefox – Linux$/m)
  t.match(notice.text, `IP-cím: ${IP}`)
  t.match(notice.text, FORGOT)
})

t.test('new recovery codes are told; a refused renewal is not', async (t) => {
  const tab = await signedInTab(stack, 'renewed@example.com')
  const secret = await setUpTotp(tab)
  const before = await noticesFor('renewed@example.com')

  const refused = await send(tab, 'POST', '/api/user/recovery-codes', { totp: coreClock.wrongTotp(secret) }, FROM)
  t.ok(refused.statusCode >= 400 && refused.statusCode < 500, 'a wrong code: refused')
  const none = await send(tab, 'POST', '/api/user/recovery-codes', {}, FROM)
  t.ok(none.statusCode >= 400 && none.statusCode < 500, 'no code: refused')
  t.equal(await noticesFor('renewed@example.com'), before, 'no proof, or a wrong code: no notice')
  const renewed = await send(tab, 'POST', '/api/user/recovery-codes', { totp: coreClock.totp(secret, 1) }, FROM)
  t.equal(renewed.statusCode, 200)
  t.equal(await noticesFor('renewed@example.com'), before + 1)

  const notice = await newestNotice('renewed@example.com', 'New recovery codes were made for your Softshelf account')
  t.match(notice.text, /^New recovery codes were made for your Softshelf account; the earlier ones no longer work\.$/m)
  saysTheRest(t, notice)
  t.notMatch(notice.text, renewed.json().codes[0], 'never the codes themselves')
})

t.test('a password change is told; a wrong current password is not', async (t) => {
  const tab = await signedInTab(stack, 'changed@example.com', PASSWORD, { 'accept-language': 'es' })
  const wrong = await tab.post('/api/user/password', { currentPassword: 'not the password', newPassword: 'a brand new password' }, FROM)
  t.ok(wrong.statusCode >= 400 && wrong.statusCode < 500, 'refused')
  t.equal(await noticesFor('changed@example.com'), 0, 'a wrong current password: no notice')
  const changed = await tab.post('/api/user/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' }, FROM)
  t.equal(changed.statusCode, 200)
  t.equal(await noticesFor('changed@example.com'), 1)
  const retried = await tab.post('/api/user/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' }, FROM)
  t.ok(retried.statusCode >= 400 && retried.statusCode < 500, 'the same change again: the old password is wrong now')
  t.equal(await noticesFor('changed@example.com'), 1, 'no second notice')

  const notice = await newestNotice('changed@example.com', 'Se ha cambiado tu contraseña de Softshelf')
  t.match(notice.text, /^Se ha cambiado la contraseña de tu cuenta de Softshelf/m)
  t.match(notice.text, /^Cuándo: 6 de diciembre de 2026 a las 14:30 UTC$/m)
  t.match(notice.text, /^Dispositivo: Firefox en Linux$/m)
  t.match(notice.text, `Dirección IP: ${IP}`)
  t.match(notice.text, FORGOT)
})

t.test('a password reset through the emailed link is told, once, in the account\'s language', async (t) => {
  await signedInTab(stack, 'reset@example.com', PASSWORD, { 'accept-language': 'sk' })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'reset@example.com' }] })).json().status, 'OK')
  const token = lastMailLink(stack, 'reset@example.com').searchParams.get('token')
  const weak = await tab.post('/auth/user/password/reset', { method: 'token', token, formFields: [{ id: 'password', value: 'short' }] }, FROM)
  t.equal(weak.json().status, 'FIELD_ERROR')
  t.equal(await noticesFor('reset@example.com'), 0, 'a refused new password: no notice')
  // In the account's language, not this browser's (English); the tenant's spelling of the path.
  const reset = await tab.post('/auth/public/user/password/reset/', { method: 'token', token, formFields: [{ id: 'password', value: 'a brand new password' }] }, FROM)
  t.equal(reset.json().status, 'OK')
  t.equal(await noticesFor('reset@example.com'), 1)
  const again = await tab.post('/auth/user/password/reset', { method: 'token', token, formFields: [{ id: 'password', value: 'yet another password' }] }, FROM)
  t.equal(again.json().status, 'RESET_PASSWORD_INVALID_TOKEN_ERROR')
  t.equal(await noticesFor('reset@example.com'), 1, 'the spent link resets nothing: no second notice')

  const notice = await newestNotice('reset@example.com', 'Vaše heslo do Softshelf bolo obnovené')
  t.match(notice.text, /^Heslo vášho účtu Softshelf bolo obnovené/m)
  t.match(notice.text, /^Kedy: 6\. decembra 2026 o 14:30 UTC$/m)
  t.match(notice.text, /^Zariadenie: Firefox – Linux$/m)
  t.match(notice.text, `IP adresa: ${IP}`)
  t.match(notice.text, FORGOT)
})

t.test('a language chosen on the profile is the reset notice\'s language at once, before any other sign-in (no seam)', async (t) => {
  const tab = await signedInTab(stack, 'polyglot@example.com')
  await chooseLanguage(tab, 'pl')
  // The profile's path with a query, as the API's router also takes it: the language follows.
  await chooseLanguage(tab, 'de')
  const again = await send(tab, 'PATCH', '/api/user?from=profile', { language: 'pl' })
  t.equal(again.statusCode, 200)
  // Signed out, from an English browser: the reset's notice is in the language the profile says.
  const stranger = browser(stack.bff)
  t.equal((await stranger.post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'polyglot@example.com' }] })).json().status, 'OK')
  const token = lastMailLink(stack, 'polyglot@example.com').searchParams.get('token')
  t.equal((await stranger.post('/auth/user/password/reset', { method: 'token', token, formFields: [{ id: 'password', value: 'a brand new password' }] }, FROM)).json().status, 'OK')
  const notice = await newestNotice('polyglot@example.com', 'Twoje hasło w Softshelf zostało zresetowane')
  t.match(notice.text, /^Urządzenie: Firefox/m)
})

t.test('an email change is told to the old address, as every other change is', async (t) => {
  const tab = await signedInTab(stack, 'moving@example.com')
  const userId = await userIdOf('moving@example.com')
  t.ok((await tab.post('/api/user/email', { newEmail: 'moved@example.com', currentPassword: 'wrong password' })).statusCode >= 400, 'a wrong password: refused')
  t.equal((await tab.post('/api/user/email', { newEmail: 'moved@example.com', currentPassword: PASSWORD })).statusCode, 202)
  t.equal(await noticesOf(userId), 0, 'asked, not made: no notice')
  const token = lastMailLink(stack, 'moved@example.com').searchParams.get('token')
  t.equal((await tab.post('/api/user/email/confirm', { token }, FROM)).statusCode, 200)
  t.equal((await tab.post('/api/user/email/confirm', { token }, FROM)).statusCode, 400, 'the link works once')
  t.equal(await noticesOf(userId), 1, 'one notice')

  const notice = await newestNotice('moving@example.com', 'The email address of your Softshelf account was changed')
  t.match(notice.text, /^The email address of your Softshelf account was changed from moving@example\.com to m\*\*\*@example\.com\./m)
  saysTheRest(t, notice)
  t.equal(mailsTo('moved@example.com').filter((mail) => mail.subject.includes('was changed')).length, 0, 'the new address, which made it, is not told')
})

t.test('signing out another device, or all of them, is told; nothing to sign out tells nothing', async (t) => {
  const tab = await signedInTab(stack, 'devices@example.com', PASSWORD, { 'accept-language': 'pl' })
  const signIn = async () => {
    const other = browser(stack.bff)
    if ((await other.post('/auth/signin', credentials('devices@example.com'))).json().status !== 'OK') throw new Error('no sign-in')
  }
  await signIn()
  await signIn()
  const sessions = (await tab.get('/api/user/sessions')).json() as Array<{ handle: string; current: boolean }>
  const [first, second] = sessions.filter((session) => !session.current)
  t.ok(first && second)

  t.equal((await tab.delete('/api/user/sessions/not-a-handle', FROM)).statusCode, 404)
  t.equal(await noticesFor('devices@example.com'), 0, 'no such session: no notice')
  t.equal((await tab.delete(`/api/user/sessions/${first!.handle}`, FROM)).statusCode, 204)
  t.equal(await noticesFor('devices@example.com'), 1, 'one device signed out: one notice')
  t.equal((await tab.delete(`/api/user/sessions/${first!.handle}`, FROM)).statusCode, 404)
  t.equal(await noticesFor('devices@example.com'), 1, 'the same again: no second notice')
  const one = await newestNotice('devices@example.com', 'Jedno z Twoich urządzeń zostało wylogowane z Softshelf')
  t.match(one.text, /^Jedno z urządzeń zalogowanych do Twojego konta w Softshelf zostało wylogowane\.$/m)
  t.match(one.text, /^Kiedy: 6 grudnia 2026 14:30 UTC$/m)
  t.match(one.text, /^Urządzenie: Firefox – Linux$/m)
  t.match(one.text, `Adres IP: ${IP}`)
  t.match(one.text, FORGOT)

  t.match((await tab.delete('/api/user/sessions', FROM)).json(), { sessionsEnded: 1 })
  t.equal(await noticesFor('devices@example.com'), 2, 'all the others: one notice')
  t.match((await tab.delete('/api/user/sessions', FROM)).json(), { sessionsEnded: 0 })
  t.equal(await noticesFor('devices@example.com'), 2, 'none left to sign out: no notice')
  const all = await newestNotice('devices@example.com', 'Wszystkie Twoje pozostałe urządzenia zostały wylogowane z Softshelf')
  t.match(all.text, /^Wszystkie urządzenia zalogowane do Twojego konta w Softshelf/m)
  t.match(all.text, FORGOT)
})

// The language chosen in the header of a signed-in user changed only the `lang` cookie —
// the profile kept the old language, and the mails and the next sign-in followed the profile or
// the cookie, whichever they read. The header's choice (PUT /api/user/language) is the account's.
t.test('the header\'s language choice of a signed-in user is the account\'s: profile, notices and the next sign-in (issue 27)', async (t) => {
  const tab = await signedInTab(stack, 'header@example.com', PASSWORD, { 'accept-language': 'en' })
  const langCookie = (response: { cookies: Array<{ name: string; value: string; maxAge?: number; path?: string }> }) => response.cookies.find((cookie) => cookie.name === 'lang')
  const chosen = await tab.put('/api/user/language', { language: 'hu' })
  t.equal(chosen.statusCode, 200)
  t.same(chosen.json(), { language: 'hu', account: true })
  t.match(langCookie(chosen), { value: 'hu', path: '/', maxAge: 365 * 24 * 3600 }, 'the browser renders in it from now on')
  t.equal(chosen.headers['cache-control'], 'no-store')
  t.match((await tab.get('/api/user')).json(), { language: 'hu', languageChosen: true }, 'the profile shows it')

  // A notice, asked from an English browser, is in the account's language.
  const withoutLang = tab.jar.header('/api/user/password').split('; ').filter((pair) => !pair.startsWith('lang=')).join('; ')
  t.equal((await send(tab, 'POST', '/api/user/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' }, { ...FROM, 'accept-language': 'en', cookie: withoutLang })).statusCode, 200)
  const notice = await newestNotice('header@example.com', 'Softshelf-jelszava megváltozott')
  t.match(notice.text, /^Eszköz: Firefox/m)

  // Another device, English, no cookie: the sign-in sets the account's language.
  const other = browser(stack.bff)
  const signIn = await other.post('/auth/signin', credentials('header@example.com', 'a brand new password'), { 'accept-language': 'en' })
  t.equal(signIn.json().status, 'OK')
  t.equal(langCookie(signIn)?.value, 'hu', 'every later sign-in applies it')

  // A reset link asked from a stranger's English browser, without a session: the account's language too.
  const stranger = browser(stack.bff)
  t.equal((await stranger.post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'header@example.com' }] }, { 'accept-language': 'en' })).json().status, 'OK')
  const resetMail = await newestNotice('header@example.com', 'Softshelf-jelszó visszaállítása')
  t.match(resetMail.text, /Új jelszó megadása/, 'the reset link is in the account\'s language, not the browser\'s')
})

t.test('PUT /api/user/language: a visitor\'s choice is the browser\'s; a bad one, a forged one, or one the account cannot take changes nothing (issue 27)', async (t) => {
  const visitor = browser(stack.bff)
  const plain = await visitor.put('/api/user/language', { language: 'de' })
  t.equal(plain.statusCode, 200)
  t.same(plain.json(), { language: 'de', account: false })
  t.equal(plain.cookies.find((cookie) => cookie.name === 'lang')?.value, 'de')

  const bad = await visitor.put('/api/user/language', { language: 'xx' })
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().code, 'BFF_VALIDATION_FAILED')
  const forged = await stack.bff.inject({ method: 'PUT', url: '/api/user/language', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, payload: { language: 'pl' } })
  t.ok([401, 403].includes(forged.statusCode), 'no rid header and a foreign origin: refused')
  t.notOk(forged.cookies.some((cookie) => cookie.name === 'lang'))

  // Signed up, email not verified yet: no profile to save to; the choice is the browser's.
  const unverified = browser(stack.bff)
  t.equal((await unverified.post('/auth/signup', credentials('unverified-lang@example.com'))).json().status, 'OK')
  const early = await unverified.put('/api/user/language', { language: 'cs' })
  t.equal(early.statusCode, 200)
  t.same(early.json(), { language: 'cs', account: false })

  // The product API cannot take it (here: its record is gone): said, and the cookie stays.
  const tab = await signedInTab(stack, 'unsaved-lang@example.com')
  await stack.db.query('DELETE FROM api.users WHERE id = $1', [await userIdOf('unsaved-lang@example.com')])
  const refused = await tab.put('/api/user/language', { language: 'ro' })
  t.equal(refused.statusCode, 503)
  t.match(refused.json(), { statusCode: 503, code: 'BFF_LANGUAGE_NOT_SAVED', message: /could not be saved to your account/ })
  t.notOk(refused.cookies.some((cookie) => cookie.name === 'lang'), 'not saved: not switched either')
})

t.test('a mail server that is down does not turn the change into an error: the notice waits in the outbox', async (t) => {
  const smtp = await startSmtpServer(t)
  await smtp.stop()
  let now = clock
  const down = await buildStack(t, { auth: true, now: () => now, env: { SMTP_URL: smtp.url, AUTH_RATE_LIMIT_MAX: '1000' } })
  // Signed up while mail is down: the verification link is read from the outbox's row.
  const tab = browser(down.bff)
  t.equal((await tab.post('/auth/signup', credentials('outage@example.com'))).json().status, 'OK')
  await smtp.start()
  now += MAIL_RETRY_BASE_MS * 2
  await down.bff.mailOutbox.tick()
  await waitUntil(() => smtp.received.length === 1)
  const link = new URL(/https?:\/\/\S+/.exec(decodeQuotedPrintable(smtp.received[0]!.raw))![0])
  t.equal((await tab.post('/auth/user/email/verify', { method: 'token', token: link.searchParams.get('token') })).json().status, 'OK')
  t.equal((await tab.post('/api/user/accept-tos', { isInMailList: false })).statusCode, 200)

  await smtp.stop()
  const changed = await tab.post('/api/user/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' }, FROM)
  t.equal(changed.statusCode, 200, 'the password is changed')
  t.same(changed.json(), { status: 'OK', sessionsEnded: 0 })
  // Its first try, which the answer did not wait for, fails.
  await waitUntil(async () => (await down.db.query<{ last_error: string | null }>(`SELECT last_error FROM bff.mail_outbox WHERE kind = 'securityNotice'`)).rows[0]?.last_error != null)
  const { rows } = await down.db.query<{ status: string }>(`SELECT status FROM bff.mail_outbox WHERE kind = 'securityNotice'`)
  t.same(rows.map((row) => row.status), ['queued'], 'the notice waits')

  await smtp.start()
  now += MAIL_RETRY_BASE_MS * 2
  await down.bff.mailOutbox.tick()
  await waitUntil(() => smtp.received.length === 2)
  const notice = decodeQuotedPrintable(smtp.received[1]!.raw)
  t.same(smtp.received[1]!.to, ['outage@example.com'])
  t.match(notice, 'Your Softshelf password was changed', 'sent once the server answers')
  t.match(notice, 'Firefox on Linux')
  t.match(notice, FORGOT)
})
