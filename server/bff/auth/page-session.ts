import type { FastifyReply, FastifyRequest } from 'fastify'
import Session from 'supertokens-node/recipe/session'
import { FRONT_TOKEN_COOKIE, LAST_UPDATE_COOKIE, stateFromFailedClaims, type PageSession } from '../../../shared/auth/session.ts'

export { FRONT_TOKEN_COOKIE, LAST_UPDATE_COOKIE }

// The session of a page request (DESIGN.md §2 "A page, signed in"): read from the access-token
// cookie without refreshing. The claims decide the state of spec §4, the multi-factor claim
// before email verification.

/** What the page handler does with a request: render with this session, or refresh it first. */
export type PageSessionResult = { kind: 'session'; session: PageSession; accessToken?: string } | { kind: 'refresh' }

const LOGGED_OUT: PageSessionResult = { kind: 'session', session: { state: 'LOGGED_OUT' } }

/**
 * The browser SDK (supertokens-website 20.1.6) keeps the claims it reads in the `sFrontToken`
 * cookie and the time of the last token change in `st-last-access-token-update`. When a page
 * request changes the token (a claim fetched again, e.g. the email just verified), the SDK never
 * sees the `front-token` header of an HTML answer, so the BFF writes both cookies as it would.
 */
const FOREVER = new Date('9999-12-31T23:59:59Z')

export function mirrorFrontToken(reply: FastifyReply, https: boolean): void {
  const frontToken = reply.getHeader('front-token')
  if (typeof frontToken !== 'string') return
  reply.removeHeader('front-token')
  const attributes = { path: '/', sameSite: 'lax' as const, secure: https, httpOnly: false }
  if (frontToken === 'remove') reply.clearCookie(FRONT_TOKEN_COOKIE, attributes)
  else reply.setCookie(FRONT_TOKEN_COOKIE, frontToken, { ...attributes, expires: FOREVER, encode: (value) => value })
  reply.setCookie(LAST_UPDATE_COOKIE, String(Date.now()), { ...attributes, expires: FOREVER })
}

/**
 * On /auth answers that end the session (sign-out, a refused refresh) the SDK's front token goes
 * too, from the server's side as well: a page request must not take a leftover front token for a
 * session to refresh. The header stays for the SDK.
 */
export function clearFrontTokenOnRemove(reply: FastifyReply, https: boolean): void {
  if (reply.getHeader('front-token') !== 'remove') return
  reply.clearCookie(FRONT_TOKEN_COOKIE, { path: '/', sameSite: 'lax', secure: https, httpOnly: false })
}

export async function pageSession(request: FastifyRequest, reply: FastifyReply): Promise<PageSessionResult> {
  // No access token but the SDK's front token: the access cookie is gone (cleared, or never
  // stored) while a refresh token may still be valid — let the browser try.
  if (request.cookies.sAccessToken === undefined) return request.cookies[FRONT_TOKEN_COOKIE] ? { kind: 'refresh' } : LOGGED_OUT
  try {
    // The global validators (email verified, MFA complete) run here; a stale "not verified" is
    // fetched again from the core, which updates the token in this answer's cookies.
    // A page answering a form post (decision 025) reads the session like a GET: the post carries no
    // custom header, and page-forms.ts has vouched for it by its Origin.
    const session = await Session.getSession(request, reply, { sessionRequired: false, antiCsrfCheck: false })
    if (!session) return LOGGED_OUT
    return { kind: 'session', session: { state: 'LOGGED_IN' }, accessToken: session.getAccessToken() }
  } catch (error) {
    if (!Session.Error.isErrorFromSuperTokens(error)) throw error
    if (error.type === Session.Error.TRY_REFRESH_TOKEN) return { kind: 'refresh' }
    if (error.type === Session.Error.INVALID_CLAIMS) {
      const failed = (error.payload as Array<{ id: string }>).map((claim) => claim.id)
      const state = stateFromFailedClaims(failed)
      // The token is still the user's own: the pages allowed in this state call the API with it.
      const accessToken = request.cookies.sAccessToken
      return { kind: 'session', session: { state }, ...(accessToken ? { accessToken } : {}) }
    }
    // UNAUTHORISED and the rest: no usable session; the browser SDK clears what is left.
    request.log.info({ reason: error.type }, 'page request with an unusable session')
    return LOGGED_OUT
  }
}

/**
 * The account a request's session belongs to, for counting its requests (decision 027). Only an
 * access token the BFF verified (signature, expiry) names one; no cookie, an expired, forged or
 * garbled one names none, so a made-up cookie can never buy a counter of its own. No claim is
 * checked and nothing is written to the answer: it is read again, fully, where it is used.
 */
export function verifiedAccount(request: FastifyRequest): Promise<string | undefined> | undefined {
  const token = request.cookies?.sAccessToken
  // No session to verify: answered at once, so counting a visitor's request makes no promise.
  if (!token || carriesParentRefreshToken(token)) return undefined
  return Session.getSessionWithoutRequestResponse(token, undefined, { antiCsrfCheck: false, sessionRequired: false, overrideGlobalClaimValidators: () => [] }).then(
    (session) => session?.getUserId(),
    () => undefined,
  )
}

/**
 * The first access token after a refresh names the refresh token it came from: the SDK's getSession
 * then asks the core to make the new refresh token the session's (and answers with another access
 * token to set). Counting must not do that on the side — the answer would be lost, and a browser
 * whose refresh raced another's lost its session (test/system/database-outage.test.ts) — so such a
 * request is counted by its address only, as one without a session; the next one is the account's.
 */
function carriesParentRefreshToken(token: string): boolean {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
    return payload.parentRefreshTokenHash1 !== undefined && payload.parentRefreshTokenHash1 !== null
  } catch {
    return false
  }
}
