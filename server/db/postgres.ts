import pg from 'pg'
import type { Database, Queryable, QueryResult } from './database.ts'

/** Statements kept prepared per connection; texts beyond it run unprepared. */
const MAX_PREPARED = 256

/**
 * Names for the statements the services send over and over: node-postgres prepares a named
 * statement once per connection and then only binds it, so PostgreSQL keeps its plan instead of
 * parsing and planning each call. A text whose plan went stale (its tables changed shape) runs
 * unprepared from then on.
 */
class StatementNames {
  private readonly names = new Map<string, string | null>()

  of(text: string): string | undefined {
    const known = this.names.get(text)
    if (known !== undefined) return known ?? undefined
    if (this.names.size >= MAX_PREPARED) return undefined
    const name = `softshelf_${this.names.size + 1}`
    this.names.set(text, name)
    return name
  }

  stale(text: string): void {
    this.names.set(text, null)
  }
}

function wrap(client: pg.Pool | pg.PoolClient, names: StatementNames, inTransaction: boolean): Queryable {
  return {
    async query<T>(text: string, params: unknown[] = []): Promise<QueryResult<T>> {
      const name = names.of(text)
      let result: pg.QueryResult
      try {
        result = await client.query({ text, values: params, ...(name ? { name } : {}) })
      } catch (error) {
        // "cached plan must not change result type": from now on unprepared, and run again
        // unless a transaction (which that error aborted) is in progress.
        if (!name || (error as { code?: string }).code !== '0A000') throw error
        names.stale(text)
        if (inTransaction) throw error
        result = await client.query(text, params)
      }
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
  const names = new StatementNames()
  const base = wrap(pool, names, false)
  return {
    kind: 'postgres',
    ...base,
    async transaction(fn) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await fn(wrap(client, names, true))
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
