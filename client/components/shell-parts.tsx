import { useLocation } from 'react-router'
import type { UserRecord } from '../../shared/types.ts'
import { useConsent, type ConsentState } from '../lib/consent/consent.tsx'
import { deferredComponent } from '../lib/deferred-component.tsx'

// Parts of every page's shell (client/root.tsx) that the server renders but that no page needs
// before it is interactive: their code loads after hydration (client/lib/deferred-component.tsx),
// out of every page's initial JS. client/entry-server.tsx hands the server their code.

/** The toasts' two live regions (spec §9); in the HTML from the start, so screen readers follow them. */
export const Toaster = deferredComponent(() => import('./toaster.tsx').then((m) => m.Toaster))

/**
 * The error page (error-page.tsx) and a signed-in user's header links (signed-in-nav.tsx): a
 * visitor's public page shows neither, so their code is not in its first JS (the 110 kB
 * budget). The browser loads them when they first render, or before hydration when the server's
 * page has them (client/entry-client.tsx).
 */
export const ErrorPage = deferredComponent<{ error: unknown }>(() => import('./error-page.tsx').then((m) => m.ErrorPage))
export const SignedInNav = deferredComponent<{ user: UserRecord }>(() => import('./signed-in-nav.tsx').then((m) => m.SignedInNav))

/** The analytics question (consent-banner.tsx). */
export const ConsentBannerBody = deferredComponent(() => import('./consent-banner.tsx').then((m) => m.ConsentBanner))

/**
 * The banner shows to a visitor who has not chosen, and only when a tag manager is configured
 * (nothing to ask otherwise); not on /cookie, whose own settings ask the same question (and would
 * sit under it). Its code loads only when it shows: before hydration when the first page shows it
 * (client/entry-client.tsx), so its buttons work as soon as the page does.
 */
export function consentBannerShows({ choice, asked }: Pick<ConsentState, 'choice' | 'asked'>, pathname: string): boolean {
  return asked && choice === null && pathname !== '/cookie'
}

export function ConsentBanner() {
  const consent = useConsent()
  const { pathname } = useLocation()
  return consentBannerShows(consent, pathname) ? <ConsentBannerBody /> : null
}
