import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { ACCOUNT_DISABLED_MESSAGE } from '../../../shared/constants.ts'
import { browser, buildStack, confirmedAuthenticator, signedInTab, formFields } from '../../helpers.ts'

// The route guard of spec §2/§4 on the server: every session state is redirected before any HTML
// is sent, and signed-in pages are private.


t.test('the server-side route guard follows the session from sign-up to a signed-in library', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = browser(stack.bff)
  const page = async (url: string) => {
    const response = await tab.get(url, { accept: 'text/html' })
    return { status: response.statusCode, location: response.headers.location, body: response.body, cacheControl: response.headers['cache-control'] }
  }

  await t.test('a visitor', async (t) => {
    for (const url of ['/@', '/@/library', '/@/programs/blender', '/tos', '/mfa']) t.match(await page(url), { status: 302, location: '/login' }, url)
    for (const url of ['/', '/login', '/welcome', '/forgot-password', '/verify-email?token=x', '/reset-password?token=x', '/@/logout', '/auth-callback/oidc']) {
      t.equal((await page(url)).status, 200, url)
    }
  })

  t.equal((await tab.post('/auth/signup', formFields({ email: 'guard@example.com', password: 'a good long password' }))).json().status, 'OK')

  await t.test('signed up, email not verified', async (t) => {
    for (const url of ['/@', '/@/library', '/tos', '/mfa']) t.match(await page(url), { status: 302, location: '/email-not-verified' }, url)
    const checkEmail = await page('/check-email')
    t.equal(checkEmail.status, 200, 'not fully signed in: public pages stay')
    t.equal(checkEmail.cacheControl, 'no-store', 'a page for a session is never stored')
    t.equal((await page('/programs/blender')).status, 200)
  })

  const mailDir = path.join(stack.config.dataDir, 'mail')
  const mail = JSON.parse(fs.readFileSync(path.join(mailDir, fs.readdirSync(mailDir).sort()[0]!), 'utf8')) as { text: string }
  const token = new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!
  // Verified from another device (the mail opened on a phone): this tab's token still says "not
  // verified" until the claim is fetched again, which a page load does after 10 s (spec §4).
  t.equal((await browser(stack.bff).post('/auth/user/email/verify', { method: 'token', token })).json().status, 'OK')
  t.match(await page('/@/library'), { status: 302, location: '/email-not-verified' }, 'within 10 s the claim stands')

  await t.test('a page load fetches a stale verification claim again and hands the browser its new claims', async (t) => {
    const realNow = Date.now
    Date.now = () => realNow() + 11_000
    t.teardown(() => {
      Date.now = realNow
    })
    const frontBefore = tab.jar.get('sFrontToken')
    const response = await tab.get('/@/library', { accept: 'text/html' })
    t.match(response, { statusCode: 302, headers: { location: '/tos' } }, 'verified now: on to the terms')
    t.not(tab.jar.get('sFrontToken'), frontBefore, 'the SDK cookie with the claims is rewritten')
    const claims = JSON.parse(Buffer.from(tab.jar.get('sFrontToken')!, 'base64').toString('utf8')) as { up: Record<string, { v: unknown }> }
    t.equal(claims.up['st-ev']?.v, true)
    t.ok(tab.jar.get('st-last-access-token-update'))
    Date.now = realNow
  })

  await t.test('verified, terms not accepted', async (t) => {
    for (const url of ['/@', '/@/library', '/@/programs']) t.match(await page(url), { status: 302, location: '/tos' }, url)
    const tos = await page('/tos')
    t.equal(tos.status, 200)
    t.match(tos.body, /I accept the terms of service/)
    t.match(await page('/'), { status: 302, location: '/@' }, 'a fully signed-in user leaves the public pages')
    t.match(await page('/programs/blender'), { status: 302, location: '/@/programs/blender' }, 'for the signed-in twin')
    t.match(await page('/category/3d?sort=nameAsc'), { status: 302, location: '/@/category/3d?sort=nameAsc' })
    t.match(await page('/publisher/blender-foundation'), { status: 302, location: '/@/publisher/blender-foundation' }, 'issue 15: publishers have a twin too')
    t.match(await page('/check-email'), { status: 302, location: '/@' }, 'no twin: the signed-in home')
    t.match(await page('/login'), { status: 302, location: '/@' }, 'issue 27: no login form for a fully signed-in user')
  })

  t.equal((await tab.post('/api/user/accept-tos', { isInMailList: false })).statusCode, 200)

  await t.test('fully signed in', async (t) => {
    t.match(await page('/@'), { status: 302, location: '/@/library' })
    t.match(await page('/tos'), { status: 302, location: '/@' }, 'accepted terms are not asked again')
    const library = await page('/@/library')
    t.equal(library.status, 200)
    t.equal(library.cacheControl, 'no-store')
    t.match(library.body, /guard@example\.com/)
    t.match(library.body, /Your library is empty/)
    t.equal((await tab.post('/api/user/program/blender')).statusCode, 200)
    const program = await page('/@/programs/blender')
    t.equal(program.status, 200)
    t.match(program.body, /Remove from library/, 'the signed-in twin shows the library state')
    t.match((await page('/@/library')).body, /Blender/)
    t.equal((await page('/mfa')).status, 200, 'the authenticator set-up is open to a signed-in user')
  })

  await t.test('an expired access token gets the refresh page; after the refresh the page renders', async (t) => {
    // The access token lives an hour (the core's default); the clock moves past it.
    const realNow = Date.now
    Date.now = () => realNow() + 2 * 60 * 60 * 1000
    t.teardown(() => {
      Date.now = realNow
    })
    const expired = await page('/@/library')
    t.equal(expired.status, 200)
    t.equal(expired.cacheControl, 'no-store')
    t.match(expired.body, /fetch\('\/auth\/session\/refresh'/, 'the page refreshes through the one path the refresh cookie goes to')
    t.match(expired.body, /Restoring your session/)
    t.notMatch(expired.body, /guard@example\.com/, 'nothing private renders before the refresh')
    const refresh = await tab.post('/auth/session/refresh')
    t.equal(refresh.statusCode, 200)
    t.ok(refresh.headers['front-token'], 'the browser gets the new claims')
    const after = await page('/@/library')
    t.equal(after.status, 200)
    t.match(after.body, /guard@example\.com/)
    Date.now = realNow
  })

  await t.test('a disabled account sees its page, with the spec message', async (t) => {
    await stack.db.query('UPDATE api.users SET disabled_at = now() WHERE email = $1', ['guard@example.com'])
    const disabled = await page('/@/library')
    t.equal(disabled.status, 403)
    t.match(disabled.body, ACCOUNT_DISABLED_MESSAGE)
    t.notMatch(disabled.body, /Blender/, 'nothing of the library shows')
  })

  await t.test('after signing out the private pages are closed again', async (t) => {
    await stack.db.query('UPDATE api.users SET disabled_at = NULL WHERE email = $1', ['guard@example.com'])
    t.ok(tab.jar.get('sFrontToken'), 'the page loads left the SDK its front token')
    t.equal((await tab.post('/auth/signout')).statusCode, 200)
    t.notOk(tab.jar.get('sFrontToken'), 'signing out takes it away on the server side too')
    t.match(await page('/@/library'), { status: 302, location: '/login' })
  })
})

t.test('a protected page sends to each step it owes with itself as the target (issue 15 item 3)', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = browser(stack.bff)
  const location = async (url: string) => (await tab.get(url, { accept: 'text/html' })).headers.location

  t.equal(await location('/@/programs/blender'), '/login?redirectToPath=%2F%40%2Fprograms%2Fblender')
  t.equal(await location('/@/programs?q=photo%20editor&sort=nameAsc'), '/login?redirectToPath=%2F%40%2Fprograms%3Fq%3Dphoto%2520editor%26sort%3DnameAsc', 'with its query')
  t.equal(await location('/@/library'), '/login', 'the signed-in home needs no target')
  t.equal(await location('/@'), '/login')
  t.equal(await location('/mfa?redirectToPath=%2F%40%2Fmy-profile'), '/login?redirectToPath=%2F%40%2Fmy-profile', 'the second factor\'s page passes its own target on')
  t.equal(await location('/mfa?redirectToPath=%2F%2Fevil.com'), `/login?redirectToPath=${encodeURIComponent('/mfa?redirectToPath=%2F%2Fevil.com')}`, 'an unchecked one is not passed on: back to the page, which checks its own')

  t.equal((await tab.post('/auth/signup', formFields({ email: 'steps@example.com', password: 'a good long password' }))).json().status, 'OK')
  t.equal(await location('/@/my-profile'), '/email-not-verified?redirectToPath=%2F%40%2Fmy-profile')
  const mailDir = path.join(stack.config.dataDir, 'mail')
  const mail = JSON.parse(fs.readFileSync(path.join(mailDir, fs.readdirSync(mailDir).sort()[0]!), 'utf8')) as { text: string }
  t.equal((await tab.post('/auth/user/email/verify', { method: 'token', token: new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token') })).json().status, 'OK')
  t.equal(await location('/@/programs/blender'), '/tos?redirectToPath=%2F%40%2Fprograms%2Fblender')
})

// Every spelling the page router takes for these pages (React Router matches paths
// without regard to case and with or without a trailing slash; a query changes nothing).
const spellings = (path: string, query: string) => [path, `${path}/`, path.toUpperCase(), `${path[0]}${path[1]!.toUpperCase()}${path.slice(2)}`, `${path}?${query}`, `${path}/?${query}`]

t.test('issue 27: a fully signed-in user opening the login, sign-up or forgotten-password form goes to /@; a pending step keeps them', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const page = async (tab: ReturnType<typeof browser>, url: string) => {
    const response = await tab.get(url, { accept: 'text/html' })
    return { status: response.statusCode, location: response.headers.location }
  }
  const forms = ['/login', '/welcome', '/forgot-password']

  const ready = await signedInTab(stack, 'ready@example.com')
  for (const path of forms) {
    for (const url of spellings(path, 'redirectToPath=%2F%40%2Fprograms%2Fblender')) t.same(await page(ready, url), { status: 302, location: '/@' }, url)
  }

  const unverified = browser(stack.bff)
  t.equal((await unverified.post('/auth/signup', formFields({ email: 'unverified@example.com', password: 'a good long password' }))).json().status, 'OK')
  for (const url of [...forms, '/check-email', '/email-not-verified']) t.equal((await page(unverified, url)).status, 200, `email not verified: ${url} stays open`)

  // A second factor owed: the account has an authenticator, and a new sign-in has only the password.
  await confirmedAuthenticator(ready)
  const pending = browser(stack.bff)
  t.equal((await pending.post('/auth/signin', formFields({ email: 'ready@example.com', password: 'correct horse battery' }))).json().status, 'OK')
  t.match(await page(pending, '/@/library'), { status: 302, location: '/mfa' }, 'the second factor is owed')
  for (const url of [...forms, '/mfa']) t.equal((await page(pending, url)).status, 200, `second factor owed: ${url} stays open`)
})

t.test('issue 27: a visitor without a session on /check-email or /email-not-verified logs in first, with the page as the way back', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = browser(stack.bff)
  for (const path of ['/check-email', '/email-not-verified']) {
    for (const url of spellings(path, 'redirectToPath=%2F%40%2Fprograms%2Fblender')) {
      const response = await tab.get(url, { accept: 'text/html' })
      t.equal(response.statusCode, 302, url)
      t.equal(response.headers.location, `/login?redirectToPath=${encodeURIComponent(url)}`, url)
      t.equal(response.body, '', `${url}: nothing of the page is sent`)
    }
  }
  // The way back leads to the page again once logged in: the target is one the login follows.
  const back = new URL(String((await tab.get('/check-email', { accept: 'text/html' })).headers.location), 'http://x').searchParams.get('redirectToPath')
  t.equal(back, '/check-email')
})
