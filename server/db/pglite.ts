import fs from 'node:fs/promises'
import { PGlite, parse, protocol, type Results } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import type { Database, Queryable, QueryResult } from './database.ts'
import { abortion, assertNotInTransaction, DEFAULT_DATABASE_TIMEOUT_MS, insideTransaction, withDeadline } from './guard.ts'

const { serialize } = protocol

/** Statements kept prepared per database; texts beyond it run unprepared. */
const MAX_PREPARED = 256

interface Prepared {
  name: string
  paramTypes: number[]
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function toResult<T>(result: Results<T>): QueryResult<T> {
  // PGlite reports 0 affected rows for a SELECT; rowCount means rows returned or changed, as in pg.
  return { rows: result.rows, rowCount: Math.max(result.rows.length, result.affectedRows ?? 0) }
}

/** PostgreSQL's answer when a prepared statement's result columns changed under it (DDL). */
function isStalePlan(error: unknown): boolean {
  return (error as { code?: string }).code === '0A000'
}

/**
 * PGlite's own query() parses and plans every statement anew and crosses into WebAssembly six
 * times. The services send the same few statements over and over, so each text is prepared once
 * as a named statement; later runs bind, describe, execute and sync in one crossing, on the plan
 * PostgreSQL keeps for a prepared statement (re-planned by it when the tables change).
 */
class PreparedStatements {
  private readonly statements = new Map<string, Prepared>()
  private made = 0

  constructor(private readonly pg: PGlite) {}

  private async prepare(text: string): Promise<Prepared> {
    const name = `softshelf_${++this.made}`
    const { messages } = await this.pg.execProtocol(concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]), {
      syncToFs: false,
    })
    const prepared = { name, paramTypes: parse.parseDescribeStatementResults(messages) }
    this.statements.set(text, prepared)
    return prepared
  }

  /**
   * Runs the statement prepared, or answers null when it is not to be prepared (too many texts,
   * or its plan went stale outside a transaction): the caller then runs it the plain way. The
   * caller holds PGlite's transaction lock, as a lone query or a transaction of its own.
   */
  run<T>(text: string, params: unknown[], inTransaction: boolean): Promise<QueryResult<T> | null> {
    const pg = this.pg
    return pg._runExclusiveQuery(async () => {
      const prepared = this.statements.get(text) ?? (this.statements.size < MAX_PREPARED ? await this.prepare(text) : null)
      if (!prepared) return null
      const values = params.map((value, i) => {
        if (value === null || value === undefined) return null
        const serializer = pg.serializers[prepared.paramTypes[i]!]
        return serializer ? serializer(value) : String(value)
      })
      const message = concat([serialize.bind({ statement: prepared.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()])
      try {
        const { messages } = await pg.execProtocol(message, { syncToFs: false })
        return toResult(parse.parseResults(messages, pg.parsers)[0] as Results<T>)
      } catch (error) {
        if (!isStalePlan(error)) throw error
        this.statements.delete(text)
        await pg.execProtocol(concat([serialize.close({ type: 'S', name: prepared.name }), serialize.sync()]), { syncToFs: false, throwOnError: false })
        // That error aborted the transaction it happened in; a lone statement is run again.
        if (inTransaction) throw error
        return null
      }
    })
  }
}

/**
 * A transaction's handle. Its statements go straight to PGlite's connection (prepared), which
 * PGlite's own transaction object would refuse once it is closed: this handle refuses them too, so
 * a body that outlived its transaction (rolled back past its bound) cannot write on its own.
 */
function transactionQueryable(tx: Pick<PGlite, 'query' | 'exec'>, statements: PreparedStatements, state: { open: boolean }): Queryable {
  const assertOpen = () => {
    if (!state.open) throw new Error('Transaction is closed')
  }
  return {
    async query<T>(text: string, params: unknown[] = []): Promise<QueryResult<T>> {
      assertOpen()
      return (await statements.run<T>(text, params, true)) ?? toResult(await tx.query<T>(text, params))
    },
    async exec(text: string): Promise<void> {
      assertOpen()
      await tx.exec(text)
    },
  }
}

export interface PgliteOptions {
  /** A folder to keep the data in; omitted, the database lives in memory. */
  dataDir?: string
  /** A data folder dump to start from (tests clone an initialised database this way). */
  loadDataDir?: Blob
  /** Bound on a query (waiting for the connection included) or a transaction; 5 s by default. */
  timeoutMs?: number
}

export async function openPglite(options: PgliteOptions = {}): Promise<Database> {
  if (options.dataDir) await fs.mkdir(options.dataDir, { recursive: true })
  const pg = await PGlite.create({
    // Trigram matching makes catalogue search typo- and prefix-tolerant (PostgreSQL's contrib).
    extensions: { pg_trgm },
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  })
  const statements = new PreparedStatements(pg)
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS
  // PGlite is one connection: its lock serialises lone statements and transactions. A statement
  // that waited past the bound gives up its turn; a transaction past it is rolled back, which
  // frees the connection even when its body is stuck on something else.
  const database: Database = {
    kind: 'pglite',
    async query<T>(text: string, params: unknown[] = []): Promise<QueryResult<T>> {
      assertNotInTransaction(database, 'A query')
      return withDeadline('a query', timeoutMs, async (signal) => {
        const prepared = await pg._runExclusiveTransaction(async () => {
          signal.throwIfAborted()
          return statements.run<T>(text, params, false)
        })
        if (prepared === null) return toResult(await pg.query<T>(text, params))
        // As PGlite's query() does after a statement outside a transaction.
        await pg.syncToFs()
        return prepared
      })
    },
    async exec(text: string): Promise<void> {
      // Migrations: many statements, unbounded, but never from inside a transaction.
      assertNotInTransaction(database, 'A statement')
      await pg.exec(text)
    },
    transaction(fn, options) {
      assertNotInTransaction(database, 'A nested transaction')
      return withDeadline('a transaction', options?.timeoutMs ?? timeoutMs, (signal) =>
        pg.transaction(async (tx) => {
          signal.throwIfAborted()
          // Past the bound PGlite rolls back at once; the body's later statements find the transaction closed.
          const aborted = abortion(signal)
          const state = { open: true }
          try {
            return await Promise.race([insideTransaction(database, () => fn(transactionQueryable(tx, statements, state))), aborted.promise])
          } finally {
            state.open = false
            aborted.dispose()
          }
        }),
      )
    },
    async dump(alongside) {
      assertNotInTransaction(database, 'A dump')
      // The transaction lock: every transaction and lone statement of this wrapper waits for it,
      // so none is half-way while the folder is read. The checkpoint writes what only the WAL held
      // to the data files, so the copy needs no recovery when it is opened.
      return pg._runExclusiveTransaction(async () => {
        // Straight to the connection: PGlite's exec() would wait for the lock held here.
        await pg._runExclusiveQuery(() => pg.execProtocol(serialize.query('CHECKPOINT'), { syncToFs: true }))
        await alongside?.()
        return (await pg.dumpDataDir('none')) as Blob
      })
    },
    close: () => pg.close(),
  }
  return database
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
