import { randomBytes } from 'node:crypto'
import t from 'tap'
import { UnsubscribeTokens } from '../../../server/api/notifications/mail.ts'

// An unsubscribe link's token is ours only as we wrote it: base64url drops the last character's
// two low bits, so four spellings decode to one signature, and three of them were never issued.

t.test('an unsubscribe token is accepted as issued, and refused spelled otherwise or changed', async (t) => {
  const now = Date.parse('2026-12-07T09:00:00Z')
  const tokens = new UnsubscribeTokens(randomBytes(32), () => now)
  const token = tokens.issue('9b1f0c1e-5d6a-4c55-8b1e-1f0c1e5d6a4c', 'de')
  t.match(tokens.check(token), { userId: '9b1f0c1e-5d6a-4c55-8b1e-1f0c1e5d6a4c' }, 'the issued token')
  const [payload, signature] = token.split('.') as [string, string]
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const respelled = `${signature.slice(0, -1)}${alphabet[alphabet.indexOf(signature.at(-1)!) ^ 1]}`
  t.same(Buffer.from(respelled, 'base64url'), Buffer.from(signature, 'base64url'), 'the other spelling decodes to the same signature')
  t.equal(tokens.check(`${payload}.${respelled}`), 'invalid', 'and is refused')
  t.equal(tokens.check(`${payload}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`), 'invalid', 'a changed signature')
  t.equal(tokens.check(`${payload}x.${signature}`), 'invalid', 'a changed payload')
})
