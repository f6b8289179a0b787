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

/**
 * The cookies the browser SDK (supertokens-website) writes itself from an /auth answer's
 * `front-token` header: the session's claims, and the time of the last token change. The BFF
 * writes them too where the SDK cannot see the header (server/bff/auth/page-session.ts).
 */
export const FRONT_TOKEN_COOKIE = 'sFrontToken'
export const LAST_UPDATE_COOKIE = 'st-last-access-token-update'

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

/**
 * Spec §4 "After authorisation": terms first. Returns where to go, or null to stay. `onTerms` is
 * whether the page is /tos itself.
 */
export function termsRedirect(isTosAccepted: boolean, onTerms: boolean): string | null {
  if (!isTosAccepted && !onTerms) return '/tos'
  if (isTosAccepted && onTerms) return '/@'
  return null
}
