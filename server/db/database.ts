// One small database layer over PGlite (embedded) and PostgreSQL (`pg`), both with PostgreSQL
// semantics. Services depend on this interface only.

export interface QueryResult<T> {
  rows: T[]
  rowCount: number
}

export interface Queryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<T>>
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(text: string): Promise<void>
}

export interface TransactionOptions {
  /** Bound on the whole transaction, waiting for the connection included; the database's default otherwise. */
  timeoutMs?: number
}

/**
 * A database handle. Queries and transactions are bounded in time (a DatabaseTimeoutError past
 * it), and inside a transaction's body only its own handle may be used (server/db/guard.ts).
 */
export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres'
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>
  /**
   * The embedded database only (PGlite): a tar of its data folder, taken while no statement or
   * transaction runs, so it is consistent (a backup, decision 020). `alongside` runs in the same
   * quiet moment (the backup links the drive's files then). PostgreSQL has pg_dump instead.
   */
  dump?(alongside?: () => Promise<void>): Promise<Blob>
  close(): Promise<void>
  /** The connection pool's use now (PostgreSQL; PGlite has no pool): metrics read it. */
  poolStats?(): PoolStats
}

export interface PoolStats {
  /** Connections open. */
  total: number
  /** Open and unused. */
  idle: number
  /** Callers waiting for a connection. */
  waiting: number
}
