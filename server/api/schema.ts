import type { Database } from '../db/database.ts'
import { migrate, readMigrations } from '../db/migrate.ts'

/** Brings the `api` schema up to date; used by the API at start and by operator commands. */
export async function migrateApiSchema(db: Database): Promise<string[]> {
  return migrate(db, 'api', await readMigrations(new URL('./migrations/', import.meta.url)))
}
