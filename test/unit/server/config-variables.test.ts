import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { loadConfig, roleProblems } from '../../../server/config.ts'
import { readVariables, VARIABLES } from '../../../server/config/variables.ts'
import { root } from '../../helpers.ts'

// The configuration's schema (server/config/variables.ts) is the one list of what the services
// read: each variable is read by its kind, is in the README's table for operators, and no other
// module reads the environment on its own.

const KEYS = 'k'.repeat(24)

t.test('every variable of the schema is in the README, and a newcomer gets its default', async (t) => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8')
  const missing = Object.keys(VARIABLES).filter((name) => !readme.includes(`\`${name}\``))
  t.same(missing, [], 'documented for operators')
  const { values, problems } = readVariables({})
  t.same(problems, [])
  t.equal(values.PORT, 3000)
  t.equal(values.NODE_ENV, 'development')
  t.equal(values.DATABASE_URL, undefined, 'no default: the embedded database')
  t.equal(values.CATALOGUE_FEED_INTERVAL, 6 * 3_600_000)
})

t.test('a value is read by its kind: trimmed, blank as unset, each problem naming its variable', async (t) => {
  const { values, problems, isSet } = readVariables({ PORT: ' 8080 ', API_PORT: '   ', LOG_LEVEL: 'loud', CATALOGUE_FEED_TIMEOUT: '90s', SUPPORT_BOT_URL: 'http://bot.example.com' })
  t.equal(values.PORT, 8080)
  t.equal(values.API_PORT, 3001, 'blank is the default')
  t.notOk(isSet('API_PORT'))
  t.equal(values.CATALOGUE_FEED_TIMEOUT, 90_000)
  t.same(problems, ['LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")', 'SUPPORT_BOT_URL must be an https:// URL (got "http://bot.example.com")'])
})

t.test('only the configuration reads the environment', async (t) => {
  const readers: string[] = []
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const at = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(at)
      else if (entry.name.endsWith('.ts') && /process\.env\b/.test(fs.readFileSync(at, 'utf8'))) readers.push(path.relative(root, at))
    }
  }
  walk(path.join(root, 'server'))
  t.same(readers.sort(), [
    'server/bff/auth/plugin.ts', // the SDK's own reset between tests (TEST_MODE, set by the test runner)
    'server/config.ts', // loadConfig's default
    'server/healthcheck.ts', // the container's check, through the schema
    'server/main.ts', // hands the environment to loadConfig
  ])
})

t.test('what a role running alone needs is refused at the start, all of it at once', async (t) => {
  t.same(roleProblems(loadConfig({}), 'all'), [], 'the embedded default needs nothing')
  const production = loadConfig({ DATABASE_URL: 'postgres://db/softshelf', AUTH_CORE_SECRET: 's'.repeat(32) })
  const bff = roleProblems(production, 'bff')
  t.equal(bff.length, 1)
  t.match(bff[0], /^SMTP_URL is required when DATABASE_URL is set/)
  const core = roleProblems(production, 'authcore')
  t.equal(core.length, 1)
  t.match(core[0], /^AUTH_CORE_API_KEYS is required when the auth core runs outside the embedded default/)
  t.equal(roleProblems(production, 'all').length, 2, 'everything on a real database: both')
  t.same(roleProblems(loadConfig({ DATABASE_URL: 'postgres://db/softshelf', AUTH_CORE_SECRET: 's'.repeat(32), AUTH_CORE_API_KEYS: KEYS }), 'authcore'), [], 'keys given')
  t.same(roleProblems(loadConfig({ DATABASE_URL: 'postgres://db/softshelf', AUTH_CORE_SECRET: 's'.repeat(32), AUTH_CORE_API_KEYS: 'none' }), 'authcore'), [], 'none, chosen')
  t.same(roleProblems(production, 'api'), [], 'the API alone sends no mail and runs no core')
})
