import fs from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import type { Database, Queryable, QueryResult } from './database.ts'

function wrap(client: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    async query<T>(text: string, params?: unknown[]): Promise<QueryResult<T>> {
      const result = await client.query<T>(text, params)
      // PGlite reports 0 affected rows for a SELECT; rowCount means rows returned or changed, as in pg.
      return { rows: result.rows, rowCount: Math.max(result.rows.length, result.affectedRows ?? 0) }
    },
    async exec(text: string): Promise<void> {
      await client.exec(text)
    },
  }
}

export interface PgliteOptions {
  /** A folder to keep the data in; omitted, the database lives in memory. */
  dataDir?: string
  /** A data folder dump to start from (tests clone an initialised database this way). */
  loadDataDir?: Blob
}

export async function openPglite(options: PgliteOptions = {}): Promise<Database> {
  if (options.dataDir) await fs.mkdir(options.dataDir, { recursive: true })
  const pg = await PGlite.create({
    // Trigram matching makes catalogue search typo- and prefix-tolerant (PostgreSQL's contrib).
    extensions: { pg_trgm },
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  })
  const base = wrap(pg)
  // PGlite is one connection: transactions are serialised by PGlite itself.
  return {
    kind: 'pglite',
    ...base,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: () => pg.close(),
  }
}

/** A gzip dump of a freshly initialised database; opening a copy skips PGlite's slow initdb. */
export async function freshPgliteDump(): Promise<Blob> {
  const pg = await PGlite.create({ extensions: { pg_trgm } })
  try {
    return (await pg.dumpDataDir('gzip')) as Blob
  } finally {
    await pg.close()
  }
}
