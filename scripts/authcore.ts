// Operator commands of the auth core:
//   npm run authcore -- rotate-keys [--app <id>]                  a new signing key now (it signs 90 s later)
//   npm run authcore -- export-users [--app <id>] [--out <file>]  users in SuperTokens' bulk-import format
// With DATABASE_URL they work on PostgreSQL directly (every core instance picks the change up).
// With the embedded PGlite database they ask the running core, or open the database themselves
// when no core is running. The export holds password hashes and TOTP secrets: it is written
// readable by its owner only.
import fs from 'node:fs'
import path from 'node:path'
import { migrateAuthCoreSchema } from '../server/authcore/app.ts'
import { AppRegistry } from '../server/authcore/apps.ts'
import { SecretBox } from '../server/authcore/crypto.ts'
import { exportUsers } from '../server/authcore/export.ts'
import { KeyStore } from '../server/authcore/keys.ts'
import { ConfigError, loadConfig, type Config } from '../server/config.ts'
import { openDatabase } from '../server/db/open.ts'
import { embeddedSecret, readEmbeddedOperatorToken } from '../server/operator-token.ts'

const USAGE = 'Usage: npm run authcore -- rotate-keys [--app <id>] | export-users [--app <id>] [--out <file>]'

function fail(message: string, code = 1): never {
  console.error(message)
  process.exit(code)
}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name)
  if (at < 0) return undefined
  const value = args[at + 1]
  if (!value || value.startsWith('--')) fail(`${name} needs a value.\n${USAGE}`, 2)
  return value
}

type Action = 'rotate-keys' | 'export-users'

async function viaDatabase(config: Config, action: Action, appId: string): Promise<unknown> {
  const secret = config.authCoreSecret ?? (config.databaseUrl ? fail('Set AUTH_CORE_SECRET: the keys and TOTP secrets are encrypted with it.') : embeddedSecret(config.dataDir, 'authcore-secret'))
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    await migrateAuthCoreSchema(db)
    const settings = await new AppRegistry(db, null).settings(appId)
    if (!settings) fail(`There is no app "${appId}".`)
    const box = new SecretBox(secret)
    if (action === 'rotate-keys') return { status: 'OK', kid: await new KeyStore(db, box).rotate(appId, settings) }
    return await exportUsers(db, box, appId)
  } finally {
    await db.close()
  }
}

/** undefined when no core is listening, so the caller opens the database itself. */
async function viaRunningCore(config: Config, action: Action, appId: string): Promise<unknown> {
  const token = config.operatorToken ?? readEmbeddedOperatorToken(config.dataDir)
  const host = config.authCoreHost === '0.0.0.0' ? '127.0.0.1' : config.authCoreHost
  const prefix = appId === 'public' ? '' : `/appid-${appId}`
  const url = `http://${host}:${config.authCorePort}${prefix}/internal/${action === 'rotate-keys' ? 'keys/rotate' : 'users/export'}`
  let response: Response
  try {
    response = await fetch(url, { method: action === 'rotate-keys' ? 'POST' : 'GET', headers: { authorization: `Bearer ${token ?? ''}` }, signal: AbortSignal.timeout(30_000) })
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return undefined
    throw error
  }
  if (!response.ok) fail(`The auth core refused: ${await response.text()}`)
  return response.json()
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const action = args[0]
  if (action !== 'rotate-keys' && action !== 'export-users') fail(USAGE, 2)
  const appId = option(args, '--app') ?? 'public'
  let config: Config
  try {
    config = loadConfig(process.env)
  } catch (error) {
    fail(error instanceof ConfigError ? error.message : String(error))
  }
  if (config.authCoreUrl) fail('AUTH_CORE_URL is set: this core is not ours to run commands on.')
  const result = config.databaseUrl ? await viaDatabase(config, action, appId) : ((await viaRunningCore(config, action, appId)) ?? (await viaDatabase(config, action, appId)))
  if (action === 'rotate-keys') {
    console.log(`New signing key ${(result as { kid: string }).kid}: published now, signing new tokens in 90 seconds.`)
    return
  }
  const out = path.resolve(option(args, '--out') ?? `authcore-users-${appId}-${new Date().toISOString().slice(0, 10)}.json`)
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 })
  console.log(`Exported ${(result as { users: unknown[] }).users.length} users to ${out} (readable by you only: it holds password hashes and TOTP secrets).`)
}

await main()
