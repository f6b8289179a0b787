import * as SuperTokens from 'supertokens-web-js/index.js'
import * as EmailPassword from 'supertokens-web-js/recipe/emailpassword/index.js'
import * as EmailVerification from 'supertokens-web-js/recipe/emailverification/index.js'
import * as MultiFactorAuth from 'supertokens-web-js/recipe/multifactorauth/index.js'
import * as Session from 'supertokens-web-js/recipe/session/index.js'
import * as ThirdParty from 'supertokens-web-js/recipe/thirdparty/index.js'
import * as Totp from 'supertokens-web-js/recipe/totp/index.js'
import { PRODUCT_NAME, SESSION_EXPIRED_STATUS, INVALID_CLAIM_STATUS, SESSION_REFRESH_RETRY_LIMIT } from '../../../shared/constants.ts'
import { stateFromFailedClaims, type SessionState } from '../../../shared/auth/session.ts'
import { hasLocalSession, notifySignedOut } from './presence.ts'
import { isShareApiUrl } from './share-requests.ts'
import { readUtm } from './utm.ts'

// The browser's side of sessions (DESIGN.md §4.3): supertokens-web-js 0.16 against the BFF's
// /auth. It keeps the session's cookies fresh: a 401 from /auth or /api refreshes once and retries
// (at most 10 times, spec §9), a 403 with failed claims emits API_INVALID_CLAIM. Tokens stay in
// httpOnly cookies; JavaScript only reads the front token's claims.

let initialised = false

/**
 * Spec §4 "Local session presence": with neither the front token nor the SDK's last-update stamp
 * the session MAY_EXIST, and the SDK's first call (any same-origin fetch, the version poll too)
 * tries a refresh — a 401 in every fresh visitor's console. Without a front token
 * there is no session to refresh here (decision 008: pages read the front token the same way; the
 * BFF clears it with the session), so the stamp is written as the SDK writes it once it finds no
 * session: NOT_EXISTS, and no request. A sign-in sets the front token and the stamp anew.
 */
function markNoSession(): void {
  if (hasLocalSession() || /(?:^|;\s*)st-last-access-token-update=/.test(document.cookie)) return
  document.cookie = `st-last-access-token-update=${Date.now()};expires=Fri, 31 Dec 9999 23:59:59 GMT;path=/;samesite=lax`
}

/** Runs when this module first loads in a browser: by the entry when a session exists, else by the first page that needs it. */
function initAuth(): void {
  if (initialised || typeof window === 'undefined') return
  markNoSession()
  SuperTokens.init({
    appInfo: { appName: PRODUCT_NAME, apiDomain: window.location.origin, apiBasePath: '/auth' },
    recipeList: [
      Session.init({
        tokenTransferMethod: 'cookie',
        sessionExpiredStatusCode: SESSION_EXPIRED_STATUS,
        invalidClaimStatusCode: INVALID_CLAIM_STATUS,
        maxRetryAttemptsForSessionRefresh: SESSION_REFRESH_RETRY_LIMIT,
        override: {
          functions: (original) => ({
            ...original,
            // A share link's 401 is about its password, never the session (share-requests.ts).
            shouldDoInterceptionBasedOnUrl: (url, apiDomain, sessionTokenBackendDomain) =>
              !isShareApiUrl(url, window.location.href) && original.shouldDoInterceptionBasedOnUrl(url, apiDomain, sessionTokenBackendDomain),
          }),
        },
        onHandleEvent: (event) => {
          // Signed out here or in another tab, or the session expired for good.
          if (event.action === 'SIGN_OUT' || (event.action === 'UNAUTHORISED' && event.sessionExpiredOrRevoked)) {
            notifySignedOut()
          }
        },
      }),
      EmailPassword.init(),
      EmailVerification.init(),
      MultiFactorAuth.init(),
      Totp.init(),
      ThirdParty.init({
        // Spec §7: an external sign-in sends the UTM record along, like a sign-up.
        preAPIHook: async (context) => {
          if (context.action !== 'THIRD_PARTY_SIGN_IN_UP') return context
          const utm = readUtm()
          if (!utm) return context
          const body = JSON.parse(String(context.requestInit.body ?? '{}')) as Record<string, unknown>
          return { ...context, requestInit: { ...context.requestInit, body: JSON.stringify({ ...body, utm }) } }
        },
      }),
    ],
  })
  initialised = true
}

/** Spec §4 "Session state" in the browser: local session presence, then the claims. */
export async function browserSessionState(): Promise<SessionState> {
  if (!(await Session.doesSessionExist())) return 'LOGGED_OUT'
  const failed = await Session.validateClaims()
  return stateFromFailedClaims(failed.map((claim) => claim.id))
}

export async function signOut(): Promise<void> {
  await Session.signOut()
}

export { EmailPassword, EmailVerification, MultiFactorAuth, Session, ThirdParty, Totp }

initAuth()
