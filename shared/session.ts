// Session states and the route guard of spec §4, as pure decisions the server and the browser
// share: the BFF derives the state from the access token's claims, the browser from
// supertokens-web-js; both then redirect the same way.

/** Spec §4 "Session state": the multi-factor claim is checked first, then email verification. */
export type SessionState = 'LOGGED_OUT' | 'LOGGED_IN' | 'MFA_REQUIRED' | 'EMAIL_VERIFICATION_REQUIRED'

/** What the BFF tells the page renderer about the visitor's session. */
export interface PageSession {
  state: SessionState
}

/** The claim ids the states come from (spec §3: the email-verification claim id is st-ev). */
export const EMAIL_VERIFICATION_CLAIM_ID = 'st-ev'
export const MFA_CLAIM_ID = 'st-mfa'

export function stateFromFailedClaims(failedClaimIds: readonly string[]): SessionState {
  if (failedClaimIds.includes(MFA_CLAIM_ID)) return 'MFA_REQUIRED'
  if (failedClaimIds.includes(EMAIL_VERIFICATION_CLAIM_ID)) return 'EMAIL_VERIFICATION_REQUIRED'
  return 'LOGGED_IN'
}

/** Spec §4 "Route guard" on a protected route: where the visitor goes, or null when authorised. */
export function protectedRedirect(state: SessionState): string | null {
  switch (state) {
    case 'LOGGED_OUT':
      return '/login'
    case 'MFA_REQUIRED':
      return '/mfa'
    case 'EMAIL_VERIFICATION_REQUIRED':
      return '/email-not-verified'
    default:
      return null
  }
}

/** Public pages with a signed-in twin under /@: the catalogue's (issue 5) and the drive's (issue 12). */
const SIGNED_IN_TWINS = [/^\/programs(\/[^/]+)?$/, /^\/category\/[^/]+$/, /^\/developer\/[^/]+$/, /^\/files$/]

/**
 * Spec §4: on a route that is neither protected nor skips the check, a fully signed-in user is
 * sent to /@ — to the page's signed-in twin when it has one (/programs/x → /@/programs/x).
 */
export function signedInHome(pathname: string, search = ''): string {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname
  return SIGNED_IN_TWINS.some((pattern) => pattern.test(path)) ? `/@${path}${search}` : '/@'
}

/**
 * Spec §4 "After authorisation": terms first. Returns where to go, or null to stay. `onTerms` is
 * whether the page is /tos itself.
 */
export function termsRedirect(isTosAccepted: boolean, onTerms: boolean): string | null {
  if (!isTosAccepted && !onTerms) return '/tos'
  if (isTosAccepted && onTerms) return '/@'
  return null
}
