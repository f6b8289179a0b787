import type { Database } from './database.ts'

// With PostgreSQL stopped, every request failed with a driver error ("connect
// ECONNREFUSED") that the services answered 500 and logged at error level, about 6,000 lines in
// 20 s. One function decides, for both drivers, whether an error means "the database cannot be
// reached right now". Each service's database handle (watchReachability) asks it about every
// failure, turns such a failure into a DatabaseUnreachableError — answered 503 with Retry-After
// by every service's error handler (server/http/errors.ts, the auth core's own) — and tells the
// service's outage log (server/http/outage-log.ts) about it and about the first success after, so
// an outage is logged once, not once per request. Deciding at the handle, not in the error
// handler, keeps a refused connection to anything else (the auth core, the API) from passing for
// the database's.

/** Socket errors of a connection that cannot be made or was lost (node:net, as `pg` passes them on). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])

/**
 * SQLSTATEs of a server that is going away or not there yet: 57P01 admin_shutdown (`pg_ctl stop`
 * ends every session with it), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting
 * down, in recovery), and class 08, connection exceptions. 53300 too_many_connections: no
 * connection can be had, which for a caller is the same. 57014 (a statement cancelled past its
 * bound) is not here: the server answered; that is a DatabaseTimeoutError (server/db/guard.ts).
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300'])

/**
 * Messages without a code: node-postgres' for a connection that ended under a query or could not
 * be had from the pool in time, and both drivers' for a handle already closed (a process shutting
 * down; PGlite runs in the process, so "closed" is its only way of being out of reach).
 */
const MESSAGES: Array<[RegExp, string]> = [
  [/^Connection terminated/, 'CONNECTION_TERMINATED'],
  [/timeout exceeded when trying to connect/i, 'CONNECT_TIMEOUT'],
  [/^Client has encountered a connection error and is not queryable/, 'CONNECTION_LOST'],
  [/^Cannot use a pool after calling end on the pool/, 'CLOSED'],
  [/^PGlite is closed/, 'CLOSED'],
]

/**
 * Why `error` means the database cannot be reached — a short stable cause (`ECONNREFUSED`,
 * `57P01`, `CONNECTION_TERMINATED`, …) for the log — or null when it means something else (a
 * constraint, a syntax error, a timeout of a server that answers). Looks through `cause` chains and
 * AggregateError (a host name with several addresses fails with one error per address).
 */
export function databaseUnreachable(error: unknown, depth = 0): string | null {
  if (error === null || typeof error !== 'object' || depth > 5) return null
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return code
  }
  if (typeof message === 'string') {
    for (const [pattern, cause] of MESSAGES) if (pattern.test(message)) return cause
  }
  for (const inner of (error as { errors?: unknown }).errors instanceof Array ? ((error as { errors: unknown[] }).errors) : []) {
    const found = databaseUnreachable(inner, depth + 1)
    if (found) return found
  }
  return databaseUnreachable((error as { cause?: unknown }).cause, depth + 1)
}

/** A call that could not reach the database: 503 with Retry-After, whatever the service. `reason` is the classifier's cause; `cause` the driver's error. */
export class DatabaseUnreachableError extends Error {
  readonly statusCode = 503
  constructor(
    readonly reason: string,
    cause: unknown,
  ) {
    super(`The database cannot be reached (${reason})`, { cause })
    this.name = 'DatabaseUnreachableError'
  }
}

/**
 * Whether a request failed because the database could not be reached: the error itself, or an
 * error without a status of its own that was thrown because of one (its `cause`). An error of a
 * service's catalogue decided its own answer, whatever its cause.
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (error instanceof DatabaseUnreachableError) return true
  if (error === null || typeof error !== 'object' || depth > 5 || typeof (error as { statusCode?: unknown }).statusCode === 'number') return false
  return isDatabaseUnreachable((error as { cause?: unknown }).cause, depth + 1)
}

/** What a service's database handle reports: each call that could not reach the database, and each that did. */
export interface ReachabilityListener {
  unreachable(cause: string): void
  reached(): void
}

/**
 * `db` as one service sees it: every query, statement and transaction reports to `listener`
 * whether it reached the database, and one that could not fails with a DatabaseUnreachableError
 * (the driver's error as its cause). A failure for another reason (a constraint, a timeout, the
 * caller's own error inside a transaction) is passed on as it is and says nothing either way. The
 * handle is otherwise the same database: transactions, their rule (server/db/guard.ts) and the
 * pool are `db`'s own.
 */
export function watchReachability(db: Database, listener: ReachabilityListener): Database {
  const watch = <T>(work: Promise<T>): Promise<T> =>
    work.then(
      (result) => {
        listener.reached()
        return result
      },
      (error: unknown) => {
        const reason = databaseUnreachable(error)
        if (reason === null) throw error
        listener.unreachable(reason)
        throw error instanceof DatabaseUnreachableError ? error : new DatabaseUnreachableError(reason, error)
      },
    )
  return {
    get kind() {
      return db.kind
    },
    query: (text, params) => watch(db.query(text, params)),
    exec: (text) => watch(db.exec(text)),
    transaction: (fn, options) => watch(db.transaction(fn, options)),
    ...(db.dump ? { dump: db.dump.bind(db) } : {}),
    close: () => db.close(),
    ...(db.poolStats ? { poolStats: db.poolStats.bind(db) } : {}),
  }
}
