import pg from 'pg'
import type { Database, Queryable, QueryResult } from './database.ts'

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(text: string, params?: unknown[]): Promise<QueryResult<T>> {
      const result = await client.query(text, params)
      return { rows: result.rows as T[], rowCount: result.rowCount ?? result.rows.length }
    },
    async exec(text: string): Promise<void> {
      await client.query(text)
    },
  }
}

export interface PostgresOptions {
  connectionString: string
  max?: number
}

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // Statements are bounded: a stuck query must not hold a request forever.
    statement_timeout: 15_000,
  })
  // An idle client that loses its server emits 'error' on the pool; without a listener the
  // process would crash. The next query gets a fresh connection.
  pool.on('error', () => {})
  // Fail at boot, not at the first request, when the server is unreachable.
  const probe = await pool.connect()
  probe.release()
  const base = wrap(pool)
  return {
    kind: 'postgres',
    ...base,
    async transaction(fn) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await fn(wrap(client))
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        throw error
      } finally {
        client.release()
      }
    },
    close: () => pool.end(),
  }
}
