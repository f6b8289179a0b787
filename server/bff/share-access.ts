import type { FastifyReply, FastifyRequest } from 'fastify'
import type { UpstreamResponse } from './upstream-client.ts'

// How a visitor's browser stays "unlocked" on a password-protected share link (decision
// 016) without the password, or any proof of it, in a URL or in reach of JavaScript.
// The API's unlock answers a signed token; the BFF keeps it in an httpOnly cookie named after
// the link and strips it from the JSON the page sees. Requests for that link — proxied /api calls,
// and the /sharing/<link> page's server-side loaders — carry it to the API as `x-share-token`.
// A link's cookie goes with that link's requests only, never another link's, and the browser's
// other cookies never go upstream at all.

const COOKIE_PREFIX = 'sShare_'
/** What the API makes: base64url, 32 characters today; the bound only keeps cookie names sane. */
const LINK = /^[A-Za-z0-9_-]{1,64}$/
const SHARING_PATH = /^\/api\/sharing\/([^/?#]+)(\/[^?#]*)?(?:[?#]|$)/

/** The cookie that keeps a link unlocked in this browser. */
export function shareCookieName(link: string): string {
  return `${COOKIE_PREFIX}${link}`
}

/** The link a proxied `/api/sharing/<link>…` path is about, or null. */
export function sharingLinkOf(path: string): string | null {
  const link = SHARING_PATH.exec(path)?.[1]
  return link !== undefined && LINK.test(link) ? link : null
}

/**
 * The unlock token this browser holds for `link`, to send to the API as `x-share-token` — for the
 * proxy, and for the server-side loaders of the `/sharing/<link>` page.
 */
export function shareTokenFor(request: FastifyRequest, link: string): string | undefined {
  if (!LINK.test(link)) return undefined
  const token = request.cookies?.[shareCookieName(link)]
  return typeof token === 'string' && token !== '' ? token : undefined
}

/**
 * The API's answer to `POST /api/sharing/<link>/unlock`, as the browser may see it: the token goes
 * into the link's httpOnly cookie (SameSite=Lax, Secure under https, until the token expires) and
 * out of the body, which keeps `{ ok, expiresAt }`. Any other answer passes unchanged.
 */
export function rememberUnlock(request: FastifyRequest, reply: FastifyReply, response: UpstreamResponse, https: boolean): UpstreamResponse {
  if (request.method !== 'POST' || response.status !== 200) return response
  const path = request.raw.url ?? ''
  const link = sharingLinkOf(path)
  if (link === null || SHARING_PATH.exec(path)?.[2] !== '/unlock') return response
  let answer: { ok?: unknown; token?: unknown; expiresAt?: unknown }
  try {
    answer = JSON.parse(response.body.toString('utf8')) as typeof answer
  } catch {
    return response
  }
  if (typeof answer.token !== 'string' || typeof answer.expiresAt !== 'string') return response
  const expires = new Date(answer.expiresAt)
  reply.setCookie(shareCookieName(link), answer.token, { httpOnly: true, sameSite: 'lax', secure: https, path: '/', expires })
  const { token: _token, ...visible } = answer
  return { ...response, body: Buffer.from(JSON.stringify(visible)) }
}
