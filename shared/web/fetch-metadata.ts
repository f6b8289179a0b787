// Fetch Metadata (the Sec-Fetch-Site request header): which site started a request. Browsers set
// it and pages cannot; one that sends none (an old browser) is treated like a same-site request,
// as before the header existed.

export const SEC_FETCH_SITE = 'sec-fetch-site'

/** The request was started by a page of another site (a link, a form, a script's navigation). */
export function isCrossSite(secFetchSite: string | null | undefined): boolean {
  return secFetchSite === 'cross-site'
}

/** The sign-out page, which asks first when another site sent the visitor there. */
export const LOGOUT_PATH = '/@/logout'

/**
 * Whether a request path is the sign-out page as the router matches it: case-insensitive, with
 * or without trailing slashes, percent-encoded letters decoded — every spelling that renders it
 * must ask alike.
 */
export function isLogoutPath(rawPath: string): boolean {
  const path = rawPath.split('?')[0] ?? ''
  let decoded: string
  try {
    decoded = decodeURIComponent(path)
  } catch {
    return false
  }
  return decoded.replace(/\/+$/, '').toLowerCase() === LOGOUT_PATH
}
