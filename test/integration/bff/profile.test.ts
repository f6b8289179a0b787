import t from 'tap'
import { browser, buildStack, signedInTab, credentials } from '../../helpers.ts'

// The profile's name and language (first step): PATCH /api/user through the BFF, its
// validation, the anti-forgery rule, a chosen language applied at every later sign-in (a
// visitor's own choice kept while the account has none), and /@/my-profile rendered for it.

const PASSWORD = 'correct horse battery'
const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })

const langCookie = (response: { cookies: Array<{ name: string; value: string }> }) => response.cookies.find((cookie) => cookie.name === 'lang')?.value

t.test('the user record has a name, a language and an avatar URL; none chosen at first', async (t) => {
  const tab = await signedInTab(stack, 'fresh@example.com', PASSWORD, { cookie: 'lang=sk' })
  t.match((await tab.get('/api/user')).json(), { email: 'fresh@example.com', name: null, language: 'sk', languageChosen: false, avatarUrl: null })
})

t.test('name: trimmed, at most 60 characters, no control or invisible characters; empty removes it', async (t) => {
  const tab = await signedInTab(stack, 'names@example.com', PASSWORD)
  const send = async (body: unknown) => {
    const response = await stack.bff.inject({ method: 'PATCH', url: '/api/user', headers: { cookie: tab.jar.header('/api/user'), rid: 'anti-csrf', origin: 'http://localhost:3000', 'content-type': 'application/json' }, payload: JSON.stringify(body) })
    return { status: response.statusCode, body: response.json() }
  }
  t.match(await send({ name: '  Ada Lovelace  ' }), { status: 200, body: { name: 'Ada Lovelace' } })
  t.match((await tab.get('/api/user')).json(), { name: 'Ada Lovelace' }, 'kept')
  t.match(await send({ name: 'é'.repeat(60) }), { status: 200 }, '60 characters, counted as characters')
  for (const bad of ['x'.repeat(61), 'Ada\u0000', 'Ada\nLovelace', 'Ada\u202eecalevol', 'A\u200bda']) {
    const answer = await send({ name: bad })
    t.equal(answer.status, 400, JSON.stringify(bad))
    t.equal(answer.body.code, 'API_VALIDATION_FAILED')
  }
  t.match((await tab.get('/api/user')).json(), { name: 'é'.repeat(60) }, 'a refused change keeps the name')
  t.match(await send({ name: '   ' }), { status: 200, body: { name: null } }, 'blank removes it')
  t.match(await send({ name: null }), { status: 200, body: { name: null } })
  t.match(await send({ language: 'xx' }), { status: 400, body: { code: 'API_VALIDATION_FAILED', message: /language must be one of: en, es, sk, ro, pl, hu, de, cs/ } })
  t.equal((await send({})).status, 400, 'nothing to change is a 400')
  t.equal((await send({ isAdmin: true })).status, 400, 'an unknown field changes nothing (it is dropped, leaving nothing to change)')
})

t.test('writes need the anti-forgery header and a full session', async (t) => {
  const tab = await signedInTab(stack, 'csrf@example.com', PASSWORD)
  const forged = await stack.bff.inject({ method: 'PATCH', url: '/api/user', headers: { cookie: tab.jar.header('/api/user'), 'content-type': 'application/json' }, payload: '{"name":"Mallory"}' })
  t.equal(forged.statusCode, 403)
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')
  t.match((await tab.get('/api/user')).json(), { name: null }, 'nothing changed')
  const unverified = browser(stack.bff)
  await unverified.post('/auth/signup', credentials('unverified@example.com'))
  const early = await stack.bff.inject({ method: 'PATCH', url: '/api/user', headers: { cookie: unverified.jar.header('/api/user'), rid: 'anti-csrf', 'content-type': 'application/json' }, payload: '{"name":"Early"}' })
  t.equal(early.statusCode, 403)
  t.equal(early.json().code, 'API_EMAIL_NOT_VERIFIED')
})

t.test('a chosen language follows the account to every sign-in; without one the visitor keeps theirs', async (t) => {
  const tab = await signedInTab(stack, 'polyglot@example.com', PASSWORD)
  const visitor = await browser(stack.bff).post('/auth/signin', credentials('polyglot@example.com'), { cookie: 'lang=pl' })
  t.equal(visitor.json().status, 'OK')
  t.equal(langCookie(visitor), undefined, 'no language chosen yet: the visitor\'s Polish stays')

  const chosen = await stack.bff.inject({ method: 'PATCH', url: '/api/user', headers: { cookie: tab.jar.header('/api/user'), rid: 'anti-csrf', 'content-type': 'application/json' }, payload: '{"language":"hu"}' })
  t.match(chosen.json(), { language: 'hu', languageChosen: true })
  const elsewhere = await browser(stack.bff).post('/auth/signin', credentials('polyglot@example.com'), { cookie: 'lang=en', 'accept-language': 'en' })
  t.equal(elsewhere.json().status, 'OK')
  t.equal(langCookie(elsewhere), 'hu', 'another device signs in in Hungarian')
  const attributes = elsewhere.cookies.find((cookie) => cookie.name === 'lang') as { path?: string; maxAge?: number; sameSite?: string; httpOnly?: boolean }
  t.match(attributes, { path: '/', maxAge: 365 * 24 * 60 * 60, sameSite: 'Lax' })
  t.notOk(attributes.httpOnly, 'the page script reads it')
})

t.test('/@/my-profile renders the account for its user, in the chosen language', async (t) => {
  const tab = await signedInTab(stack, 'page@example.com', PASSWORD)
  await stack.bff.inject({ method: 'PATCH', url: '/api/user', headers: { cookie: tab.jar.header('/api/user'), rid: 'anti-csrf', 'content-type': 'application/json' }, payload: '{"name":"Grace","language":"de"}' })
  const page = await tab.get('/@/my-profile', { accept: 'text/html', cookie: `${tab.jar.header('/')}; lang=de` })
  t.equal(page.statusCode, 200)
  t.equal(page.headers['cache-control'], 'no-store')
  t.match(page.body, /<h1[^>]*>Mein Profil<\/h1>/)
  t.match(page.body, /page@example\.com/)
  t.match(page.body, /value="Grace"/)
  t.match(page.body, /<title>My profile — Softshelf<\/title>/, 'English title, as every page (spec §1)')
  const visitor = await browser(stack.bff).get('/@/my-profile', { accept: 'text/html' })
  t.equal(visitor.statusCode, 302, 'a visitor is sent to log in')
})
