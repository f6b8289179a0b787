import t from 'tap'
import { base32Decode, base32Encode, totpCode } from '../../../server/authcore/totp.ts'

// RFC 6238 appendix B (SHA-1) and RFC 4648 base32 vectors: the codes our core accepts are the
// codes real authenticator apps show.

t.test('RFC 6238 SHA-1 test vectors', async (t) => {
  const secret = Buffer.from('12345678901234567890')
  const vectors: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ]
  for (const [time, expected] of vectors) t.equal(totpCode(secret, Math.floor(time / 30), 8), expected, `T=${time}`)
  t.equal(totpCode(secret, 1, 6), '287082', 'six digits are the last six')
})

t.test('base32 round trip and RFC 4648 vectors', async (t) => {
  t.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI')
  t.equal(base32Decode('MZXW6YTBOI').toString(), 'foobar')
  t.equal(base32Decode('MZXW6YTBOI======').toString(), 'foobar')
  const random = Buffer.from('0123456789abcdefghij')
  t.same(base32Decode(base32Encode(random)), random)
  t.equal(base32Encode(random).length, 32)
})
