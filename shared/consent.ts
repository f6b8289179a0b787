// The visitor's choice about analytics: a first-party cookie both the server (to render
// the page with or without the consent banner, so it never flashes) and the browser read.
// `consent=analytics:granted` or `consent=analytics:denied`; anything else counts as no choice.

export type AnalyticsConsent = 'granted' | 'denied'

export const CONSENT_COOKIE_NAME = 'consent'
/** Kept as long as the language choice: 365 days (spec §9 "Locale cookie"). */
export const CONSENT_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60

export function parseConsent(value: string | undefined): AnalyticsConsent | null {
  if (value === 'analytics:granted') return 'granted'
  if (value === 'analytics:denied') return 'denied'
  return null
}

/** The consent cookie's value in a `Cookie` header or `document.cookie`. */
export function consentFromCookieHeader(header: string | undefined): AnalyticsConsent | null {
  const match = header ? /(?:^|;\s*)consent=([^;]*)/.exec(header) : null
  return parseConsent(match?.[1])
}

/** The Set-Cookie / document.cookie string that stores `choice`. */
export function consentCookie(choice: AnalyticsConsent, secure: boolean): string {
  return `${CONSENT_COOKIE_NAME}=analytics:${choice}; Max-Age=${CONSENT_COOKIE_MAX_AGE_S}; Path=/; SameSite=Lax${secure ? '; Secure' : ''}`
}
