import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2'
import { hash as bcryptHash, verify as bcryptVerify } from '@node-rs/bcrypt'
import type { CoreSettings } from './settings.ts'

// Password hashes in the formats the real core writes and imports (AUTH-CORE.md §5.2): bcrypt
// `$2b$` (cost 11 by default) or `$argon2id$` with the core's parameters. Verification accepts
// both whatever the app's current choice, so switching algorithms keeps old passwords working.
// Both libraries hash on their own threads: the event loop keeps serving meanwhile.

const ARGON2ID = 2

export async function hashPassword(password: string, settings: CoreSettings): Promise<string> {
  if (settings.passwordHashingAlg === 'ARGON2') {
    return argon2Hash(password, { algorithm: ARGON2ID, timeCost: 1, memoryCost: 87_795, parallelism: 2, outputLen: 32 })
  }
  // The library writes "$2y$"; "$2y$" and "$2b$" are the same corrected algorithm, and "$2b$" is
  // what the real core and most libraries name it.
  return (await bcryptHash(password, settings.bcryptLogRounds)).replace(/^\$2y\$/, '$2b$')
}

/** False for a wrong password and for any hash we cannot read: sign-in never tells them apart. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    if (stored.startsWith('$argon2')) return await argon2Verify(stored, password)
    if (/^\$2[abxy]\$/.test(stored)) return await bcryptVerify(password, stored)
    return false
  } catch {
    return false
  }
}
