import t from 'tap'
import { browser, buildStack, signedInTab, credentials } from '../../helpers.ts'

// The profile's signed-in devices: the account's live sessions with the browser each
// began in, when it began and was last used, "this device"; ending one or all the others ends it
// everywhere; another account's sessions cannot be seen or ended.

const PASSWORD = 'correct horse battery'
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:135.0) Gecko/20100101 Firefox/135.0'
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Mobile/15E148 Safari/604.1'
const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })

async function phoneOf(email: string) {
  const phone = browser(stack.bff)
  t.equal((await phone.post('/auth/signin', credentials(email), { 'user-agent': SAFARI })).json().status, 'OK')
  return phone
}

t.test('the devices of the account, this one first; ending one ends it', async (t) => {
  const laptop = await signedInTab(stack, 'devices@example.com', PASSWORD, { 'user-agent': FIREFOX })
  const phone = await phoneOf('devices@example.com')
  const list = await laptop.get('/api/user/sessions')
  t.equal(list.statusCode, 200)
  t.equal(list.headers['cache-control'], 'no-store')
  const devices = list.json() as Array<{ handle: string; current: boolean; createdAt: string; lastUsedAt: string; userAgent: string | null }>
  t.equal(devices.length, 2)
  t.match(devices[0], { current: true, userAgent: FIREFOX })
  t.match(devices[1], { current: false, userAgent: SAFARI })
  for (const device of devices) t.ok(Date.parse(device.lastUsedAt) >= Date.parse(device.createdAt), 'used at or after it began')

  const before = devices[1]!.lastUsedAt
  t.equal((await phone.post('/auth/session/refresh', {}, { 'user-agent': SAFARI })).statusCode, 200)
  const after = ((await laptop.get('/api/user/sessions')).json() as typeof devices).find((device) => device.handle === devices[1]!.handle)!
  t.ok(Date.parse(after.lastUsedAt) >= Date.parse(before), 'a refresh is a use')

  const self = await laptop.delete(`/api/user/sessions/${devices[0]!.handle}`)
  t.equal(self.statusCode, 400)
  t.equal(self.json().code, 'BFF_SESSION_IS_CURRENT')
  t.equal((await laptop.delete(`/api/user/sessions/${devices[1]!.handle}`)).statusCode, 204)
  t.equal((await phone.post('/auth/session/refresh')).statusCode, 401, 'the phone is signed out')
  t.equal(((await laptop.get('/api/user/sessions')).json() as unknown[]).length, 1)
  t.equal((await laptop.get('/api/user')).statusCode, 200, 'this device goes on')
})

t.test('ending all the others', async (t) => {
  const laptop = await signedInTab(stack, 'many@example.com', PASSWORD)
  const phones = [await phoneOf('many@example.com'), await phoneOf('many@example.com')]
  const ended = await laptop.delete('/api/user/sessions')
  t.equal(ended.statusCode, 200)
  t.same(ended.json(), { sessionsEnded: 2 })
  for (const phone of phones) t.equal((await phone.post('/auth/session/refresh')).statusCode, 401)
  t.same(((await laptop.get('/api/user/sessions')).json() as Array<{ current: boolean }>).map((device) => device.current), [true])
})

t.test("another account's devices are neither listed nor ended; writes need the custom header", async (t) => {
  const alice = await signedInTab(stack, 'alice-dev@example.com', PASSWORD)
  const mallory = await signedInTab(stack, 'mallory-dev@example.com', PASSWORD)
  const alices = (await alice.get('/api/user/sessions')).json() as Array<{ handle: string }>
  t.notOk(((await mallory.get('/api/user/sessions')).json() as Array<{ handle: string }>).some((device) => device.handle === alices[0]!.handle))
  const stolen = await mallory.delete(`/api/user/sessions/${alices[0]!.handle}`)
  t.equal(stolen.statusCode, 404)
  t.equal(stolen.json().code, 'BFF_SESSION_NOT_FOUND')
  t.equal((await mallory.delete('/api/user/sessions/not-a-handle')).statusCode, 404, 'an unknown handle answers the same')
  t.equal((await alice.get('/api/user')).statusCode, 200, 'alice is still signed in')
  const forged = await stack.bff.inject({ method: 'DELETE', url: '/api/user/sessions', headers: { cookie: alice.jar.header('/api/user/sessions') } })
  t.equal(forged.statusCode, 403)
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')
  t.equal((await browser(stack.bff).get('/api/user/sessions')).statusCode, 401, 'no session: 401')
})
