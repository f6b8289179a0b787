import type { FastifyRequest } from 'fastify'
import { BffCsrfRejected } from './errors.ts'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
/** Content types a cross-site HTML form can send without a preflight. */
const SIMPLE_FORM_TYPES = ['text/plain', 'application/x-www-form-urlencoded']

/** A method that writes nothing (no anti-forgery check for it). */
export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method)
}

/**
 * CSRF defence for writes (DESIGN.md §4.4): SameSite=Lax cookies plus a required custom header.
 * A write must carry `rid` (a custom header forces a CORS preflight, which we never grant), must
 * not come from a foreign Origin, and must not be a simple form post.
 */
export function assertSameOriginWrite(request: FastifyRequest, appOrigin: string): void {
  if (SAFE_METHODS.has(request.method)) return
  const rid = request.headers.rid
  if (typeof rid !== 'string' || rid.trim() === '') throw new BffCsrfRejected()
  const origin = request.headers.origin
  if (origin !== undefined && origin !== appOrigin && origin !== `${request.protocol}://${request.host}`) throw new BffCsrfRejected()
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  if (SIMPLE_FORM_TYPES.includes(contentType)) throw new BffCsrfRejected()
}

/**
 * Route options of a write the BFF answers itself under /api/user: the anti-forgery check above,
 * and the stricter per-IP limit of /auth writes.
 */
export function guardedWrite(appOrigin: string, rateLimitMax: number) {
  return {
    config: { rateLimit: { max: rateLimitMax, timeWindow: 60_000 } },
    onRequest: async (request: FastifyRequest) => assertSameOriginWrite(request, appOrigin),
  }
}

/**
 * A form post from one of our own pages (decision 025: the account forms work before the page's
 * script runs). Such a post cannot carry the custom header, so the browser's own marks decide:
 * `Sec-Fetch-Site`, when sent, must be same-origin (a sibling subdomain's form is same-site, not
 * ours), and `Origin` — which browsers send with every POST form — must be ours; with neither,
 * nothing vouches for the post. Another site's form (login CSRF) fails here.
 */
export function isSameOriginForm(request: FastifyRequest, appOrigin: string): boolean {
  const site = request.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin') return false
  const origin = request.headers.origin
  if (origin === undefined) return site === 'same-origin'
  return origin === appOrigin || origin === `${request.protocol}://${request.host}`
}
