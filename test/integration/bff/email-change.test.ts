import t from 'tap'
import { browser, buildStack, lastMailLink, mailsIn, signedInTab, waitUntil, credentials } from '../../helpers.ts'
import { startOidcProvider } from '../../oidc-provider.ts'

// Changing the account's email: the current password asked and counted like a sign-in;
// the new address validated like the sign-up's, not the current one, not another account's; the
// account keeps its email until the link mailed to the new address is opened — once, within 24 h
// (the BFF's clock is stepped past the edge here); a newer request replaces the older and its link;
// on confirmation the old address is told (the new one masked), the sessions go on and take the new
// email, the product API's copy follows, and login-attempt blocking follows the account.

const PASSWORD = 'correct horse battery'
const REDIRECT = 'http://localhost:3000/auth-callback/oidc'
const DAY_MS = 24 * 60 * 60_000

const idp = await startOidcProvider(t, REDIRECT)
let clock = Date.now()
const stack = await buildStack(t, {
  auth: true,
  now: () => clock,
  env: { AUTH_RATE_LIMIT_MAX: '1000', OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, CONTACT_EMAIL: 'help@softshelf.test' },
})

type Tab = ReturnType<typeof browser>
const signIn = async (email: string, password = PASSWORD) => (await browser(stack.bff).post('/auth/signin', credentials(email, password))).json().status as string
const change = (tab: Tab, newEmail: unknown, currentPassword: unknown = PASSWORD, headers: Record<string, string> = {}) => tab.post('/api/user/email', { newEmail, currentPassword }, headers)
const confirm = (tab: Tab, token: string | null) => tab.post('/api/user/email/confirm', { token })

const mailsTo = (to: string) => mailsIn(stack.config.dataDir, to)
const linkToken = (to: string) => lastMailLink(stack, to).searchParams.get('token')
const tokenEmail = (tab: Tab) => (JSON.parse(Buffer.from(tab.jar.get('sAccessToken')!.split('.')[1]!, 'base64url').toString('utf8')) as { email?: string }).email

t.test('the email changes only once the link sent to the new address is opened', async (t) => {
  const tab = await signedInTab(stack, 'old@example.com')
  const elsewhere = browser(stack.bff)
  t.equal((await elsewhere.post('/auth/signin', credentials('old@example.com'))).json().status, 'OK', 'a second device')

  t.same((await tab.get('/api/user/email')).json(), { email: 'old@example.com', pendingEmail: null, expiresAt: null })
  const asked = await change(tab, '  New@Example.com ')
  t.equal(asked.statusCode, 202, asked.body)
  t.same(asked.json(), { pendingEmail: 'new@example.com', expiresAt: new Date(clock + DAY_MS).toISOString() }, 'trimmed and lowercased, valid for 24 hours')
  t.equal(asked.headers['cache-control'], 'no-store')
  t.same((await tab.get('/api/user/email')).json(), { email: 'old@example.com', pendingEmail: 'new@example.com', expiresAt: new Date(clock + DAY_MS).toISOString() })

  const [linkMail] = mailsTo('new@example.com')
  t.equal(linkMail?.subject, 'Confirm your new email address for Softshelf')
  const link = lastMailLink(stack, 'new@example.com')
  t.equal(`${link.origin}${link.pathname}`, 'http://localhost:3000/confirm-email', 'the link opens the confirmation page')
  t.equal(mailsTo('old@example.com').length, 1, 'the old address has only had its verification mail so far')

  t.equal(await signIn('new@example.com'), 'WRONG_CREDENTIALS_ERROR', 'before the link: the new address signs nobody in')
  t.equal(await signIn('old@example.com'), 'OK', 'and the old one still does')
  t.match((await tab.get('/api/user')).json(), { email: 'old@example.com' })

  const done = await confirm(tab, link.searchParams.get('token'))
  t.equal(done.statusCode, 200, done.body)
  t.same(done.json(), { status: 'OK', email: 'new@example.com' })
  t.equal(done.headers['cache-control'], 'no-store')

  t.equal(tokenEmail(tab), 'new@example.com', 'this browser\'s token carries the new email at once')
  t.match((await tab.get('/api/user')).json(), { email: 'new@example.com' }, 'the product API has the new email')
  t.same((await tab.get('/api/user/email')).json(), { email: 'new@example.com', pendingEmail: null, expiresAt: null })
  t.equal(await signIn('old@example.com'), 'WRONG_CREDENTIALS_ERROR', 'the old address signs nobody in')
  const fresh = browser(stack.bff)
  t.equal((await fresh.post('/auth/signin', credentials('new@example.com'))).json().status, 'OK', 'the new one does')
  t.equal((await fresh.get('/api/user')).statusCode, 200, 'and its session is fully signed in: the new address counts as verified')

  // The notice leaves without the answer waiting for the mail server.
  await waitUntil(() => mailsTo('old@example.com').length === 2)
  const notices = mailsTo('old@example.com')
  t.equal(notices.length, 2, 'the old address is told')
  const notice = notices.at(-1)!
  t.equal(notice.subject, 'The email address of your Softshelf account was changed')
  t.match(notice.text, 'n***@example.com', 'the new address, masked')
  t.notMatch(notice.text, 'new@example.com', 'never in full')
  t.match(notice.text, 'help@softshelf.test', 'with whom to write to')
  t.match(notice.text, /^When: .+ UTC$/m, 'when, in UTC')
  t.match(notice.text, /^IP address: /m, 'from where')
  t.match(notice.text, 'http://localhost:3000/forgot-password', 'and what to do then, as every security notice says')

  const again = await confirm(browser(stack.bff), link.searchParams.get('token'))
  t.equal(again.statusCode, 400, 'the link works once')
  t.equal(again.json().code, 'BFF_EMAIL_LINK_INVALID')

  // The other device was not signed out (the password did not change); its next token carries the new email.
  t.match((await elsewhere.get('/api/user')).json(), { email: 'new@example.com' }, 'its older token does not take the product API back to the old email')
  t.equal((await elsewhere.post('/auth/session/refresh')).statusCode, 200, 'the other session goes on')
  t.equal(tokenEmail(elsewhere), 'new@example.com')
})

t.test('a link opened in another browser: the signed-in sessions take the new email at their refresh', async (t) => {
  const tab = await signedInTab(stack, 'away@example.com')
  t.equal((await change(tab, 'phone@example.com')).statusCode, 202)
  const phone = browser(stack.bff)
  const done = await confirm(phone, linkToken('phone@example.com'))
  t.equal(done.statusCode, 200, done.body)
  t.notOk(phone.jar.get('sAccessToken'), 'the link signs nobody in')
  t.equal((await tab.post('/auth/session/refresh')).statusCode, 200)
  t.equal(tokenEmail(tab), 'phone@example.com')
  t.match((await tab.get('/api/user')).json(), { email: 'phone@example.com' }, 'the product API follows the first token that shows the new email')
  t.equal((await tab.get('/@/my-profile')).statusCode, 200, 'the profile page still opens: the session is not held as unverified')
})

t.test('a wrong current password is refused and counted like a failed sign-in', async (t) => {
  const tab = await signedInTab(stack, 'guess@example.com')
  const wrong = await change(tab, 'guessed@example.com', 'not the password')
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().code, 'BFF_WRONG_PASSWORD')
  t.match((await tab.get('/api/login-attempts/check-block-status?email=guess@example.com')).json(), { attemptsRemaining: 4 })
  t.equal((await change(tab, 'guessed@example.com', '')).json().code, 'BFF_WRONG_PASSWORD', 'no password: refused')

  const answers: number[] = []
  for (let i = 0; i < 4; i++) answers.push((await change(tab, 'guessed@example.com', `guess ${i}`)).statusCode)
  t.same(answers, [400, 400, 400, 429], 'the attempt that reaches the limit is refused as blocked')
  const right = await change(tab, 'guessed@example.com')
  t.equal(right.statusCode, 429, 'while blocked the right password is refused too')
  t.equal(right.json().code, 'BFF_EMAIL_CHANGE_BLOCKED')
  t.ok(Number(right.headers['retry-after']) > 0)
  t.equal(mailsTo('guessed@example.com').length, 0, 'no link went out')
  t.same((await tab.get('/api/user/email')).json(), { email: 'guess@example.com', pendingEmail: null, expiresAt: null })
})

t.test('invalid addresses, the current one and another account\'s are refused', async (t) => {
  const tab = await signedInTab(stack, 'picky@example.com')
  await signedInTab(stack, 'taken@example.com')
  for (const bad of ['not an email', 'nobody@localhost', 'a b@example.com', 'two@@example.com', 'x@example.c', `${'x'.repeat(250)}@example.com`, 42, null]) {
    const refused = await change(tab, bad)
    t.equal(refused.statusCode, 400, JSON.stringify(bad))
    t.equal(refused.json().code, 'BFF_EMAIL_INVALID', JSON.stringify(bad))
  }
  const same = await change(tab, ' PICKY@example.com')
  t.equal(same.statusCode, 400)
  t.equal(same.json().code, 'BFF_EMAIL_UNCHANGED')
  const taken = await change(tab, 'Taken@Example.com')
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().code, 'BFF_EMAIL_TAKEN')
  t.same((await tab.get('/api/user/email')).json(), { email: 'picky@example.com', pendingEmail: null, expiresAt: null }, 'nothing waits')
  t.equal(mailsTo('taken@example.com').length, 1, 'the other account got no mail from this')
})

t.test('a newer request replaces the older; resend, cancel, and a link past its 24 hours', async (t) => {
  const tab = await signedInTab(stack, 'fickle@example.com')
  t.equal((await change(tab, 'first@example.com')).statusCode, 202)
  const first = linkToken('first@example.com')
  t.equal((await change(tab, 'second@example.com')).statusCode, 202)
  const second = linkToken('second@example.com')
  t.equal((await confirm(browser(stack.bff), first)).json().code, 'BFF_EMAIL_LINK_INVALID', 'the first link died with its request')
  t.match((await tab.get('/api/user/email')).json(), { pendingEmail: 'second@example.com' })

  clock += 60_000
  const resent = await tab.post('/api/user/email/resend')
  t.equal(resent.statusCode, 202)
  t.same(resent.json(), { pendingEmail: 'second@example.com', expiresAt: new Date(clock + DAY_MS).toISOString() }, 'a new link, valid from now')
  const third = linkToken('second@example.com')
  t.not(third, second)
  t.equal((await confirm(browser(stack.bff), second)).json().code, 'BFF_EMAIL_LINK_INVALID', 'the link before the resend no longer works')

  clock += DAY_MS + 1_000
  t.same((await tab.get('/api/user/email')).json(), { email: 'fickle@example.com', pendingEmail: null, expiresAt: null }, 'an expired change is not shown')
  for (let i = 0; i < 2; i++) {
    const late = await confirm(browser(stack.bff), third)
    t.equal(late.statusCode, 400)
    t.equal(late.json().code, 'BFF_EMAIL_LINK_EXPIRED', 'past 24 hours the link is expired, each time it is opened')
  }
  t.equal(await signIn('second@example.com'), 'WRONG_CREDENTIALS_ERROR', 'the email did not change')
  const nothing = await tab.post('/api/user/email/resend')
  t.equal(nothing.statusCode, 404)
  t.equal(nothing.json().code, 'BFF_NO_PENDING_EMAIL')

  t.equal((await change(tab, 'third@example.com')).statusCode, 202)
  const cancelled = await tab.delete('/api/user/email/pending')
  t.equal(cancelled.statusCode, 204)
  t.same((await tab.get('/api/user/email')).json(), { email: 'fickle@example.com', pendingEmail: null, expiresAt: null })
  t.equal((await confirm(browser(stack.bff), linkToken('third@example.com'))).json().code, 'BFF_EMAIL_LINK_INVALID', 'a cancelled change cannot be confirmed')
  for (const token of [null, '', 'x'.repeat(43), 'short', { token: 'x' }]) {
    const refused = await tab.post('/api/user/email/confirm', { token })
    t.equal(refused.json().code, 'BFF_EMAIL_LINK_INVALID', JSON.stringify(token))
  }
})

t.test('a block against the old address follows the account to the new one', async (t) => {
  const tab = await signedInTab(stack, 'hunted@example.com')
  t.equal((await change(tab, 'moved@example.com')).statusCode, 202)
  for (let i = 0; i < 5; i++) await browser(stack.bff).post('/auth/signin', credentials('hunted@example.com', `guess ${i}`))
  t.match((await tab.get('/api/login-attempts/check-block-status?email=hunted@example.com')).json(), { blocked: true })
  t.equal((await confirm(browser(stack.bff), linkToken('moved@example.com'))).statusCode, 200)
  t.match((await tab.get('/api/login-attempts/check-block-status?email=moved@example.com')).json(), { blocked: true }, 'the new address is blocked as the old one was')
  const blocked = await browser(stack.bff).post('/auth/signin', credentials('moved@example.com'))
  t.equal(blocked.statusCode, 429, 'the right password at the new address waits for the block to end')
})

t.test('the link speaks the language of the request, the notice the account\'s', async (t) => {
  const tab = await signedInTab(stack, 'sprache@example.com', PASSWORD, { 'accept-language': 'hu' })
  t.equal((await change(tab, 'neu@example.com', PASSWORD, { 'accept-language': 'de' })).statusCode, 202)
  t.equal(mailsTo('neu@example.com').at(-1)?.subject, 'Bestätigen Sie Ihre neue E-Mail-Adresse für Softshelf')
  t.equal((await confirm(browser(stack.bff), linkToken('neu@example.com'))).statusCode, 200)
  await waitUntil(() => mailsTo('sprache@example.com').length === 2)
  const notice = mailsTo('sprache@example.com').at(-1)!
  t.equal(notice.subject, 'Softshelf-fiókja e-mail-címe megváltozott', 'the notice in the account\'s language (of its sign-up), whoever opened the link')
  t.match(notice.text, 'n***@example.com')
})

t.test('writes need the anti-forgery header and a full session', async (t) => {
  const tab = await signedInTab(stack, 'forged@example.com')
  const cookie = tab.jar.header('/api/user/email')
  const body = JSON.stringify({ newEmail: 'mallory@example.com', currentPassword: PASSWORD })
  const noHeader = await stack.bff.inject({ method: 'POST', url: '/api/user/email', headers: { cookie, 'content-type': 'application/json' }, payload: body })
  t.equal(noHeader.statusCode, 403, 'no custom header')
  t.equal(noHeader.json().code, 'BFF_CSRF_REJECTED')
  const asForm = await stack.bff.inject({ method: 'POST', url: '/api/user/email', headers: { cookie, rid: 'anti-csrf', 'content-type': 'text/plain' }, payload: body })
  t.equal(asForm.statusCode, 403, 'a simple form post')
  const foreign = await stack.bff.inject({ method: 'POST', url: '/api/user/email', headers: { cookie, rid: 'anti-csrf', origin: 'https://evil.example', 'content-type': 'application/json' }, payload: body })
  t.equal(foreign.statusCode, 403, 'a foreign origin')
  t.equal(mailsTo('mallory@example.com').length, 0)
  t.same((await tab.get('/api/user/email')).json(), { email: 'forged@example.com', pendingEmail: null, expiresAt: null }, 'nothing changed')

  t.equal((await change(tab, 'real@example.com')).statusCode, 202)
  const token = linkToken('real@example.com')
  const forgedConfirm = await stack.bff.inject({ method: 'POST', url: '/api/user/email/confirm', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token }) })
  t.equal(forgedConfirm.statusCode, 403, 'the confirmation needs the header too')
  const forgedCancel = await stack.bff.inject({ method: 'DELETE', url: '/api/user/email/pending', headers: { cookie } })
  t.equal(forgedCancel.statusCode, 403)
  t.match((await tab.get('/api/user/email')).json(), { pendingEmail: 'real@example.com' }, 'still waiting')

  const visitor = browser(stack.bff)
  t.equal((await change(visitor, 'x@example.com')).statusCode, 401, 'no session: the SDK\'s 401')
  t.equal((await visitor.get('/api/user/email')).statusCode, 401)
  const unverified = browser(stack.bff)
  await unverified.post('/auth/signup', credentials('early-bird@example.com'))
  t.equal((await change(unverified, 'x@example.com')).statusCode, 403, 'an unverified email is a failed claim')
})

t.test('an account that signs in with an external provider has no password to confirm with', async (t) => {
  const tab = browser(stack.bff)
  const authorise = (await tab.get(`/auth/authorisationurl?thirdPartyId=oidc&redirectURIOnProviderDashboard=${encodeURIComponent(REDIRECT)}`)).json()
  const back = await idp.signIn(authorise.urlWithQueryParams as string, 'outsider@example.com')
  const signedIn = await tab.post('/auth/signinup', {
    thirdPartyId: 'oidc',
    clientType: 'web',
    redirectURIInfo: { redirectURIOnProviderDashboard: REDIRECT, redirectURIQueryParams: Object.fromEntries(back.searchParams), pkceCodeVerifier: authorise.pkceCodeVerifier },
  })
  t.equal(signedIn.json().status, 'OK')
  t.same((await tab.get('/api/user/email')).json(), { email: 'outsider@example.com', pendingEmail: null, expiresAt: null })
  const refused = await change(tab, 'inside@example.com', 'any password at all')
  t.equal(refused.statusCode, 400)
  t.equal(refused.json().code, 'BFF_NO_PASSWORD')
})
