import { randomFillSync } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyReply {
    /** Sets the page CSP with a fresh script nonce and returns the nonce. */
    pageCsp(): string
  }
}

/** The headers every BFF response carries, also the ones Fastify answers before any hook (app.ts). */
export function securityHeaders(https: boolean): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    'cross-origin-resource-policy': 'same-origin',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'x-content-type-options': 'nosniff',
    ...(https ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  }
}

/** Random bytes for 256 nonces, drawn from the CSPRNG at once: one call per 256 pages, not one each. */
const NONCE_BYTES = 16
const nonceBytes = Buffer.alloc(NONCE_BYTES * 256)
let nonceAt = nonceBytes.length

/** 128 fresh random bits as hex (CSP Level 3 asks for at least 128); each of the pool's bytes is used once. */
export function newNonce(): string {
  if (nonceAt === nonceBytes.length) {
    randomFillSync(nonceBytes)
    nonceAt = 0
  }
  const nonce = nonceBytes.toString('hex', nonceAt, nonceAt + NONCE_BYTES)
  nonceAt += NONCE_BYTES
  return nonce
}

const SHARE_PAGE_HEADERS = { 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex, nofollow' }
const SHARE_PAGE_PATH = /^\/sharing\//i

/** Outside origins a page may use: exactly the configured ones, or none. */
export interface OutsideOrigins {
  /** The live-chat widget's origin: its loader script and what a widget does from there. */
  chatWidget?: string | undefined
  /** The tag manager's origin: its script only. */
  tagManager?: string | undefined
}

/**
 * Security headers (SECURITY.md "Headers"), computed once at boot and set on every response:
 * a strict static CSP (pages replace it with the nonce'd page CSP and add the document-only
 * headers: no framing, opener isolation), nosniff, a referrer policy, CORP, HSTS under https. Headers for browsers
 * and plug-ins long gone (IE's XSS auditor and download prompt, Flash policies) are left out.
 *
 * Written here rather than with @fastify/helmet: helmet re-parsed its CSP on every request and
 * halved the throughput of the proxied API (docs/decisions/005-security-headers-without-helmet.md).
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance, opts: { https: boolean; dev: boolean; outside?: OutsideOrigins }) => {
    const headers = securityHeaders(opts.https)
    // Only a document can be framed, opened in a popup or given its own agent cluster, so these
    // go on pages, not on every API answer.
    const documentHeaders: Record<string, string> = {
      'cross-origin-opener-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'x-frame-options': 'DENY',
    }
    app.addHook('onRequest', (request, reply, done) => {
      reply.headers(headers)
      // Share-link pages (decision 016): the link is a secret, so it is never sent on as a
      // referrer, and such pages are never indexed. Their /api/sharing answers bring the same
      // headers from the API.
      // The router matches paths in any letter case, so this does too. The only place these are
      // set for the pages (the routes do not repeat them).
      if (SHARE_PAGE_PATH.test(request.url)) reply.headers(SHARE_PAGE_HEADERS)
      done()
    })

    // The outside scripts (docs/decisions/012-support-chat-and-consent.md): each
    // configured origin, never a wildcard. The chat widget may also connect back (XHR, WebSocket),
    // show images and open a frame from its own origin, as widgets do; the tag manager only runs
    // its script — tags that would reach further origins stay blocked.
    const widget = opts.outside?.chatWidget
    const scriptOrigins = [...new Set([widget, opts.outside?.tagManager].filter((origin): origin is string => origin !== undefined))]
    const also = (origin: string | undefined) => (origin ? ` ${origin}` : '')
    const before = `default-src 'self'; script-src 'self'${scriptOrigins.map((origin) => ` ${origin}`).join('')} 'nonce-`
    const after = [
      "'",
      `style-src 'self'${opts.dev ? " 'unsafe-inline'" : ''}`,
      `img-src 'self' data:${also(widget)}`,
      "font-src 'self'",
      `connect-src 'self'${opts.dev ? ' ws: wss:' : ''}${also(widget)}`,
      ...(widget ? [`frame-src 'self' ${widget}`] : []),
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
      ...(opts.https ? ['upgrade-insecure-requests'] : []),
    ].join('; ')
    app.decorateReply('pageCsp', function pageCsp(this: FastifyReply): string {
      const nonce = newNonce()
      this.headers(documentHeaders)
      this.header('content-security-policy', `${before}${nonce}${after}`)
      return nonce
    })
  },
  { name: 'security-headers' },
)
