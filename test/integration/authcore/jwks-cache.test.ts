import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { decodeJwt, JWKS_MAX_AGE_S, KEY_CACHE_MS, KEY_OVERLAP_MS } from '../../../server/authcore/keys.ts'
import { testCoreConfig, openTestDatabase } from '../../helpers.ts'
import { TEST_SECRET } from './harness.ts'

// Keys: the JWKS said `Cache-Control: max-age` until the next scheduled key (about 7
// days), so after a manual rotation a cache that honours it — a CDN, a proxy, a client that does
// as the header says — kept a set without the new key when tokens signed with it arrived. A key is
// published a minute before it signs: a cache honouring the header must have it by then. The clock
// is the core's, moved a second at a time across a rotation; at every second a new session's token
// must verify against the set the cache holds at that moment.
// The answer is the real core's `max-age=60` (what supertokens-node assumes and its
// tests read), not 30 s; a key is published 90 s before it signs, so the guarantee holds.

let now = Date.UTC(2026, 10, 27, 9)
const operatorToken = 'operator-token-for-the-jwks-test-0123456789'
const db = await openTestDatabase(t)
// A short scheduled interval (6 minutes) to cross a scheduled key as well as a manual one.
const coreOptions = {
  config: testCoreConfig(),
  db,
  secret: TEST_SECRET,
  apiKeys: null,
  operatorToken,
  publicDefaults: { signingKeyUpdateInterval: 0.1 },
  now: () => now,
} as const
const core = await buildAuthCore(coreOptions)
t.teardown(() => core.close())

/** A cache that does what the JWKS answer's Cache-Control says: kept until max-age, then fetched again. */
class HonouringCache {
  /** `prefix`: the app (`/appid-x`); `instance`: the core instance it asks. */
  constructor(
    private readonly prefix = '',
    private readonly instance: FastifyInstance = core,
  ) {}

  kids = new Set<string>()
  private expiresAt = Number.NEGATIVE_INFINITY
  fetches = 0
  readonly maxAges: number[] = []

  async keys(): Promise<Set<string>> {
    if (now < this.expiresAt) return this.kids
    return this.fetch()
  }

  /** Fetches the set now, whatever the cached one's age. */
  async fetch(): Promise<Set<string>> {
    const response = await this.instance.inject({ method: 'GET', url: `${this.prefix}/.well-known/jwks.json` })
    const control = String(response.headers['cache-control'])
    const maxAge = Number(/(?:^|,)\s*max-age=(\d+)/.exec(control)?.[1])
    if (!Number.isInteger(maxAge)) throw new Error(`no max-age in ${control}`)
    this.maxAges.push(maxAge)
    this.kids = new Set((response.json() as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid))
    this.expiresAt = now + maxAge * 1000
    this.fetches++
    return this.kids
  }
}

async function newSessionKid(prefix = ''): Promise<string> {
  const response = await core.inject({
    method: 'POST',
    url: `${prefix}/recipe/session`,
    headers: { 'cdi-version': '5.4', 'content-type': 'application/json; charset=utf-8' },
    payload: JSON.stringify({ userId: 'user-1', userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false }),
  })
  const body = response.json() as { accessToken: { token: string } }
  return String(decodeJwt(body.accessToken.token)!.header.kid)
}

/** Moves the clock a second at a time for `seconds`, checking at each one that the cache knows the key that signs now. */
async function walk(t: Test, cache: HonouringCache, seconds: number, at?: { second: number; action: () => Promise<void> }, prefix = ''): Promise<Set<string>> {
  const signers = new Set<string>()
  for (let second = 0; second < seconds; second++) {
    if (at?.second === second) await at.action()
    const kid = await newSessionKid(prefix)
    signers.add(kid)
    const known = await cache.keys()
    if (!known.has(kid)) {
      t.fail(`${new Date(now).toISOString()}: a token signed by ${kid} arrived, the cache holds ${[...known].join(', ')}`)
      return signers
    }
    now += 1_000
  }
  return signers
}

t.test('after a manual rotation, a cache honouring the header has the new key before it signs', async (t) => {
  const cache = new HonouringCache()
  const before = await newSessionKid()
  await cache.keys()
  let rotated = ''
  const signers = await walk(t, cache, 3 * 60, {
    second: 20,
    action: async () => {
      const response = await core.inject({ method: 'POST', url: '/internal/keys/rotate', headers: { authorization: `Bearer ${operatorToken}` } })
      rotated = (response.json() as { kid: string }).kid
    },
  })
  t.ok(signers.has(before) && signers.has(rotated), `the walk crossed the rotation: ${before} signed, then ${rotated}`)
  t.ok(cache.maxAges.every((maxAge) => maxAge >= 1 && maxAge <= JWKS_MAX_AGE_S), `max-age stays within ${JWKS_MAX_AGE_S} s: ${cache.maxAges.join(', ')}`)
  t.ok(JWKS_MAX_AGE_S * 1000 + KEY_CACHE_MS < KEY_OVERLAP_MS, `with the core's own key cache (${KEY_CACHE_MS / 1000} s), a published key is fetched before it signs`)
})

t.test('across a scheduled key too, and the answer keeps its shape', async (t) => {
  const cache = new HonouringCache()
  const first = await newSessionKid()
  // 6 minutes of keys, walked for 8: the next scheduled key is published and signs on the way.
  const signers = await walk(t, cache, 8 * 60)
  t.ok(signers.size >= 2 && signers.has(first), `keys that signed: ${[...signers].join(', ')}`)
  const response = await core.inject({ method: 'GET', url: '/.well-known/jwks.json' })
  t.match(response.headers['cache-control'], /^max-age=\d+, must-revalidate$/)
})

t.test('with the default interval: the real core\'s max-age=60, and a rotated key reaches a cache before it signs, even through an instance that has not seen it', async (t) => {
  // An app with the default settings (a key a week), and a second core instance on the same
  // database whose key cache (KEY_CACHE_MS) is loaded just before the rotation.
  const created = await core.inject({ method: 'PUT', url: '/recipe/multitenancy/app/v2', headers: { 'cdi-version': '5.4', 'content-type': 'application/json' }, payload: { appId: 'weekly', coreConfig: {} } })
  t.equal(created.statusCode, 200, created.body)
  const other = await buildAuthCore(coreOptions)
  t.teardown(() => other.close())
  const prefix = '/appid-weekly'
  const before = await newSessionKid(prefix)
  const direct = new HonouringCache(prefix, core)
  const throughOther = new HonouringCache(prefix, other)
  await direct.keys()
  await throughOther.keys()
  t.same(direct.maxAges, [60], 'the real core\'s 60 s, not 30')
  const answer = await core.inject({ method: 'GET', url: `${prefix}/.well-known/jwks.json` })
  t.equal(answer.headers['cache-control'], 'max-age=60, must-revalidate')

  // The other instance loads its key cache the millisecond before the rotation...
  now += 59_999
  await throughOther.fetch()
  now += 1
  const rotatedAt = now
  const rotation = await core.inject({ method: 'POST', url: `${prefix}/internal/keys/rotate`, headers: { authorization: `Bearer ${operatorToken}` } })
  const rotated = (rotation.json() as { kid: string }).kid
  // ...and answers a client from it, without the new key, at the last moment its cache is trusted.
  now = rotatedAt + KEY_CACHE_MS - 2
  t.notOk((await throughOther.fetch()).has(rotated), 'an instance whose key cache predates the rotation answers without the new key')
  t.equal(throughOther.maxAges.at(-1), 60)

  // Past the edges: the old key signs up to the last millisecond of the lead, the new one from then on.
  now = rotatedAt + KEY_OVERLAP_MS - 1
  t.equal(await newSessionKid(prefix), before, 'the old key signs until the new one is 90 s old')
  t.ok((await throughOther.keys()).has(rotated) && (await direct.keys()).has(rotated), 'by then both caches, honouring max-age=60, hold the new key')
  now = rotatedAt + KEY_OVERLAP_MS
  t.equal(await newSessionKid(prefix), rotated, 'the new key signs from the 90th second')
  t.ok(KEY_OVERLAP_MS > 60_000 + KEY_CACHE_MS, 'the lead covers the max-age and the instance cache')

  // A walk of three minutes around a second rotation, every second, through the other instance.
  const signers = await walk(t, throughOther, 3 * 60, {
    second: 20,
    action: async () => {
      await core.inject({ method: 'POST', url: `${prefix}/internal/keys/rotate`, headers: { authorization: `Bearer ${operatorToken}` } })
    },
  }, prefix)
  t.equal(signers.size, 2, `the walk crossed the rotation: ${[...signers].join(', ')}`)
  t.ok(throughOther.maxAges.every((maxAge) => maxAge === 60), 'every answer said 60 s')
})
