import { data, redirect, useRouteLoaderData, type LoaderFunctionArgs, type ShouldRevalidateFunction } from 'react-router'
import { ACCOUNT_DISABLED_MESSAGE } from '../../../shared/constants.ts'
import { protectedRedirect, termsRedirect, type SessionState } from '../../../shared/auth/session.ts'
import type { ErrorBody, UserRecord } from '../../../shared/types.ts'
import { apiResponse } from '../api.ts'
import { signedInHome } from '../catalogue/twins.ts'
import { sessionState } from './state.ts'

// The route guard of spec §2 and §4, as loaders of three pathless layout routes: the same code
// redirects on the server (before any HTML is sent) and in the browser (before a page renders).

export interface SignedInData {
  user: UserRecord
}

/** The route error a disabled account sees (spec §8), with the account's own message. */
export const ACCOUNT_DISABLED_CODE = 'ACCOUNT_DISABLED'

/** Guards look again on every navigation: the session may have changed since the last one. */
export const alwaysRevalidate: ShouldRevalidateFunction = () => true

/** Routes that are neither protected nor skip the check: a fully signed-in user goes to /@. */
export async function publicGuard({ context, request }: LoaderFunctionArgs): Promise<{ state: SessionState }> {
  const state = await sessionState(context)
  if (state === 'LOGGED_IN') {
    const url = new URL(request.url)
    throw redirect(signedInHome(url.pathname, url.search))
  }
  return { state }
}

/**
 * Pages about a session's pending step (/check-email, /email-not-verified): a visitor without a
 * session has no link on the way and no email to verify, so logs in first; on a page
 * load the BFF adds the page as the way back (server/bff/plugins/ssr.ts).
 */
export async function sessionPageGuard({ context }: LoaderFunctionArgs): Promise<null> {
  if ((await sessionState(context)) === 'LOGGED_OUT') throw redirect('/login')
  return null
}

/** Who a page that skips the check is for: the session's state, and the user when fully signed in. */
export interface ViewerData {
  state: SessionState
  user: UserRecord | null
}

/**
 * The pages that skip the check and have a header (/mfa, /sentry-test, the 404 page): they guard
 * nothing, but their header shows who is there, so a signed-in user keeps "My profile"
 * and "Log out". A user record that cannot be had leaves the visitor's header: the page itself
 * does not depend on it.
 */
export async function viewerLoader({ context, request }: LoaderFunctionArgs): Promise<ViewerData> {
  const state = await sessionState(context)
  if (state !== 'LOGGED_IN') return { state, user: null }
  const response = await apiResponse(context, '/api/user', request.signal).catch(() => null)
  const user = response?.status === 200 ? (response.body as UserRecord) : null
  return { state, user }
}

/**
 * Who the page is for, from whichever layout group knows (client/routes.tsx): a protected page's
 * user, or what the viewer loader of the pages that skip the check found. One answer for every
 * header, so no page shows a visitor's header to a signed-in user.
 */
export function useViewer(): { state: SessionState | null; user: UserRecord | null } {
  const signedIn = useRouteLoaderData('signed-in') as SignedInData | undefined
  const unguarded = useRouteLoaderData('unguarded-default-layout') as ViewerData | undefined
  const visitor = useRouteLoaderData('public') as { state: SessionState } | undefined
  if (signedIn) return { state: 'LOGGED_IN', user: signedIn.user }
  if (unguarded) return unguarded
  return { state: visitor?.state ?? null, user: null }
}

/** Protected routes: the session first, then the user's record and the terms (spec §4). */
export async function protectedGuard({ context, request }: LoaderFunctionArgs): Promise<SignedInData> {
  const target = protectedRedirect(await sessionState(context))
  if (target) throw redirect(target)
  const response = await apiResponse(context, '/api/user', request.signal)
  if (response.status !== 200) {
    const code = (response.body as ErrorBody | null)?.code
    // The claims changed since the session was read (another tab): the API says which.
    if (code === 'API_SESSION_REQUIRED') throw redirect('/login')
    if (code === 'API_MFA_REQUIRED') throw redirect('/mfa')
    if (code === 'API_EMAIL_NOT_VERIFIED') throw redirect('/email-not-verified')
    // Spec §4: a user record that cannot be had means a disabled account; an API that is down
    // is its own error page, not a verdict on the account.
    if (response.status === 403 || response.status === 404) {
      throw data({ code: ACCOUNT_DISABLED_CODE, message: ACCOUNT_DISABLED_MESSAGE }, { status: 403 })
    }
    throw data(response.body, { status: response.status })
  }
  const user = response.body as UserRecord
  const terms = termsRedirect(user.isTosAccepted, new URL(request.url).pathname === '/tos')
  if (terms) throw redirect(terms)
  return { user }
}
