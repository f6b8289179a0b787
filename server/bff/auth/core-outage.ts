import { isDatabaseUnreachable } from '../../db/reachability.ts'
import { BffAuthCoreUnavailable } from '../errors.ts'

// When the auth core or its database is down, supertokens-node fails with plain errors
// (a core it cannot reach after trying every one configured; any status but 200, the core's 503
// included), which answered 500 BFF_INTERNAL_ERROR — and a refresh that fails with a 500 or a 401
// signs the browser out. They are answered 503 BFF_AUTH_CORE_UNAVAILABLE with Retry-After instead,
// which the browser SDK retries, keeping the session and its cookies.

/** supertokens-node's querier, once no core of `connectionURI` could be reached. */
const NO_CORE = /^No SuperTokens core available to query/
/** supertokens-node's querier, for any status but 200: 503 is the core's "cannot reach my database". */
const CORE_UNAVAILABLE = /^SuperTokens core threw an error .* with status code: 503\b/

/** Whether `error` is the auth core being out of reach or unable to serve now (a 503 of its own). */
export function isAuthCoreOutage(error: unknown): boolean {
  if (error instanceof BffAuthCoreUnavailable) return true
  const message = (error as { message?: unknown } | null)?.message
  return typeof message === 'string' && (NO_CORE.test(message) || CORE_UNAVAILABLE.test(message))
}

/**
 * The answer for a failure of an `/auth` call that means signing in cannot be done now: the core
 * out of reach or answering 503, or the BFF's own database, which sign-in needs for its
 * login-attempt and mail records, out of reach. Null for anything else (a fault, answered 500).
 */
export function authUnavailable(error: unknown, options: { ownDatabase: boolean }): Error | null {
  if (!isAuthCoreOutage(error) && !(options.ownDatabase && isDatabaseUnreachable(error))) return null
  if (error instanceof BffAuthCoreUnavailable) return error
  // The root error handler adds Retry-After and writes no error line: the core's outage is logged
  // by the core and by the revocation list's reader, the database's by its outage log.
  const unavailable = new BffAuthCoreUnavailable()
  unavailable.cause = error
  return unavailable
}
