import pg from 'pg'
import type { Database, Queryable, QueryResult } from './database.ts'
import { abortion, assertNotInTransaction, DatabaseTimeoutError, DEFAULT_DATABASE_TIMEOUT_MS, insideTransaction, withDeadline } from './guard.ts'

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

/** The server cancelled a statement past statement_timeout, or no connection came in time. */
function timedOut(error: unknown): boolean {
  return (error as { code?: string }).code === '57014' || /timeout exceeded when trying to connect/i.test((error as Error).message ?? '')
}

function wrap(client: pg.Pool | pg.PoolClient, names: StatementNames, inTransaction: boolean, timeoutMs: number): Queryable {
  return {
    async query<T>(text: string, params: unknown[] = []): Promise<QueryResult<T>> {
      const name = names.of(text)
      let result: pg.QueryResult
      try {
        result = await client.query({ text, values: params, ...(name ? { name } : {}) })
      } catch (error) {
        if (timedOut(error)) throw new DatabaseTimeoutError('a statement', timeoutMs, error)
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
  /** Bound on a query (waiting for a connection included) or a transaction; 5 s by default. */
  timeoutMs?: number
}

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    // The server cancels a statement past the bound; the deadline below covers the rest.
    statement_timeout: timeoutMs,
  })
  // An idle client that loses its server emits 'error' on the pool; without a listener the
  // process would crash. The next query gets a fresh connection.
  pool.on('error', () => {})
  // Fail at boot, not at the first request, when the server is unreachable.
  const probe = await pool.connect()
  probe.release()
  const names = new StatementNames()
  const base = wrap(pool, names, false, timeoutMs)
  const database: Database = {
    kind: 'postgres',
    query(text, params) {
      // The same rule as PGlite's (server/db/guard.ts): here it would merely hold two connections.
      assertNotInTransaction(database, 'A query')
      return withDeadline('a query', timeoutMs, () => base.query(text, params))
    },
    async exec(text) {
      // Maintenance statements (ANALYZE, bulk loads) are not held to a request's bound.
      assertNotInTransaction(database, 'A statement')
      const client = await pool.connect()
      try {
        await client.query('SET statement_timeout = 0')
        await client.query(text)
      } finally {
        await client.query('RESET statement_timeout').catch(() => {})
        client.release()
      }
    },
    transaction(fn, transactionOptions) {
      assertNotInTransaction(database, 'A nested transaction')
      return withDeadline('a transaction', transactionOptions?.timeoutMs ?? timeoutMs, async (signal) => {
        const client = await pool.connect().catch((error: unknown) => {
          throw timedOut(error) ? new DatabaseTimeoutError('a transaction', timeoutMs, error) : error
        })
        const aborted = abortion(signal)
        let broken = false
        try {
          signal.throwIfAborted()
          await client.query('BEGIN')
          // A longer bound asked for (migrations, the seed) holds for each statement too.
          if (transactionOptions?.timeoutMs !== undefined) await client.query(`SET LOCAL statement_timeout = ${Math.max(0, Math.floor(transactionOptions.timeoutMs))}`)
          const result = await Promise.race([insideTransaction(database, () => fn(wrap(client, names, true, timeoutMs))), aborted.promise])
          await client.query('COMMIT')
          return result
        } catch (error) {
          // Past the bound the connection is dropped, not reused: the server rolls back whatever it was doing.
          if (signal.aborted) broken = true
          else await client.query('ROLLBACK').catch(() => (broken = true))
          throw error
        } finally {
          aborted.dispose()
          client.release(broken)
        }
      })
    },
    close: () => pool.end(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  }
  return database
}
