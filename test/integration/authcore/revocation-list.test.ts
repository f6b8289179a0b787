import t from 'tap'
import { REVOCATION_STALE_MS, RevokedSessions } from '../../../server/http/revoked-sessions.ts'
import { startCore } from './harness.ts'

// The revocation list as an API or BFF instance reads it (decision 009), against a real core:
// what a removed session looks like, when an entry is forgotten, and when the list is too old to
// trust — each at its edge, on clocks the test moves.

const KEY = 'revocation-list-test-key-0123456789'
const { core, url } = await startCore(t, { apiKeys: [KEY] })
const headers = { 'cdi-version': '5.4', 'content-type': 'application/json', 'api-key': KEY }
const post = async (path: string, payload: unknown) => (await core.inject({ method: 'POST', url: path, headers, payload: JSON.stringify(payload) })).json()

async function newSession(userId: string): Promise<string> {
  const created = await post('/recipe/session', { userId, userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false })
  return created.session.handle as string
}

t.test('a removed session is listed until its last access token expires, then forgotten', async (t) => {
  let wall = Date.now()
  const list = new RevokedSessions({ coreUrl: url, apiKey: KEY, now: () => wall })
  const kept = await newSession('keeper')
  const ended = await newSession('leaver')
  await list.read()
  t.notOk(list.isRevoked(ended), 'a live session is not listed')
  t.same((await post('/recipe/session/remove', { sessionHandles: [ended] })).sessionHandlesRevoked, [ended])
  await list.read()
  t.ok(list.isRevoked(ended), 'the removed one is')
  t.notOk(list.isRevoked(kept), 'the other is not')

  const others = await Promise.all(['a', 'b', 'c'].map((user) => newSession(user)))
  await post('/recipe/session/remove', { userId: 'a' })
  await post('/recipe/session/remove', { sessionHandles: others.slice(1) })
  await list.read()
  t.ok(others.every((handle) => list.isRevoked(handle)), 'by user and by handles, read incrementally')

  // The core's default access-token lifetime is an hour.
  wall += 3_600_000 - 5_000
  t.ok(list.isRevoked(ended), 'still refused just before its last token expires')
  wall += 10_000
  t.notOk(list.isRevoked(ended), 'forgotten once no token of it can be valid')
})

t.test('the list is trusted for 10 s after a read, not a moment longer, and a core that cannot be read keeps it stale', async (t) => {
  let tick = 0
  const list = new RevokedSessions({ coreUrl: url, apiKey: KEY, monotonic: () => tick })
  t.notOk(list.fresh, 'never read: not trusted')
  await list.read()
  t.ok(list.fresh)
  tick += REVOCATION_STALE_MS - 1
  t.ok(list.fresh, 'just inside the bound')
  tick += 1
  t.notOk(list.fresh, 'at the bound: stale')

  const wrongKey = new RevokedSessions({ coreUrl: url, apiKey: 'not-the-key-0123456789abc', monotonic: () => tick })
  await t.rejects(wrongKey.read(), /401/)
  t.notOk(wrongKey.fresh, 'a core that refuses the key gives no list')
  const gone = new RevokedSessions({ coreUrl: 'http://127.0.0.1:9', apiKey: KEY, monotonic: () => tick })
  await t.rejects(gone.read())
  t.notOk(gone.fresh, 'nor does one that cannot be reached')
})
