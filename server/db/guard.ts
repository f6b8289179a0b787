import { IdleAsyncScope } from '../async-scope.ts'

// The transaction rule (decision 009): nothing that runs inside a transaction may use
// another connection of the same database. PGlite has exactly one connection, so such a query
// waits for the transaction that waits for it — forever, and the whole app with it. Both adapters
// refuse it at once instead, on PostgreSQL too, so a test on either database finds the mistake.
// And no request waits on the database without a bound: past it, the caller gets a 503.

/** Default bound on one query (lock wait included) or one whole transaction. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5_000

/** Bound on work done once at start (migrations, the catalogue seed), which may wait for another instance's. */
export const START_UP_TIMEOUT_MS = 600_000

/** A query or transaction that did not finish within its bound; answered as 503, never a hang. */
export class DatabaseTimeoutError extends Error {
  readonly statusCode = 503
  /** `cause`: the driver's error, when it said why (no connection could be had in time: server/db/reachability.ts). */
  constructor(what: string, timeoutMs: number, cause?: unknown) {
    super(`The database did not finish ${what} within ${timeoutMs} ms`, cause === undefined ? undefined : { cause })
    this.name = 'DatabaseTimeoutError'
  }
}

/** A programming error: a statement sent past the running transaction, to the same database. */
export class TransactionMisuseError extends Error {
  constructor(what: string) {
    super(`${what} was sent to the database outside the transaction that is running in this call chain: use the transaction's handle (or run it before or after the transaction)`)
    this.name = 'TransactionMisuseError'
  }
}

interface RunningTransaction {
  database: object
  open: boolean
}

// Switched off while no transaction runs (async-scope.ts): a transaction left behind is closed anyway.
const running = new IdleAsyncScope<RunningTransaction>()

/** Throws when the caller is inside a transaction of `database` that is still open. */
export function assertNotInTransaction(database: object, what: string): void {
  const transaction = running.getStore()
  if (transaction?.open && transaction.database === database) throw new TransactionMisuseError(what)
}

/** Runs a transaction's body, marking its call chain; work it leaves behind is free once it ends. */
export async function insideTransaction<T>(database: object, body: () => Promise<T>): Promise<T> {
  const transaction: RunningTransaction = { database, open: true }
  try {
    return await running.run(transaction, body)
  } finally {
    transaction.open = false
  }
}

/**
 * `work` bounded in time: past `timeoutMs` the answer is a DatabaseTimeoutError and `signal`
 * aborts, so the adapter can give up its place in the queue, roll back or drop its connection.
 * Work that never got the connection before the deadline must not start (check `signal.aborted`).
 */
export function withDeadline<T>(what: string, timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new DatabaseTimeoutError(what, timeoutMs)
      controller.abort(error)
      reject(error)
    }, timeoutMs)
    timer.unref()
  })
  const result = work(controller.signal)
  // A late failure of abandoned work has nobody to tell.
  result.catch(() => {})
  return Promise.race([result, deadline]).finally(() => clearTimeout(timer))
}

/** A promise that rejects when `signal` aborts; `dispose` removes its listener. */
export function abortion(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let onAbort = () => {}
  const promise = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason as Error)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  promise.catch(() => {})
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) }
}
