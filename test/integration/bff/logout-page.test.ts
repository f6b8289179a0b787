import t from 'tap'
import { browser, buildStack, formFields } from '../../helpers.ts'

// /@/logout from another site: any page could send a signed-in visitor there and sign
// them out. A cross-site arrival (Sec-Fetch-Site: cross-site, as the server saw it) asks first;
// same-site, same-origin and typed-in arrivals sign out as before.

// The rendered page, not the translations the page embeds for hydration.
const ASKS = /class="auth-lead">Another site sent you here/
const SIGNS_OUT = /aria-live="polite">Logging you out/

t.test('a cross-site arrival at /@/logout asks to confirm, and the session lives on', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', formFields({ email: 'stay@example.com', password: 'a good long password' }))).json().status, 'OK')
  const signedIn = async () => (await tab.get('/auth/user/email/verify')).statusCode === 200

  t.ok(await signedIn(), 'signed in')
  const crossSite = await tab.get('/@/logout', { accept: 'text/html', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })
  t.equal(crossSite.statusCode, 200)
  t.match(crossSite.body, ASKS, 'the question')
  t.notMatch(crossSite.body, SIGNS_OUT, 'not the sign-out in progress')
  t.match(crossSite.body, /<button[^>]*>Log out<\/button>/, 'a Log out button')
  t.match(crossSite.body, /<a[^>]*href="\/@\/library"[^>]*>Back to my library<\/a>/, 'a way back to the library')
  t.equal(crossSite.headers['cache-control'], 'no-store')
  t.ok(await signedIn(), 'the session still works afterwards')

  const german = await tab.get('/@/logout', { accept: 'text/html', 'sec-fetch-site': 'cross-site', cookie: `${tab.jar.header('/')}; lang=de` })
  t.match(german.body, /class="auth-lead">Eine andere Website hat Sie hierher geschickt/, 'in the visitor\'s language')

  for (const site of ['same-origin', 'same-site', 'none', undefined]) {
    const response = await tab.get('/@/logout', { accept: 'text/html', ...(site ? { 'sec-fetch-site': site } : {}) })
    t.equal(response.statusCode, 200)
    t.match(response.body, SIGNS_OUT, `${site ?? 'no Sec-Fetch-Site'}: signs out as before`)
    t.notMatch(response.body, ASKS)
  }
})

t.test('a cross-site arrival whose access token expired still asks (the refresh page\'s reload would arrive same-origin)', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', formFields({ email: 'expired@example.com', password: 'a good long password' }))).json().status, 'OK')
  // The access cookie gone (expired), the SDK's front token still there: pages answer with the refresh step.
  const cookie = `sFrontToken=${tab.jar.get('sFrontToken')}`
  const library = await stack.bff.inject({ url: '/@/library', headers: { cookie, accept: 'text/html', 'sec-fetch-site': 'cross-site' } })
  t.match(library.body, /\/auth\/session\/refresh/, 'other pages refresh first')
  const logout = await stack.bff.inject({ url: '/@/logout', headers: { cookie, accept: 'text/html', 'sec-fetch-site': 'cross-site' } })
  t.equal(logout.statusCode, 200)
  t.match(logout.body, ASKS)
  t.notMatch(logout.body, /\/auth\/session\/refresh/)
  const sameOrigin = await stack.bff.inject({ url: '/@/logout', headers: { cookie, accept: 'text/html', 'sec-fetch-site': 'same-origin' } })
  t.match(sameOrigin.body, /\/auth\/session\/refresh/, 'a same-origin arrival refreshes as before')
  // Every spelling the router renders as the sign-out page asks alike.
  for (const url of ['/@/logout/', '/@/LOGOUT', '/@/%6Cogout', '/@/logout?next=x']) {
    const spelled = await stack.bff.inject({ url, headers: { cookie, accept: 'text/html', 'sec-fetch-site': 'cross-site' } })
    t.notMatch(spelled.body, /\/auth\/session\/refresh/, `${url}: no refresh-and-reload`)
  }
})

t.test('the one-second page cache never serves the question to a same-origin arrival, or the reverse', async (t) => {
  const { bff } = await buildStack(t)
  const visit = async (site: string) => (await bff.inject({ url: '/@/logout', headers: { accept: 'text/html', 'sec-fetch-site': site } })).body
  t.match(await visit('cross-site'), ASKS)
  t.match(await visit('same-origin'), SIGNS_OUT)
  t.match(await visit('cross-site'), ASKS)
  t.match(await visit('same-origin'), SIGNS_OUT)
})
