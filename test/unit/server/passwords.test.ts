import t from 'tap'
import { hashPassword, verifyPassword } from '../../../server/authcore/passwords.ts'
import { DEFAULT_SETTINGS } from '../../../server/authcore/settings.ts'
import { loadConfig } from '../../../server/config.ts'

// AUTH-CORE.md §5.2: the formats the real core writes and imports, verified whatever the current choice.

t.test('bcrypt $2b$ at cost 11 by default; $2a$ and $2y$ spellings of the same hash verify', async (t) => {
  const hash = await hashPassword('Passw0rd!1', DEFAULT_SETTINGS)
  t.match(hash, /^\$2b\$11\$[./A-Za-z0-9]{53}$/)
  t.ok(await verifyPassword('Passw0rd!1', hash))
  t.ok(await verifyPassword('Passw0rd!1', hash.replace('$2b$', '$2a$')))
  t.ok(await verifyPassword('Passw0rd!1', hash.replace('$2b$', '$2y$')))
  t.notOk(await verifyPassword('passw0rd!1', hash))
})

t.test('argon2id with the real core\'s parameters; either kind verifies, garbage never does', async (t) => {
  const hash = await hashPassword('Passw0rd!1', { ...DEFAULT_SETTINGS, passwordHashingAlg: 'ARGON2' })
  t.match(hash, /^\$argon2id\$v=19\$m=87795,t=1,p=2\$/)
  t.ok(await verifyPassword('Passw0rd!1', hash))
  t.notOk(await verifyPassword('wrong', hash))
  t.notOk(await verifyPassword('Passw0rd!1', 'plain-text'))
  t.notOk(await verifyPassword('Passw0rd!1', '$2b$11$broken'))
})

t.test('the deployment sets the cost (AUTH_CORE_ARGON2_*, AUTH_CORE_BCRYPT_LOG_ROUNDS): the core\'s by default, validated', async (t) => {
  t.same(loadConfig({}).authCoreHashing, { bcryptLogRounds: 11, argon2Iterations: 1, argon2MemoryKb: 87_795, argon2Parallelism: 2 }, 'the real core\'s defaults')
  const cheap = loadConfig({ AUTH_CORE_ARGON2_ITERATIONS: '2', AUTH_CORE_ARGON2_MEMORY_KB: '64', AUTH_CORE_ARGON2_PARALLELISM: '1', AUTH_CORE_BCRYPT_LOG_ROUNDS: '4' }).authCoreHashing
  const argon2 = await hashPassword('Passw0rd!1', { ...DEFAULT_SETTINGS, ...cheap, passwordHashingAlg: 'ARGON2' })
  t.match(argon2, /^\$argon2id\$v=19\$m=64,t=2,p=1\$/)
  t.ok(await verifyPassword('Passw0rd!1', argon2))
  const bcrypt = await hashPassword('Passw0rd!1', { ...DEFAULT_SETTINGS, ...cheap })
  t.match(bcrypt, /^\$2b\$04\$/)
  t.ok(await verifyPassword('Passw0rd!1', bcrypt))
  t.throws(() => loadConfig({ AUTH_CORE_ARGON2_MEMORY_KB: '8', AUTH_CORE_ARGON2_PARALLELISM: '2' }), /AUTH_CORE_ARGON2_MEMORY_KB must be at least 8 × AUTH_CORE_ARGON2_PARALLELISM \(16; got 8\)/)
  t.throws(() => loadConfig({ AUTH_CORE_BCRYPT_LOG_ROUNDS: '3' }), /AUTH_CORE_BCRYPT_LOG_ROUNDS must be a whole number from 4 to 31/)
  t.throws(() => loadConfig({ AUTH_CORE_ARGON2_ITERATIONS: '0' }), /AUTH_CORE_ARGON2_ITERATIONS must be a whole number from 1/)
})
