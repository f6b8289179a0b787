// Operator command: announce or clear a maintenance window (spec §4 "Maintenance notice").
//   npm run maintenance -- set 2026-12-01T22:00:00Z
//   npm run maintenance -- clear
//   npm run maintenance -- show
// With DATABASE_URL it writes to PostgreSQL directly (every instance sees it). With the embedded
// PGlite database it asks the running API (PGlite cannot be opened by two processes); when no
// API is running it opens the database itself.
import { migrateApiSchema } from '../server/api/schema.ts'
import { getMaintenanceTime, parseMaintenanceTime, setMaintenanceTime } from '../server/api/maintenance-repository.ts'
import { ConfigError, loadConfig, type Config } from '../server/config.ts'
import { openDatabase } from '../server/db/open.ts'
import { readEmbeddedOperatorToken } from '../server/operator-token.ts'

const USAGE = 'Usage: npm run maintenance -- set <ISO 8601 time> | clear | show'

function fail(message: string, code = 1): never {
  console.error(message)
  process.exit(code)
}

async function viaDatabase(config: Config, action: 'set' | 'clear' | 'show', time: Date | null): Promise<string | null> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    await migrateApiSchema(db)
    if (action !== 'show') await setMaintenanceTime(db, action === 'set' ? time : null)
    return (await getMaintenanceTime(db))?.toISOString() ?? null
  } finally {
    await db.close()
  }
}

/** Returns null when no API is listening, so the caller can open the database itself. */
async function viaRunningApi(config: Config, action: 'set' | 'clear' | 'show', time: Date | null): Promise<string | null | undefined> {
  const base = `http://${config.apiHost === '0.0.0.0' ? '127.0.0.1' : config.apiHost}:${config.apiPort}`
  const token = config.operatorToken ?? readEmbeddedOperatorToken(config.dataDir)
  let response: Response
  try {
    if (action === 'show' || !token) {
      response = await fetch(`${base}/api/version`, { signal: AbortSignal.timeout(5_000) })
      // A running API and no token to change it with: say so rather than touch its database.
      if (action !== 'show') fail('No operator token: set OPERATOR_TOKEN, or run this on the machine whose DATA_DIR the server uses.')
    } else {
      response = await fetch(`${base}/internal/maintenance`, {
        method: action === 'set' ? 'PUT' : 'DELETE',
        headers: { authorization: `Bearer ${token}`, ...(action === 'set' ? { 'content-type': 'application/json' } : {}) },
        ...(action === 'set' ? { body: JSON.stringify({ maintenanceTime: time?.toISOString() }) } : {}),
        signal: AbortSignal.timeout(5_000),
      })
    }
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code
    if (code === 'ECONNREFUSED') return undefined
    throw error
  }
  const body = (await response.json().catch(() => ({}))) as { maintenanceTime?: string | null; message?: string }
  if (!response.ok) fail(`The API refused: ${body.message ?? `HTTP ${response.status}`}`)
  return body.maintenanceTime ?? null
}

async function main(): Promise<void> {
  const [action, value] = process.argv.slice(2)
  if (action !== 'set' && action !== 'clear' && action !== 'show') fail(USAGE, 2)
  let time: Date | null = null
  if (action === 'set') {
    time = value ? parseMaintenanceTime(value) : null
    if (!time) fail(`"${value ?? ''}" is not an ISO 8601 date and time, for example 2026-12-01T22:00:00Z.\n${USAGE}`, 2)
  }
  let config: Config
  try {
    config = loadConfig(process.env)
  } catch (error) {
    fail(error instanceof ConfigError ? error.message : String(error))
  }
  let result: string | null | undefined
  if (config.databaseUrl) result = await viaDatabase(config, action, time)
  else {
    result = await viaRunningApi(config, action, time)
    if (result === undefined) result = await viaDatabase(config, action, time)
  }
  console.log(result ? `Maintenance time: ${result}` : 'No maintenance time is set.')
}

main().catch((error: unknown) => fail(`maintenance failed: ${error instanceof Error ? error.message : String(error)}`))
