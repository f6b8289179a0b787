import t, { type Test } from 'tap'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { decodeJwt, KEY_OVERLAP_MS } from '../../../server/authcore/keys.ts'
import { testCoreConfig, openTestDatabase, within } from '../../helpers.ts'
import { TEST_SECRET } from './harness.ts'

// A refresh (and a database-checked verify, and a regenerate) signs a token while
// the key cache is stale — past its 5 s, after a rotation, when a new key starts signing. On
// PGlite's single connection this used to deadlock: the session transaction held the connection
// while the key store read keys through another. The clock is the core's, moved by the test.

let now = Date.UTC(2026, 10, 23, 12)
const db = await openTestDatabase(t)
const core = await buildAuthCore({ config: testCoreConfig(), db, secret: TEST_SECRET, apiKeys: null, now: () => now })
t.teardown(() => core.close())

const headers = { 'cdi-version': '5.4', 'content-type': 'application/json; charset=utf-8' }

/** A core call that must answer; a deadlock fails here instead of hanging the file. */
async function call(url: string, payload: unknown): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await within(core.inject({ method: 'POST', url, headers, payload: JSON.stringify(payload) }))
  t.equal(response.statusCode, 200, `${url}: ${response.body}`)
  return response.json()
}

const kidOf = (token: string) => decodeJwt(token)!.header.kid
let session = await call('/recipe/session', { userId: 'user-1', userDataInJWT: { role: 'x' }, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false })
t.equal(session.status, 'OK')

/** Refresh, verify the child with a database check (promotes it), regenerate: each signs a token. */
async function everySigningCall(t: Test, label: string) {
  const refreshed = await call('/recipe/session/refresh', { refreshToken: session.refreshToken.token, enableAntiCsrf: false, useDynamicSigningKey: true })
  t.equal(refreshed.status, 'OK', `${label}: refresh`)
  const verified = await call('/recipe/session/verify', { accessToken: refreshed.accessToken.token, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: true })
  t.equal(verified.status, 'OK', `${label}: verify with checkDatabase`)
  t.ok(verified.accessToken?.token, `${label}: the promoted session gets a new token`)
  const regenerated = await call('/recipe/session/regenerate', { accessToken: verified.accessToken.token, userDataInJWT: { role: label } })
  t.equal(regenerated.status, 'OK', `${label}: regenerate`)
  session = { ...refreshed, accessToken: regenerated.accessToken }
  return regenerated.accessToken.token as string
}

t.test('after the key cache expired', async (t) => {
  now += 6_000
  await everySigningCall(t, 'stale cache')
})

t.test('after a rotation, and when the new key starts signing', async (t) => {
  const before = kidOf(session.accessToken.token)
  const rotated = (await core.services.keys.rotate('public', (await core.services.apps.settings('public'))!))
  now += 6_000
  t.equal(kidOf(await everySigningCall(t, 'rotated')), before, 'the new key is published but does not sign yet')
  now += KEY_OVERLAP_MS
  t.equal(kidOf(await everySigningCall(t, 'new key')), rotated, 'a minute later the new key signs')
})

t.test('when the signing key reaches its update interval, the key is made on the way', async (t) => {
  const settings = (await core.services.apps.settings('public'))!
  now += settings.signingKeyUpdateInterval * 3_600_000
  const token = await everySigningCall(t, 'lazy rotation')
  t.ok(kidOf(token), 'signed')
  const jwks = await core.inject({ method: 'GET', url: '/.well-known/jwks.json' })
  t.ok(jwks.json().keys.some((key: { kid: string }) => key.kid === kidOf(token)), 'with a published key')
})

t.test('the core still answers everything else', async (t) => {
  t.equal((await core.inject({ method: 'GET', url: '/hello' })).body, 'Hello')
})
