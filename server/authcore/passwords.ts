import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2'
import { hash as bcryptHash, verify as bcryptVerify } from '@node-rs/bcrypt'
import type { CoreSettings } from './settings.ts'

// Password hashes in the formats the real core writes and imports (AUTH-CORE.md §5.2): bcrypt
// `$2b$` (cost 11 by default) or `$argon2id$` (the core's parameters by default; both costs are the
// deployment's to lower, AUTH_CORE_BCRYPT_LOG_ROUNDS and AUTH_CORE_ARGON2_*). Verification accepts
// both whatever the app's current choice, so switching algorithms keeps old passwords working.
// Both libraries hash on their own threads: the event loop keeps serving meanwhile.

const ARGON2ID = 2

export async function hashPassword(password: string, settings: CoreSettings): Promise<string> {
  if (settings.passwordHashingAlg === 'ARGON2') {
    return argon2Hash(password, { algorithm: ARGON2ID, timeCost: settings.argon2Iterations, memoryCost: settings.argon2MemoryKb, parallelism: settings.argon2Parallelism, outputLen: 32 })
  }
  // The library writes "$2y$"; "$2y$" and "$2b$" are the same corrected algorithm, and "$2b$" is
  // what the real core and most libraries name it.
  return (await bcryptHash(password, settings.bcryptLogRounds)).replace(/^\$2y\$/, '$2b$')
}

/** What makes two settings hash alike: one decoy hash per distinct value (a decoy must cost what a real check costs). */
export function hashingKey(settings: CoreSettings): string {
  return settings.passwordHashingAlg === 'ARGON2'
    ? `ARGON2:${settings.argon2Iterations}:${settings.argon2MemoryKb}:${settings.argon2Parallelism}`
    : `BCRYPT:${settings.bcryptLogRounds}`
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
