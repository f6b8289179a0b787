// Operator command: announce or clear a maintenance window (spec §4 "Maintenance notice").
//   npm run maintenance -- set 2026-12-01T22:00:00Z
//   npm run maintenance -- clear
//   npm run maintenance -- show
// With DATABASE_URL it writes to PostgreSQL directly (every instance sees it). With the embedded
// PGlite database it asks the running API (PGlite cannot be opened by two processes); when no
// API is running it opens the database itself.
import { migrateApiSchema } from '../server/api/schema.ts'
import { randomUUID } from 'node:crypto'
import { changeMaintenanceTime, getMaintenanceTime, MAINTENANCE_COMMAND_ACTOR, parseMaintenanceTime } from '../server/api/maintenance-repository.ts'
import type { Config } from '../server/config.ts'
import { openDatabase } from '../server/db/open.ts'
import { apiBase, fail, internalCall, operatorConfig } from './operator.ts'

const USAGE = 'Usage: npm run maintenance -- set <ISO 8601 time> | clear | show'

async function viaDatabase(config: Config, action: 'set' | 'clear' | 'show', time: Date | null): Promise<string | null> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    await migrateApiSchema(db)
    // With its audit entry; no HTTP request here, so the command's own id stands for one.
    if (action !== 'show') await changeMaintenanceTime(db, action === 'set' ? time : null, MAINTENANCE_COMMAND_ACTOR, `npm-run-maintenance-${randomUUID()}`)
    return (await getMaintenanceTime(db))?.toISOString() ?? null
  } finally {
    await db.close()
  }
}

/** Returns undefined when no API is listening, so the caller can open the database itself. */
async function viaRunningApi(config: Config, action: 'set' | 'clear' | 'show', time: Date | null): Promise<string | null | undefined> {
  if (action === 'show') {
    let response: Response
    try {
      response = await fetch(`${apiBase(config)}/api/version`, { signal: AbortSignal.timeout(5_000) })
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return undefined
      throw error
    }
    return ((await response.json()) as { maintenanceTime?: string }).maintenanceTime ?? null
  }
  const body = await internalCall<{ maintenanceTime?: string | null }>(config, action === 'set' ? 'PUT' : 'DELETE', '/internal/maintenance', action === 'set' ? { maintenanceTime: time?.toISOString() } : undefined)
  return body === undefined ? undefined : (body.maintenanceTime ?? null)
}

async function main(): Promise<void> {
  const [action, value] = process.argv.slice(2)
  if (action !== 'set' && action !== 'clear' && action !== 'show') fail(USAGE, 2)
  let time: Date | null = null
  if (action === 'set') {
    time = value ? parseMaintenanceTime(value) : null
    if (!time) fail(`"${value ?? ''}" is not an ISO 8601 date and time, for example 2026-12-01T22:00:00Z.\n${USAGE}`, 2)
  }
  const config = operatorConfig()
  let result: string | null | undefined
  if (config.databaseUrl) result = await viaDatabase(config, action, time)
  else {
    result = await viaRunningApi(config, action, time)
    if (result === undefined) result = await viaDatabase(config, action, time)
  }
  console.log(result ? `Maintenance time: ${result}` : 'No maintenance time is set.')
}

main().catch((error: unknown) => fail(`maintenance failed: ${error instanceof Error ? error.message : String(error)}`))
