import t from 'tap'
import { hashPassword, verifyPassword } from '../../../server/authcore/passwords.ts'
import { DEFAULT_SETTINGS } from '../../../server/authcore/settings.ts'

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
