// Share links' API (/api/sharing/<link>…) answers 401 for a missing or wrong share
// password. That is no session's business: supertokens-web-js, once initialised (a signed-in
// visitor), would take such a 401 for an expired session, refresh it and send the request again —
// up to ten times, each a counted password guess. Its fetch and XHR interception skips these URLs.

const SHARING_PREFIX = '/api/sharing/'

/** Whether `url` (absolute or relative to `base`) is a same-origin call to the share links' API. */
export function isShareApiUrl(url: string, base: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url, base)
  } catch {
    return false
  }
  return parsed.origin === new URL(base).origin && parsed.pathname.startsWith(SHARING_PREFIX)
}
