import t from 'tap'
import { SecretBox } from '../../../server/authcore/crypto.ts'
import { decodeJwt, KEY_OVERLAP_MS, KeyStore, signJwt, verifyJwtSignature } from '../../../server/authcore/keys.ts'
import { migrateAuthCoreSchema } from '../../../server/authcore/app.ts'
import { DEFAULT_SETTINGS } from '../../../server/authcore/settings.ts'
import { openTestDatabase } from '../../helpers.ts'
import { TEST_SECRET } from './harness.ts'

// AUTH-CORE.md §5.3 signing keys with a short update interval and a clock the test moves: a new
// key is published before it signs, old tokens verify until their key retires, and the JWKS
// always holds the key that signs.

const db = await openTestDatabase(t)
await migrateAuthCoreSchema(db)
let now = Date.UTC(2026, 0, 1)
const clock = () => now
const box = new SecretBox(TEST_SECRET)
const keys = new KeyStore(db, box, clock)
/** A 10-minute rotation, 5-minute access tokens. */
const settings = { ...DEFAULT_SETTINGS, signingKeyUpdateInterval: 10 / 60, accessTokenValidity: 300 }
const interval = 10 * 60_000

async function jwksKids() {
  return (await keys.jwks('public', settings)).keys.map((k) => k.kid)
}

t.test('rotation: publish first, sign after the overlap, retire after interval + 2 token lifetimes', async (t) => {
  const first = await keys.signingKey('public', settings, false)
  t.equal(first.kid, `d-${now}`)
  const token = signJwt(first, { sub: 'u' })
  t.same(await jwksKids(), [first.kid])

  now += interval - KEY_OVERLAP_MS + 1_000
  const stillFirst = await keys.signingKey('public', settings, false)
  t.equal(stillFirst.kid, first.kid, 'the new key is not used for signing yet')
  const kids = await jwksKids()
  t.equal(kids.length, 2, 'but it is already published')
  const second = kids[0]!
  t.not(second, first.kid)

  now += KEY_OVERLAP_MS
  const signer = await keys.signingKey('public', settings, false)
  t.equal(signer.kid, second, 'a minute later it signs')
  t.ok((await jwksKids()).includes(signer.kid), 'the JWKS holds the signing key')

  const old = await keys.verificationKey('public', first.kid)
  t.ok(old && verifyJwtSignature(decodeJwt(token)!, old), 'tokens signed by the previous key still verify')

  now = Number(first.kid.slice(2)) + interval + 2 * settings.accessTokenValidity * 1000 + 1
  await keys.signingKey('public', settings, false)
  t.notOk((await jwksKids()).includes(first.kid), 'retired after the interval and two access-token lifetimes')
})

t.test('the static key never rotates; a forced rotation publishes a new dynamic key', async (t) => {
  const staticKey = await keys.signingKey('public', settings, true)
  t.match(staticKey.kid, /^s-[0-9a-f-]{36}$/)
  now += 10 * interval
  t.equal((await keys.signingKey('public', settings, true)).kid, staticKey.kid)
  const before = await jwksKids()
  const rotated = await keys.rotate('public', settings)
  const after = await jwksKids()
  t.ok(after.includes(rotated) && !before.includes(rotated))
  t.ok(after.includes(staticKey.kid))
})

t.test('another instance sees keys made by the first; a wrong secret cannot read them', async (t) => {
  const second = new KeyStore(db, box, clock)
  t.same((await second.jwks('public', settings)).keys.map((k) => k.kid), await jwksKids())
  const wrong = new KeyStore(db, new SecretBox('another-secret-another-secret-0123456789'), clock)
  await t.rejects(wrong.signingKey('public', settings, false), /AUTH_CORE_SECRET differs/)
})
