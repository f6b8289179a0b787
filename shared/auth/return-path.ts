// Where a visitor goes back to after signing in (decision 025). The account pages
// carry the target as `?redirectToPath=<same-origin path>` (supertokens' own parameter name) and,
// for a pending "add to library", `&action=add`, from the first page of the flow to the last:
// login, sign-up, the verification and reset links (mailed with it), MFA, the terms and the
// external sign-in. Only a path on this site is ever followed: anything else is the signed-in home.

export const RETURN_PARAM = 'redirectToPath'

/** Spec §2: the home after login. */
export const SIGNED_IN_HOME = '/@'

/** What to do once signed in; only adding the program of the target page exists. */
export interface PendingAdd {
  kind: 'add'
  programId: string
}

export interface ReturnTarget {
  /** A same-origin path, with its query. */
  path: string
  action?: PendingAdd
}

/** The query that carries a target path (without action) on: empty for the signed-in home. */
export function returnQuery(path: string): string {
  return path === SIGNED_IN_HOME || path === `${SIGNED_IN_HOME}/library` ? '' : `?${RETURN_PARAM}=${encodeURIComponent(path)}`
}

export const ACTION_PARAM = 'action'

/** Longer than any page address of ours: refused rather than carried through mail links. */
const MAX_PATH_LENGTH = 1024
/** A program page of the signed-in area, whose program an `add` puts in the library. */
const PROGRAM_PAGE = /^\/@\/programs\/([a-z0-9][a-z0-9-]{0,99})$/
/** Pages whose target would be an API answer, not a page. */
const NOT_A_PAGE = /^\/(auth|api)(\/|$)/i

/**
 * `value` when it is a path on this site, else null. Refused: anything not starting with one "/"
 * ("//host", "https://…", "javascript:…"), control characters and backslashes in any encoding
 * ("/\\host", "/%5Chost", "/%09/host"), encoded slashes that become "//" once decoded
 * ("/%2F/host"), dot segments that resolve to "//host", and the API's own paths.
 */
export function safeReturnPath(value: string | null | undefined): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_PATH_LENGTH) return null
  // Every decoding a browser, a proxy or the router may apply, until nothing changes.
  let decoded = value
  for (let round = 0; round < 4; round++) {
    if (!isPlainPath(decoded)) return null
    let next: string
    try {
      next = decodeURIComponent(decoded)
    } catch {
      // A lone "%" ("?q=100%25" once decoded): nothing decodes it further.
      break
    }
    if (next === decoded) break
    decoded = next
  }
  if (!isPlainPath(decoded)) return null
  // As a browser resolves it against our origin: the result must stay on it and stay a plain path.
  let resolved: URL
  try {
    resolved = new URL(value, 'http://softshelf.invalid')
  } catch {
    return null
  }
  const path = `${resolved.pathname}${resolved.search}`
  if (resolved.origin !== 'http://softshelf.invalid' || !isPlainPath(path) || NOT_A_PAGE.test(resolved.pathname)) return null
  return path
}

function isPlainPath(path: string): boolean {
  return path.startsWith('/') && path[1] !== '/' && ![...path].some(isUnsafe)
}

/** Control characters (browsers drop tabs and newlines from URLs: "/\t/evil" is "//evil") and backslashes (read as "/"). */
function isUnsafe(character: string): boolean {
  const code = character.charCodeAt(0)
  return code < 0x20 || code === 0x7f || character === '\\'
}

/** The target an account page's query names, or null for the signed-in home. */
export function readReturn(search: string | URLSearchParams): ReturnTarget | null {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search
  const path = safeReturnPath(params.get(RETURN_PARAM))
  if (path === null) return null
  const programId = params.get(ACTION_PARAM) === 'add' ? PROGRAM_PAGE.exec(path)?.[1] : undefined
  return programId ? { path, action: { kind: 'add', programId } } : { path }
}

/** The query that carries `target` to the next account page: empty for the signed-in home. */
export function returnSearch(target: ReturnTarget | null | undefined): string {
  if (!target) return ''
  const query = returnQuery(target.path)
  return query && target.action ? `${query}&${ACTION_PARAM}=${target.action.kind}` : query
}

/** An account page still owed before the signed-in area, or 'ready', or 'unknown' (the API failed: the target page says why). */
export type AccountStep = '/login' | '/mfa' | '/email-not-verified' | '/tos' | 'ready' | 'unknown'

/**
 * Where a user goes next once an account step is done, from the answer of GET /api/user, in the
 * route guard's order (spec §4): the session, the second factor, the email, the terms. Only
 * 'ready' lets a pending action run.
 */
export function nextAccountStep(status: number, body: unknown): AccountStep {
  const answer = (body ?? {}) as { code?: unknown; isTosAccepted?: unknown }
  if (status === 200) return answer.isTosAccepted === true ? 'ready' : '/tos'
  if (status === 401 || answer.code === 'API_SESSION_REQUIRED') return '/login'
  if (answer.code === 'API_MFA_REQUIRED') return '/mfa'
  if (answer.code === 'API_EMAIL_NOT_VERIFIED') return '/email-not-verified'
  return 'unknown'
}
