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

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres'
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  close(): Promise<void>
}
