import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { base32Decode } from '../../../server/authcore/totp.ts'
import { browser, buildStack, CookieJar, isHtmlPage, lastMailLink, postForm, signedInTab, testIdText, TestClock, visible, type Stack } from '../../helpers.ts'

// Decision 025: the account forms sent before their page's script runs — an
// urlencoded post to the page's own address. The BFF answers through the same /auth and /api
// routes the script calls, with a 303 or the page rendered with the outcome; never a JSON body.
// Another site's form is refused. Item 3: the target (?redirectToPath=, &action=add) is followed
// only on this site, and the pending add runs once every account step is done.

const PASSWORD = 'correct horse battery'

t.test('the login form without script: an error in the page, the session and the target on success', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  await signedInTab(stack, 'ada@example.com')

  const empty = await postForm(stack, '/login', { email: '', password: '' }, { headers: { cookie: 'lang=de' } })
  t.equal(empty.statusCode, 400)
  isHtmlPage(t, empty, 'empty fields')
  t.match(empty.body, /class="field-error">Bitte geben Sie Ihre E-Mail-Adresse ein\.</, 'the SDK\'s "Field is not optional", in German')
  t.notMatch(visible(empty.body), 'Field is not optional')

  const wrong = await postForm(stack, '/login', { email: 'ada@example.com', password: 'not the password' })
  t.equal(wrong.statusCode, 401)
  isHtmlPage(t, wrong, 'a wrong password')
  t.equal(testIdText(wrong.body, 'login-error'), 'The email or password is not correct.')
  t.match(wrong.body, /value="ada@example.com"/, 'the email is kept in the form')
  t.notMatch(wrong.body, 'not the password', 'the password is not')
  t.notOk(wrong.headers['set-cookie'], 'no session')
  t.equal(wrong.headers['cache-control'], 'no-store')

  const jar = new CookieJar()
  const right = await postForm(stack, '/login?redirectToPath=%2F%40%2Fprograms%2Fblender', { email: 'ada@example.com', password: PASSWORD }, { jar })
  t.equal(right.statusCode, 303)
  t.equal(right.headers.location, '/@/programs/blender')
  t.ok(jar.get('sAccessToken'), 'the session\'s cookies')
  t.ok(jar.get('sFrontToken'), 'and the front token the browser SDK reads, written by the BFF')
  const page = await stack.bff.inject({ method: 'GET', url: '/@/programs/blender', headers: { cookie: jar.header('/@/programs/blender') } })
  t.equal(page.statusCode, 200, 'the target opens signed in')
})

t.test('a pending add runs once every account step is done, and only then', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const target = '/login?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add'
  const library = async (jar: CookieJar) => ((await stack.bff.inject({ method: 'GET', url: '/api/user/program-ids', headers: { cookie: jar.header('/api') } })).json() as { programIds: string[] }).programIds

  await t.test('a ready account: in the library when the page opens', async (t) => {
    await signedInTab(stack, 'ready@example.com')
    const jar = new CookieJar()
    const login = await postForm(stack, target, { email: 'ready@example.com', password: PASSWORD }, { jar })
    t.equal(login.headers.location, '/@/programs/blender')
    t.same(await library(jar), ['blender'])
  })

  await t.test('terms not yet accepted: the terms first, carrying the add; the add after them', async (t) => {
    const tab = browser(stack.bff)
    await tab.post('/auth/signup', { formFields: [{ id: 'email', value: 'new@example.com' }, { id: 'password', value: PASSWORD }] })
    await tab.post('/auth/user/email/verify', { method: 'token', token: lastMailLink(stack, 'new@example.com').searchParams.get('token') })
    const jar = new CookieJar()
    const login = await postForm(stack, target, { email: 'new@example.com', password: PASSWORD }, { jar })
    t.equal(login.statusCode, 303)
    t.equal(login.headers.location, '/tos?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add')
    t.same(await library(jar), [], 'nothing added before the terms')
    const terms = await postForm(stack, login.headers.location as string, { isInMailList: 'on' }, { jar })
    t.equal(terms.statusCode, 303)
    t.equal(terms.headers.location, '/@/programs/blender')
    t.same(await library(jar), ['blender'])
    t.match((await stack.bff.inject({ method: 'GET', url: '/api/user', headers: { cookie: jar.header('/api') } })).json(), { isTosAccepted: true, isInMailList: true })
  })

  await t.test('the add is only for the program page the target names', async (t) => {
    await signedInTab(stack, 'other@example.com')
    const jar = new CookieJar()
    const login = await postForm(stack, '/login?redirectToPath=%2F%40%2Fmy-profile&action=add', { email: 'other@example.com', password: PASSWORD }, { jar })
    t.equal(login.headers.location, '/@/my-profile')
    t.same(await library(jar), [])
  })
})

t.test('the target is a path on this site, whatever its spelling; anything else is the signed-in home', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  await signedInTab(stack, 'eve@example.com')
  const spellings = [
    '//evil.com',
    '/\\evil.com',
    '\\\\evil.com',
    'https://evil.com',
    'http:evil.com',
    '/%2F/evil.com',
    '%2F%2Fevil.com',
    '/%252F%252Fevil.com',
    '\t//evil.com',
    '/\t/evil.com',
    '/%09/evil.com',
    '/\n/evil.com',
    '/%5Cevil.com',
    '/%255Cevil.com',
    '/..//evil.com',
    '/%2e%2e//evil.com',
    'javascript:alert(1)',
    ' /@/library',
    '/api/user',
    '/AUTH/signout',
  ]
  for (const spelling of spellings) {
    const login = await postForm(stack, `/login?redirectToPath=${encodeURIComponent(spelling)}`, { email: 'eve@example.com', password: PASSWORD })
    t.equal(login.headers.location, '/@', JSON.stringify(spelling))
  }
  const kept = await postForm(stack, `/login?redirectToPath=${encodeURIComponent('/@/programs?q=100%25&sort=nameAsc')}`, { email: 'eve@example.com', password: PASSWORD })
  t.equal(kept.headers.location, '/@/programs?q=100%25&sort=nameAsc', 'a path with its query is kept as it is')
})

t.test('login-attempt blocking applies to the form exactly as to the script\'s call', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  await signedInTab(stack, 'mallory@example.com')
  const texts: Array<string | undefined> = []
  for (let i = 0; i < 5; i++) {
    const answer = await postForm(stack, '/login', { email: 'Mallory@Example.com ', password: `wrong ${i}` })
    texts.push(testIdText(answer.body, 'login-warning') ?? testIdText(answer.body, 'login-blocked') ?? testIdText(answer.body, 'login-error'))
    if (i === 4) t.equal(answer.statusCode, 429, 'the fifth failure blocks')
  }
  t.match(texts[2], /^2 attempts remaining/)
  t.match(texts[3], /^1 attempt remaining/)
  t.match(texts[4], /Your account is locked until/)
  const script = await browser(stack.bff).post('/auth/signin', { formFields: [{ id: 'email', value: 'mallory@example.com' }, { id: 'password', value: PASSWORD }] })
  t.equal(script.statusCode, 429, 'the script\'s call is blocked by the form\'s failures, the right password too')
  t.equal(script.json().status, 'ACCOUNT_BLOCKED')
  const form = await postForm(stack, '/login', { email: 'mallory@example.com', password: PASSWORD })
  t.equal(form.statusCode, 429)
  t.notOk(form.headers['set-cookie'])
})

t.test('another site\'s form is refused, with a page, and changes nothing', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  await signedInTab(stack, 'victim@example.com')
  const forged = [
    { name: 'a foreign Origin', headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } },
    { name: 'a foreign Origin without fetch metadata', headers: { origin: 'https://evil.example', 'sec-fetch-site': undefined } },
    { name: 'a sibling site', headers: { origin: 'http://evil.localhost:3000', 'sec-fetch-site': 'same-site' } },
    { name: 'an opaque origin', headers: { origin: 'null', 'sec-fetch-site': 'cross-site' } },
    { name: 'neither Origin nor fetch metadata', headers: { origin: undefined, 'sec-fetch-site': undefined } },
    { name: 'our Origin but cross-site metadata', headers: { 'sec-fetch-site': 'cross-site' } },
  ]
  for (const attempt of forged) {
    const login = await postForm(stack, '/login?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add', { email: 'victim@example.com', password: PASSWORD }, { headers: attempt.headers })
    t.equal(login.statusCode, 403, attempt.name)
    isHtmlPage(t, login, attempt.name)
    t.equal(testIdText(login.body, 'login-error'), 'This form was not sent from a Softshelf page, so it was refused. Reload the page and try again.', attempt.name)
    t.notOk(login.headers['set-cookie'], `${attempt.name}: no session`)
    const signUp = await postForm(stack, '/welcome', { email: 'planted@example.com', password: PASSWORD }, { headers: attempt.headers })
    t.equal(signUp.statusCode, 403, `${attempt.name}: sign-up`)
  }
  t.same((await stack.bff.inject({ method: 'GET', url: '/api/user/check-email?email=planted%40example.com' })).json(), { success: false }, 'no account was made')
  const alone = await postForm(stack, '/login', { email: 'victim@example.com', password: PASSWORD }, { headers: { origin: undefined } })
  t.equal(alone.statusCode, 303, 'fetch metadata alone vouches for a same-origin form (a browser that sends no Origin)')
})

t.test('sign-up, forgotten password and reset without script, the target in every mailed link', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const back = '?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add'

  const empty = await postForm(stack, `/welcome${back}`, { email: 'grace@', password: 'short' }, { headers: { cookie: 'lang=hu' } })
  t.equal(empty.statusCode, 400)
  isHtmlPage(t, empty, 'sign-up field errors')
  t.match(empty.body, /class="field-error">Az e-mail-cím érvénytelen\.</, 'the SDK\'s "Email is invalid", in Hungarian')
  t.notMatch(visible(empty.body), /Email is invalid|Password must be/)

  const jar = new CookieJar()
  const signUp = await postForm(stack, `/welcome${back}`, { email: 'grace@example.com', password: PASSWORD, isInMailList: 'on' }, { jar })
  t.equal(signUp.statusCode, 303)
  t.equal(signUp.headers.location, `/check-email${back}`)
  const verifyLink = lastMailLink(stack, 'grace@example.com')
  t.equal(verifyLink.pathname, '/verify-email')
  t.equal(verifyLink.searchParams.get('redirectToPath'), '/@/programs/blender', 'the verification link carries the target')
  t.equal(verifyLink.searchParams.get('action'), 'add')
  jar.store(await stack.bff.inject({ method: 'POST', url: '/auth/user/email/verify', headers: { cookie: jar.header('/auth'), rid: 'anti-csrf', 'content-type': 'application/json' }, payload: JSON.stringify({ method: 'token', token: verifyLink.searchParams.get('token') }) }))
  t.match((await stack.bff.inject({ method: 'GET', url: '/api/user', headers: { cookie: jar.header('/api') } })).json(), { isInMailList: true }, 'the opt-in box was sent as the JSON boolean')

  const forgot = await postForm(stack, `/forgot-password${back}`, { email: 'grace@example.com' })
  t.equal(forgot.statusCode, 200)
  t.ok(testIdText(forgot.body, 'forgot-sent'), 'the page says the link is on its way')
  const resetLink = lastMailLink(stack, 'grace@example.com')
  t.equal(resetLink.pathname, '/reset-password')
  t.equal(resetLink.searchParams.get('redirectToPath'), '/@/programs/blender', 'the reset link carries the target')
  const reset = `${resetLink.pathname}${resetLink.search}`

  const form = await stack.bff.inject({ method: 'GET', url: reset })
  t.match(form.body, /name="confirm"/, 'a usable link shows the form')
  const mismatch = await postForm(stack, reset, { password: 'a brand new passphrase', confirm: 'another passphrase' })
  t.equal(mismatch.statusCode, 400)
  t.match(mismatch.body, /class="field-error">The two passwords are not the same\.</)
  const done = await postForm(stack, reset, { password: 'a brand new passphrase', confirm: 'a brand new passphrase' })
  t.equal(done.statusCode, 200)
  t.ok(testIdText(done.body, 'reset-done'))
  t.match(done.body, /href="\/login\?redirectToPath=%2F%40%2Fprograms%2Fblender&amp;action=add"/, 'on to log in, with the target')

  const used = await stack.bff.inject({ method: 'GET', url: reset })
  t.ok(testIdText(used.body, 'reset-invalid'), 'a used link says so at once')
  t.notMatch(used.body, /name="confirm"/, 'and shows no form')
  const again = await postForm(stack, reset, { password: 'yet another passphrase', confirm: 'yet another passphrase' })
  t.ok(testIdText(again.body, 'reset-invalid'))
  t.equal((await browser(stack.bff).post('/auth/signin', { formFields: [{ id: 'email', value: 'grace@example.com' }, { id: 'password', value: 'a brand new passphrase' }] })).json().status, 'OK')
})

t.test('the reset link check tells a usable link from a used or unknown one, and uses nothing', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  await signedInTab(stack, 'ken@example.com')
  const check = async (token: string) => (await stack.bff.inject({ method: 'GET', url: `/auth/user/password/reset/token/check?token=${encodeURIComponent(token)}` })).json()
  t.same(await check('not-a-token'), { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' })
  t.same(await check(''), { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' })
  await browser(stack.bff).post('/auth/user/password/reset/token', { formFields: [{ id: 'email', value: 'ken@example.com' }] })
  const token = lastMailLink(stack, 'ken@example.com').searchParams.get('token')!
  t.same(await check(token), { status: 'OK' })
  t.same(await check(token), { status: 'OK' }, 'checking does not use the link up')
  const answer = await stack.bff.inject({ method: 'GET', url: `/auth/user/password/reset/token/check?token=${token}` })
  t.equal(answer.headers['cache-control'], 'no-store')
  t.match((await browser(stack.bff).post('/auth/user/password/reset', { method: 'token', token, formFields: [{ id: 'password', value: 'a brand new passphrase' }] })).json(), { status: 'OK' })
  t.same(await check(token), { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' })
})

t.test('the second factor without script: a wrong code in the page, the right one on to the target', async (t) => {
  // The auth core on the test's clock, the codes from it.
  const clock = new TestClock()
  const stack = await buildStack(t, { auth: true, coreNow: clock.now, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const tab = await signedInTab(stack, 'otp@example.com')
  const created = await tab.post('/auth/totp/device', { deviceName: 'Softshelf' })
  const secret = base32Decode(created.json().secret)
  t.match((await tab.post('/auth/totp/device/verify', { deviceName: 'Softshelf', totp: clock.totp(secret) })).json(), { status: 'OK' })

  const jar = new CookieJar()
  const login = await postForm(stack, '/login?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add', { email: 'otp@example.com', password: PASSWORD }, { jar })
  t.equal(login.headers.location, '/mfa?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add', 'the second factor first, carrying the target')
  const page = await stack.bff.inject({ method: 'GET', url: login.headers.location as string, headers: { cookie: jar.header('/mfa') } })
  t.match(page.body, /name="totp"/, 'the code form is in the page without script')

  const wrong = await postForm(stack, login.headers.location as string, { totp: clock.totp(secret, 1) === '000000' ? '111111' : '000000' }, { jar })
  t.equal(wrong.statusCode, 400)
  isHtmlPage(t, wrong, 'a wrong code')
  t.match(testIdText(wrong.body, 'mfa-error'), /^The code is not correct\. 4 attempts left\.$/)
  const right = await postForm(stack, login.headers.location as string, { totp: clock.totp(secret, 1) }, { jar })
  t.equal(right.statusCode, 303)
  t.equal(right.headers.location, '/@/programs/blender')
  t.same((await stack.bff.inject({ method: 'GET', url: '/api/user/program-ids', headers: { cookie: jar.header('/api') } })).json(), { programIds: ['blender'], ownedIds: [] })
})

t.test('a form of a page whose route has no action is told in a page; other posts stay JSON errors', async (t) => {
  const stack = await buildStack(t)
  const intro = await postForm(stack, '/files', { displayName: 'x' }, { headers: { cookie: 'lang=de' } })
  t.equal(intro.statusCode, 405)
  t.equal(intro.headers.allow, 'GET, HEAD')
  isHtmlPage(t, intro, 'another page\'s form')
  t.match(intro.body, /<h1>Die Seite war noch nicht bereit<\/h1>/)
  t.match(intro.body, /<a href="\/files">/)
  const odd = await postForm(stack, '//evil.com/x', { a: 'b' })
  t.notMatch(odd.body, /href="\/\/evil/, 'the way back is never to another host')
  const json = await stack.bff.inject({ method: 'POST', url: '/nothing-here', headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(json.statusCode, 404)
  t.equal(json.json().code, 'BFF_NOT_FOUND')
})

t.test('past the per-IP limit a form post is told so in a page, with retry-after', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '2' } })
  const statuses: number[] = []
  let last = await postForm(stack, '/login', { email: 'flood@example.com', password: 'whatever it is' })
  statuses.push(last.statusCode)
  for (let i = 0; i < 2; i++) {
    last = await postForm(stack, '/login', { email: 'flood@example.com', password: 'whatever it is' }, { headers: { cookie: 'lang=de' } })
    statuses.push(last.statusCode)
  }
  t.same(statuses, [401, 401, 429])
  isHtmlPage(t, last, 'the limit')
  t.match(last.body, /<h1>Fehler 429<\/h1><p>Zu viele Anfragen\./)
  t.ok(Number(last.headers['retry-after']) > 0, 'retry-after is given')
})

/** How many mails the embedded mailbox holds for `to`. */
function mailsTo(stack: Stack, to: string): number {
  const folder = path.join(stack.config.dataDir, 'mail')
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .filter((name) => (JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as { to: string }).to === to).length
}

/** A link's element whose text is `text`, for where it leads. */
const linkHref = (body: string, text: string) => new RegExp(`<a [^>]*href="([^"]*)"[^>]*>${text}</a>`).exec(body)?.[1]?.replaceAll('&amp;', '&')

t.test('"Verify my email" without script: verified in the page, on to the target signed in or to log in elsewhere', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const back = '?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add'

  // The browser that signed up holds the session: the page leads on to the target.
  const jar = new CookieJar()
  t.equal((await postForm(stack, `/welcome${back}`, { email: 'lin@example.com', password: PASSWORD }, { jar })).statusCode, 303)
  const link = lastMailLink(stack, 'lin@example.com')
  const page = `${link.pathname}${link.search}`
  t.equal((await stack.bff.inject({ method: 'GET', url: '/@/library', headers: { cookie: jar.header('/@') } })).headers.location, '/email-not-verified', 'not verified yet')

  const foreign = await postForm(stack, page, {}, { jar, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
  t.equal(foreign.statusCode, 403, 'another site\'s form is refused')
  isHtmlPage(t, foreign, 'a foreign verification')

  const verified = await postForm(stack, page, {}, { jar })
  t.equal(verified.statusCode, 200)
  isHtmlPage(t, verified, 'the verified page')
  t.equal(testIdText(verified.body, 'verify-done'), 'Your email address is verified.')
  t.equal(linkHref(verified.body, 'Continue'), '/@/programs/blender', 'on to the target')
  t.notMatch(verified.body, /<button[^>]*>Verify my email</, 'the button is gone')
  const library = await stack.bff.inject({ method: 'GET', url: '/@/library', headers: { cookie: jar.header('/@') } })
  t.equal(library.headers.location, '/tos', 'the session knows at once: the terms are the next step, not the email')

  // The link opened again, in a German browser without the session: used up, said in German.
  const used = await postForm(stack, page, {}, { headers: { cookie: 'lang=de' } })
  t.equal(used.statusCode, 400)
  isHtmlPage(t, used, 'a used link')
  t.equal(testIdText(used.body, 'verify-invalid'), 'Dieser Bestätigungslink ist nicht mehr gültig. Er wurde möglicherweise schon verwendet oder ist abgelaufen.')

  // A fresh account's link opened in another browser: verified, then on through the login.
  await browser(stack.bff).post(`/auth/signup${back}`, { formFields: [{ id: 'email', value: 'mo@example.com' }, { id: 'password', value: PASSWORD }] })
  const other = lastMailLink(stack, 'mo@example.com')
  const elsewhere = await postForm(stack, `${other.pathname}${other.search}`, {})
  t.equal(elsewhere.statusCode, 200)
  t.equal(testIdText(elsewhere.body, 'verify-done'), 'Your email address is verified.')
  t.equal(linkHref(elsewhere.body, 'Log in'), `/login${back}`, 'to log in, carrying the target')
  t.notOk(elsewhere.headers['set-cookie'], 'no session was made')
  const login = await postForm(stack, `/login${back}`, { email: 'mo@example.com', password: PASSWORD })
  t.equal(login.headers.location, `/tos${back}`, 'the email no longer stands in the way')
})

t.test('"Send the email again" without script: a new link with the target, or why not, in the visitor\'s language', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const back = '?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add'

  // Without a session the page is no page of anyone's: log in first, and back to it with its target.
  const signedOut = await postForm(stack, `/check-email${back}`, {}, { headers: { cookie: 'lang=sk' } })
  t.equal(signedOut.statusCode, 302)
  t.equal(signedOut.headers.location, `/login?redirectToPath=${encodeURIComponent(`/check-email${back}`)}`, 'the way to log in, carrying the page and its target')

  const jar = new CookieJar()
  await postForm(stack, `/welcome${back}`, { email: 'ida@example.com', password: PASSWORD }, { jar })
  const first = lastMailLink(stack, 'ida@example.com').searchParams.get('token')
  t.equal(mailsTo(stack, 'ida@example.com'), 1)

  const foreign = await postForm(stack, `/check-email${back}`, {}, { jar, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
  t.equal(foreign.statusCode, 403, 'another site\'s form is refused')
  t.equal(mailsTo(stack, 'ida@example.com'), 1, 'and sends nothing')

  for (const page of ['/check-email', '/email-not-verified']) {
    const again = await postForm(stack, `${page}${back}`, {}, { jar })
    t.equal(again.statusCode, 200, page)
    isHtmlPage(t, again, page)
    t.equal(testIdText(again.body, 'resend-notice'), 'We sent you a new verification email.', page)
  }
  t.equal(mailsTo(stack, 'ida@example.com'), 3, 'one new mail each')
  const link = lastMailLink(stack, 'ida@example.com')
  t.not(link.searchParams.get('token'), first, 'a new link')
  t.equal(link.searchParams.get('redirectToPath'), '/@/programs/blender', 'carrying the target')
  t.equal(link.searchParams.get('action'), 'add')

  // The same mail cap as the script's call: five an hour, then nothing is sent and the answer is the same.
  for (let i = 0; i < 3; i++) t.equal(testIdText((await postForm(stack, '/check-email', {}, { jar })).body, 'resend-notice'), 'We sent you a new verification email.')
  t.equal(mailsTo(stack, 'ida@example.com'), 5, 'past the cap nothing more is sent')

  // Verified meanwhile (in another tab): "send again" goes on, through the steps still owed.
  const newest = lastMailLink(stack, 'ida@example.com')
  t.equal(testIdText((await postForm(stack, `${newest.pathname}${newest.search}`, {}, { jar })).body, 'verify-done'), 'Your email address is verified.')
  const onward = await postForm(stack, `/email-not-verified${back}`, {}, { jar })
  t.equal(onward.statusCode, 303)
  t.equal(onward.headers.location, `/tos${back}`)
  t.equal(mailsTo(stack, 'ida@example.com'), 5, 'no mail for a verified address')
})
