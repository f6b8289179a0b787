import t from 'tap'
import { newNonce } from '../../../server/bff/plugins/security-headers.ts'

t.test('page nonces are 128 random bits as hex, never the same twice across refills of the pool', async (t) => {
  // 256 nonces a draw from the CSPRNG: 1,000 spans four draws.
  const nonces = Array.from({ length: 1_000 }, () => newNonce())
  t.ok(nonces.every((nonce) => /^[0-9a-f]{32}$/.test(nonce)), 'each 32 hex digits')
  t.equal(new Set(nonces).size, nonces.length, 'all different')
  // A refill draws new bytes: the first nonce of each draw differs from the draw before.
  t.not(nonces[0], nonces[256])
  t.not(nonces[256], nonces[512])
})
