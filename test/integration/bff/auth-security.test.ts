import t from 'tap'
import { browser, buildStack, LogCapture, credentials } from '../../helpers.ts'

// SECURITY.md for the accounts issue: what never reaches a log, what a browser may not keep, and
// what a stolen refresh token is worth once it has been rotated.


t.test('session security', async (t) => {
  const bffLogs = new LogCapture()
  const apiLogs = new LogCapture()
  const stack = await buildStack(t, { auth: true, bffLogStream: bffLogs, apiLogStream: apiLogs, env: { LOG_LEVEL: 'trace' } })
  const tab = browser(stack.bff)
  const email = 'canary-mail-7f3a@example.com'
  const password = 'canary-password-91b2-long-enough'

  const signUp = await tab.post('/auth/signup', credentials(email, password))
  t.equal(signUp.json().status, 'OK')
  await tab.post('/auth/signin', credentials(email, 'wrong-canary-password-5c1d'))
  const signIn = await tab.post('/auth/signin', credentials(email, password))
  t.equal(signIn.json().status, 'OK')
  const tokens = [tab.jar.get('sAccessToken')!, tab.jar.get('sRefreshToken')!]
  await tab.get('/api/user')
  await tab.get(`/api/login-attempts/check-block-status?email=${encodeURIComponent(email)}`)

  await t.test('answers about sessions and users are never cached', async (t) => {
    for (const response of [signUp, signIn, await tab.get('/auth/user/email/verify'), await tab.get('/api/user')]) {
      t.equal(response.headers['cache-control'], 'no-store', String(response.raw.req.url))
    }
  })

  await t.test('a rotated refresh token, replayed, ends the session', async (t) => {
    const old = tab.jar.get('sRefreshToken')!
    const refreshed = await tab.post('/auth/session/refresh')
    t.equal(refreshed.statusCode, 200)
    t.not(tab.jar.get('sRefreshToken'), old, 'the refresh token rotated')
    // Use the new one once so the old one is the parent no longer trusted, then replay the old.
    t.equal((await tab.get('/auth/user/email/verify')).statusCode, 200)
    const replay = await stack.bff.inject({ method: 'POST', url: '/auth/session/refresh', headers: { rid: 'session', cookie: `sRefreshToken=${old}` } })
    t.equal(replay.statusCode, 401)
    const after = await tab.post('/auth/session/refresh')
    t.equal(after.statusCode, 401, 'the whole session is revoked, the current token too')
  })

  await t.test('no password, token, cookie or email reaches the logs', async (t) => {
    const text = `${bffLogs.text}\n${apiLogs.text}`
    t.ok(bffLogs.lines.length > 10, 'there are logs to look at')
    for (const secret of [password, 'wrong-canary-password-5c1d', email, ...tokens]) t.notOk(text.includes(secret), `not in the logs: ${secret.slice(0, 12)}…`)
  })
})

t.test('a cross-site write without the custom header is refused on every /auth and /api route and changes nothing', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const victim = browser(stack.bff)
  const email = 'victim@example.com'
  t.equal((await victim.post('/auth/signup', { formFields: [{ id: 'email', value: email }, { id: 'password', value: 'the victim has a long password' }] })).json().status, 'OK')
  const routes: Array<['POST' | 'PUT' | 'DELETE', string]> = [
    ['POST', '/auth/signup'],
    ['POST', '/auth/signin'],
    ['POST', '/auth/signout'],
    ['POST', '/auth/session/refresh'],
    ['POST', '/auth/signinup'],
    ['POST', '/auth/user/email/verify'],
    ['POST', '/auth/user/email/verify/token'],
    ['POST', '/auth/user/password/reset'],
    ['POST', '/auth/user/password/reset/token'],
    ['POST', '/auth/totp/device'],
    ['POST', '/auth/totp/device/verify'],
    ['POST', '/auth/totp/verify'],
    ['POST', '/auth/totp/device/remove'],
    ['PUT', '/api/user'],
    ['POST', '/api/user/accept-tos'],
    ['POST', '/api/user/program/blender'],
    ['DELETE', '/api/user/program/blender'],
  ]
  const sessionBefore = victim.jar.get('sAccessToken')
  for (const [method, url] of routes) {
    // What another site can make the victim's browser send: a form post with the cookies, no rid.
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain']) {
      const response = await stack.bff.inject({
        method,
        url,
        headers: { cookie: victim.jar.header(url), origin: 'https://evil.example', 'content-type': contentType },
        payload: 'formFields=x&isInMailList=true&deviceName=Softshelf',
      })
      t.equal(response.statusCode, 403, `${method} ${url} (${contentType})`)
      t.equal(response.json().code, 'BFF_CSRF_REJECTED')
      t.notOk(response.headers['set-cookie'], 'no cookie changes')
    }
  }
  t.equal(victim.jar.get('sAccessToken'), sessionBefore)
  t.equal((await victim.get('/auth/user/email/verify')).json().isVerified, false, 'still signed in, nothing verified')
  t.equal((await victim.get('/auth/totp/device/list')).json().devices.length, 0, 'no authenticator was added')
  const { rows } = await stack.db.query<{ tos_version: string | null; programs: number }>(
    'SELECT u.tos_version, (SELECT count(*)::int FROM api.user_programs p WHERE p.user_id = u.id) AS programs FROM api.users u WHERE u.email = $1',
    [email],
  )
  t.same(rows, [{ tos_version: null, programs: 0 }], 'terms and library untouched')
})
