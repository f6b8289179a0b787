import t from 'tap'
import { browser, buildStack, LogCapture } from '../../helpers.ts'

// SECURITY.md for the accounts issue: what never reaches a log, what a browser may not keep, and
// what a stolen refresh token is worth once it has been rotated.

const form = (email: string, password: string) => ({ formFields: [{ id: 'email', value: email }, { id: 'password', value: password }] })

t.test('session security', async (t) => {
  const bffLogs = new LogCapture()
  const apiLogs = new LogCapture()
  const stack = await buildStack(t, { auth: true, bffLogStream: bffLogs, apiLogStream: apiLogs, env: { LOG_LEVEL: 'trace' } })
  const tab = browser(stack.bff)
  const email = 'canary-mail-7f3a@example.com'
  const password = 'canary-password-91b2-long-enough'

  const signUp = await tab.post('/auth/signup', form(email, password))
  t.equal(signUp.json().status, 'OK')
  await tab.post('/auth/signin', form(email, 'wrong-canary-password-5c1d'))
  const signIn = await tab.post('/auth/signin', form(email, password))
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
