import t from 'tap'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { decodeJwt } from '../../../server/authcore/keys.ts'
import { testCoreConfig, openTestDatabase } from '../../helpers.ts'
import { TEST_SECRET } from './harness.ts'

// With a signing-key update interval shorter than the key's lead (supertokens-node's
// own tests set access_token_dynamic_signing_key_update_interval to 0.001 h, 3.6 s), every call
// made a new key and every refresh signed with another one. The real core signs with the current
// key until its interval ends; the next key, made a little before, signs from then on. The clock
// is the core's, moved by the test; every answer is the core's HTTP answer.

const t0 = Date.UTC(2026, 11, 6, 3)
let now = t0
const interval = 3_600
const db = await openTestDatabase(t)
const core = await buildAuthCore({
  config: testCoreConfig(),
  db,
  secret: TEST_SECRET,
  apiKeys: null,
  publicDefaults: { signingKeyUpdateInterval: 0.001 },
  now: () => now,
})
t.teardown(() => core.close())

const headers = { 'cdi-version': '5.4', 'content-type': 'application/json; charset=utf-8' }
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(url: string, payload: unknown): Promise<Record<string, any>> {
  const response = await core.inject({ method: 'POST', url, headers, payload: JSON.stringify(payload) })
  if (response.statusCode !== 200) t.fail(`${url}: ${response.statusCode} ${response.body}`)
  return response.json()
}
const kidOf = (token: string) => String(decodeJwt(token)!.header.kid)
const jwksKids = async () => ((await core.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid)

const created = await call('/recipe/session', { userId: 'user-1', userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false })
let refreshToken = created.refreshToken.token as string
const first = kidOf(created.accessToken.token)

async function refreshKid(at: number): Promise<string> {
  now = t0 + at
  const refreshed = await call('/recipe/session/refresh', { refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true })
  t.equal(refreshed.status, 'OK', `refresh at +${at} ms`)
  refreshToken = refreshed.refreshToken.token
  return kidOf(refreshed.accessToken.token)
}

async function verifies(token: string): Promise<string> {
  return (await call('/recipe/session/verify', { accessToken: token, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false })).status
}

t.test('refreshes inside the interval sign with the current key; the first one past it with the next', async (t) => {
  t.equal(await refreshKid(1_000), first, 'a second in')
  t.equal(await refreshKid(2_000), first, 'two seconds in: the same key, not a new one per call')
  t.equal(await refreshKid(3_000), first, 'three seconds in, with the next key already published')
  t.equal(await refreshKid(interval - 1), first, 'the last millisecond of the interval')
  const kids = await jwksKids()
  t.equal(kids.length, 2, `one key signing, one published ahead: ${kids.join(', ')}`)
  const next = await refreshKid(interval)
  t.not(next, first, 'at the end of the interval the next key signs')
  t.ok(kids.includes(next), 'the key that signs now was in the JWKS before it signed')
  // It was made by the refresh three seconds in, so its own interval ends 3.6 s after that.
  const nextEnds = Number(next.slice(2)) - t0 + interval
  t.equal(await refreshKid(interval + 1_000), next, 'and keeps signing')
  t.equal(await refreshKid(nextEnds - 1), next, 'until its own interval ends')
  t.not(await refreshKid(nextEnds), next, 'then the one after it')
  t.ok((await jwksKids()).length <= 4, 'a handful of keys, not one per call')
})

t.test('tokens signed by earlier keys verify while they last', async (t) => {
  now = t0 + 5 * interval
  t.equal(await verifies(created.accessToken.token), 'OK', 'the first token, signed by the first key, several keys later')
  t.ok((await jwksKids()).includes(first), 'its key is still published')
  now = t0 + 3_600_000 - 1
  t.equal(await verifies(created.accessToken.token), 'OK', 'up to its last millisecond (an hour)')
  now = t0 + 3_600_000 + 1_000
  t.equal(await verifies(created.accessToken.token), 'TRY_REFRESH_TOKEN', 'then it is expired, not unknown')
})

t.test('a cache honouring the JWKS header is never told to keep a set past the next key', async (t) => {
  now = t0 + 10 * interval
  const response = await core.inject({ method: 'GET', url: '/.well-known/jwks.json' })
  t.equal(response.headers['cache-control'], 'max-age=1, must-revalidate')
})
