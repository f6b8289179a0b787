// Fetch Metadata (the Sec-Fetch-Site request header): which site started a request. Browsers set
// it and pages cannot; one that sends none (an old browser) is treated like a same-site request,
// as before the header existed.

export const SEC_FETCH_SITE = 'sec-fetch-site'

/** The request was started by a page of another site (a link, a form, a script's navigation). */
export function isCrossSite(secFetchSite: string | null | undefined): boolean {
  return secFetchSite === 'cross-site'
}

/** The sign-out page, which asks first when another site sent the visitor there (issue 17). */
export const LOGOUT_PATH = '/@/logout'
