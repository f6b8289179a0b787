import t from 'tap'
import { browser, buildStack } from '../../helpers.ts'
import { startOidcProvider } from '../../oidc-provider.ts'

// External sign-in against a real OpenID Connect provider on loopback: the provider is
// discovered from OIDC_ISSUER, the browser's part of the round trip is driven over HTTP, and the
// SDK exchanges the code and reads the user's verified email from the provider itself.

const REDIRECT = 'http://localhost:3000/auth-callback/oidc'

t.test('sign-in with a generic OpenID Connect provider', async (t) => {
  const idp = await startOidcProvider(t, REDIRECT)
  const stack = await buildStack(t, {
    auth: true,
    env: { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, OIDC_NAME: 'Test Identity' },
  })
  const tab = browser(stack.bff)

  t.match((await tab.get('/auth/loginmethods')).json(), { status: 'OK', thirdParty: { enabled: true, providers: [{ id: 'oidc', name: 'Test Identity' }] } })

  const authorise = await tab.get(`/auth/authorisationurl?thirdPartyId=oidc&redirectURIOnProviderDashboard=${encodeURIComponent(REDIRECT)}`)
  t.equal(authorise.json().status, 'OK')
  const url = new URL(authorise.json().urlWithQueryParams as string)
  t.equal(url.origin, idp.issuer, 'the browser is sent to the provider')
  t.equal(url.searchParams.get('redirect_uri'), REDIRECT)
  const state = 'a'.repeat(32)
  url.searchParams.set('state', state)

  const back = await idp.signIn(url.href, 'hedy@example.com')
  t.equal(back.searchParams.get('state'), state, 'the provider returns our state')
  const utm = { utmParams: { utm_source: 'partner' }, sessionId: 'tp-1' }
  const signInUp = await tab.post('/auth/signinup', {
    thirdPartyId: 'oidc',
    clientType: 'web',
    redirectURIInfo: { redirectURIOnProviderDashboard: REDIRECT, redirectURIQueryParams: Object.fromEntries(back.searchParams), pkceCodeVerifier: authorise.json().pkceCodeVerifier },
    utm,
  })
  t.equal(signInUp.statusCode, 200)
  const body = signInUp.json()
  t.match(body, { status: 'OK', createdNewRecipeUser: true, user: { emails: ['hedy@example.com'], thirdParty: [{ id: 'oidc' }] } })
  t.ok(tab.jar.get('sAccessToken'), 'signed in')

  // The provider vouched for the email: no verification mail, straight to the product record.
  const user = await tab.get('/api/user')
  t.equal(user.statusCode, 200)
  t.match(user.json(), { email: 'hedy@example.com', isTosAccepted: false })
  const { rows } = await stack.db.query<{ utm: unknown }>('SELECT utm FROM api.users WHERE email = $1', ['hedy@example.com'])
  t.same(rows, [{ utm }], 'the UTM record sent with the external sign-up is kept')

  // The second time, the same account.
  const again = browser(stack.bff)
  const secondAnswer = (await again.get(`/auth/authorisationurl?thirdPartyId=oidc&redirectURIOnProviderDashboard=${encodeURIComponent(REDIRECT)}`)).json()
  const back2 = await idp.signIn(secondAnswer.urlWithQueryParams as string, 'hedy@example.com')
  const redirectURIInfo = { redirectURIOnProviderDashboard: REDIRECT, redirectURIQueryParams: Object.fromEntries(back2.searchParams), pkceCodeVerifier: secondAnswer.pkceCodeVerifier }
  const repeat = await again.post('/auth/signinup', { thirdPartyId: 'oidc', clientType: 'web', redirectURIInfo })
  t.match(repeat.json(), { status: 'OK', createdNewRecipeUser: false, user: { id: body.user.id } })

  const ios = await tab.get(`/auth/authorisationurl?thirdPartyId=oidc&clientType=ios&redirectURIOnProviderDashboard=${encodeURIComponent(REDIRECT)}`)
  t.equal(ios.statusCode, 400, 'an unknown client type is a clear 400, not a failure')
  t.match(ios.json(), { message: /clientType must be "web"/ })
  // Decided by the SDK's own provider lookup, so every spelling it routes answers alike.
  for (const path of ['/auth/authorisationurl/', '/auth/public/authorisationurl']) {
    const spelled = await tab.get(`${path}?thirdPartyId=oidc&clientType=ios&redirectURIOnProviderDashboard=${encodeURIComponent(REDIRECT)}`)
    t.equal(spelled.statusCode, 400, `${path}: a 400 too`)
  }
  const iosSignInUp = await tab.post('/auth/signinup/', { thirdPartyId: 'oidc', clientType: 'ios', redirectURIInfo })
  t.equal(iosSignInUp.statusCode, 400, 'and on /auth/signinup/')

  // A code that was already used is refused by the provider, and the SDK says so.
  const replay = await browser(stack.bff).post('/auth/signinup', { thirdPartyId: 'oidc', clientType: 'web', redirectURIInfo })
  t.not(replay.json().status, 'OK', 'a used code signs nobody in')
})
