import path from 'node:path'
import type { Database } from './database.ts'
import { openPglite } from './pglite.ts'
import { openPostgres } from './postgres.ts'

/**
 * PostgreSQL when a URL is configured, else PGlite stored under `<dataDir>/<folder>`. PGlite is
 * one process's database: a service started alone gets its own folder, never a shared one.
 */
export async function openDatabase(options: { databaseUrl: string | undefined; dataDir: string; folder?: string }): Promise<Database> {
  if (options.databaseUrl) return openPostgres({ connectionString: options.databaseUrl })
  return openPglite({ dataDir: path.join(options.dataDir, options.folder ?? 'pglite') })
}
