import t from 'tap'
import { browser, buildStack, signedInTab, credentials } from '../../helpers.ts'

// POST /api/user/password: the current password checked like a sign-in (counted, and
// blocked past the limit), the new one held to the sign-up rule, every other session of the
// account ended (refused by the API after its next read of the revocation list), this one kept.

const PASSWORD = 'correct horse battery'
const NEW_PASSWORD = 'a brand new passphrase'
const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })

const change = (tab: ReturnType<typeof browser>, body: unknown, headers: Record<string, string> = {}) => tab.post('/api/user/password', body, headers)
const asApi = (token: string) => stack.api.inject({ method: 'GET', url: '/api/user', headers: { authorization: `Bearer ${token}` } })

t.test('a changed password ends the other sessions and keeps this one', async (t) => {
  const here = await signedInTab(stack, 'changer@example.com', PASSWORD)
  const there = browser(stack.bff)
  t.equal((await there.post('/auth/signin', credentials('changer@example.com', PASSWORD))).json().status, 'OK')
  const thereToken = there.jar.get('sAccessToken')!

  const wrong = await change(here, { currentPassword: 'not it at all', newPassword: NEW_PASSWORD })
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().code, 'BFF_WRONG_PASSWORD')
  t.match((await here.get('/api/login-attempts/check-block-status?email=changer@example.com')).json(), { attemptsRemaining: 4 }, 'a wrong current password counts like a failed sign-in')

  for (const [newPassword, why] of [['short', 'too short'], ['password123', 'one of the most common'], [PASSWORD, 'the same as now']] as const) {
    const refused = await change(here, { currentPassword: PASSWORD, newPassword })
    t.equal(refused.statusCode, 400, why)
    t.equal(refused.json().code, 'BFF_PASSWORD_INVALID', why)
  }
  const forged = await stack.bff.inject({ method: 'POST', url: '/api/user/password', headers: { cookie: here.jar.header('/api/user/password'), 'content-type': 'application/json' }, payload: JSON.stringify({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD }) })
  t.equal(forged.statusCode, 403, 'no custom header: refused')
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')

  const read = stack.api.revokedSessions.nextRead()
  const done = await change(here, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
  t.equal(done.statusCode, 200, done.body)
  t.same(done.json(), { status: 'OK', sessionsEnded: 1 })
  t.equal(done.headers['cache-control'], 'no-store')
  t.equal((await here.get('/api/user')).statusCode, 200, 'this session goes on')
  t.equal((await there.post('/auth/session/refresh')).statusCode, 401, 'the other one cannot refresh')
  await read
  await stack.api.revokedSessions.nextRead()
  t.equal((await asApi(thereToken)).statusCode, 401, 'nor use its access token')
  t.equal((await browser(stack.bff).post('/auth/signin', credentials('changer@example.com', PASSWORD))).json().status, 'WRONG_CREDENTIALS_ERROR', 'the old password is gone')
  t.equal((await browser(stack.bff).post('/auth/signin', credentials('changer@example.com', NEW_PASSWORD))).json().status, 'OK', 'the new one signs in')
})

t.test('guessing the current password is blocked like sign-in', async (t) => {
  const tab = await signedInTab(stack, 'guesser@example.com', PASSWORD)
  const answers: number[] = []
  for (let i = 0; i < 5; i++) answers.push((await change(tab, { currentPassword: `guess ${i}`, newPassword: NEW_PASSWORD })).statusCode)
  t.same(answers, [400, 400, 400, 400, 429], 'the attempt that reaches the limit is refused as blocked')
  const right = await change(tab, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
  t.equal(right.statusCode, 429, 'while blocked even the right password is refused')
  t.equal(right.json().code, 'BFF_PASSWORD_CHANGE_BLOCKED')
  t.ok(Number(right.headers['retry-after']) > 0, 'with Retry-After')
  t.equal((await browser(stack.bff).post('/auth/signin', credentials('guesser@example.com', PASSWORD))).statusCode, 429, 'and sign-in is blocked for the account too')
})

t.test('without a session: the SDK answers 401, nothing changes', async (t) => {
  const visitor = browser(stack.bff)
  const response = await change(visitor, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
  t.equal(response.statusCode, 401)
  const unverified = browser(stack.bff)
  await unverified.post('/auth/signup', credentials('fresh-pw@example.com', PASSWORD))
  const early = await change(unverified, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
  t.equal(early.statusCode, 403, 'an unverified email is a failed claim (403)')
  t.equal((await browser(stack.bff).post('/auth/signin', credentials('fresh-pw@example.com', PASSWORD))).json().status, 'OK', 'the password is unchanged')
})
