import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Database } from './database.ts'
import { START_UP_TIMEOUT_MS } from './guard.ts'

export interface Migration {
  version: number
  name: string
  sql: string
}

const FILE_PATTERN = /^(\d{3,})_([a-z0-9_-]+)\.sql$/

/** Reads `NNN_name.sql` files from a folder, in version order. */
export async function readMigrations(dir: URL | string): Promise<Migration[]> {
  const folder = typeof dir === 'string' ? dir : fileURLToPath(dir)
  const files = (await fs.readdir(folder)).filter((file) => file.endsWith('.sql')).sort()
  const migrations: Migration[] = []
  for (const file of files) {
    const match = FILE_PATTERN.exec(file)
    if (!match) throw new Error(`Migration file name "${file}" does not match NNN_name.sql`)
    migrations.push({ version: Number(match[1]), name: match[2] ?? file, sql: await fs.readFile(`${folder}/${file}`, 'utf8') })
  }
  const versions = new Set(migrations.map((m) => m.version))
  if (versions.size !== migrations.length) throw new Error(`Two migrations in ${folder} share a version number`)
  return migrations
}

function checksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex')
}

/**
 * Applies the pending migrations of one schema in a single transaction, recorded in
 * `<schema>.schema_migrations`. A transaction-scoped advisory lock makes instances that start
 * together against one PostgreSQL take turns: the second sees the first one's work and applies
 * nothing. A migration edited after it was applied stops the start instead of drifting silently.
 */
export async function migrate(db: Database, schema: string, migrations: Migration[]): Promise<string[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name "${schema}"`)
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:migrate:${schema}`])
    await tx.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}";
      CREATE TABLE IF NOT EXISTS "${schema}".schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`)
    const { rows } = await tx.query<{ version: number; name: string; checksum: string }>(
      `SELECT version, name, checksum FROM "${schema}".schema_migrations ORDER BY version`,
    )
    const applied = new Map(rows.map((row) => [row.version, row]))
    const done: string[] = []
    for (const migration of migrations) {
      const sum = checksum(migration.sql)
      const previous = applied.get(migration.version)
      if (previous) {
        if (previous.checksum !== sum) {
          throw new Error(`Migration ${schema}/${migration.version}_${migration.name} was changed after it was applied`)
        }
        continue
      }
      await tx.exec(`SET LOCAL search_path TO "${schema}", public;\n${migration.sql}`)
      await tx.query(`INSERT INTO "${schema}".schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        sum,
      ])
      done.push(`${migration.version}_${migration.name}`)
    }
    return done
  }, { timeoutMs: START_UP_TIMEOUT_MS })
}
