import t from 'tap'
import { request } from 'undici'
import { browser, buildStack, lastMailLink } from '../../helpers.ts'

// Load and fault test: the product API in a process of its own sheds load like the
// BFF (503 API_OVERLOADED before Fastify), except the BFF's own PUT /api/user at sign-up. Refused,
// that call left a new account without its record — the BFF only logs the failure — and the
// account's first request after the email link answered 404 API_USER_NOT_FOUND (every page:
// "account disabled") until the next sign-in. Found by bench/bench-load.ts. The lag is the test's
// signal (eventLoopLags); that a real lag is measured and shed is load-shedding.test.ts's.

t.test('a sign-up while the API sheds load still makes the account record; other API requests are refused meanwhile', async (t) => {
  let lagging = false
  const stack = await buildStack(t, {
    auth: true,
    apiShedsLoad: true,
    env: { OVERLOAD_EVENT_LOOP_DELAY_MS: '40', OVERLOAD_PRESSURE_IN_FLIGHT: '0' },
    eventLoopLags: () => lagging,
  })
  const email = 'busy-day@example.com'
  const tab = browser(stack.bff)

  // The API's event loop lags, as under a burst of requests.
  lagging = true

  const refused = await request(`${stack.apiUrl}/api/categories`, { headers: { accept: 'application/json' } })
  t.equal(refused.statusCode, 503, 'the API sheds a request of its own')
  t.match(await refused.body.json(), { code: 'API_OVERLOADED' })
  const signUp = await tab.post('/auth/signup', { formFields: [{ id: 'email', value: email }, { id: 'password', value: 'correct horse battery' }] })
  t.equal(signUp.json().status, 'OK', 'signed up while the API was overloaded')
  const stillRefused = await request(`${stack.apiUrl}/api/categories`)
  t.equal(stillRefused.statusCode, 503, 'the API was still shedding after the sign-up')
  await stillRefused.body.dump()

  lagging = false
  const answered = await request(`${stack.apiUrl}/api/categories`)
  t.equal(answered.statusCode, 200, 'answered again once the lag is gone')
  await answered.body.dump()
  await tab.post('/auth/user/email/verify', { method: 'token', token: lastMailLink(stack, email).searchParams.get('token') })
  const accepted = await tab.post('/api/user/accept-tos', { isInMailList: false })
  t.equal(accepted.statusCode, 200, 'the account has its record: the terms are accepted, no API_USER_NOT_FOUND')
  t.match(accepted.json(), { email })
  const me = await tab.get('/api/user')
  t.equal(me.statusCode, 200)
  t.match(me.json(), { email, isTosAccepted: true })
})
