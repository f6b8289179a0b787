import { randomBytes } from 'node:crypto'
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
  async (app: FastifyInstance, opts: { https: boolean; dev: boolean }) => {
    const headers = securityHeaders(opts.https)
    // Only a document can be framed, opened in a popup or given its own agent cluster, so these
    // go on pages, not on every API answer.
    const documentHeaders: Record<string, string> = {
      'cross-origin-opener-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'x-frame-options': 'DENY',
    }
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(headers)
      done()
    })

    const before = "default-src 'self'; script-src 'self' 'nonce-"
    const after = [
      "'",
      `style-src 'self'${opts.dev ? " 'unsafe-inline'" : ''}`,
      "img-src 'self' data:",
      "font-src 'self'",
      `connect-src 'self'${opts.dev ? ' ws: wss:' : ''}`,
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
      ...(opts.https ? ['upgrade-insecure-requests'] : []),
    ].join('; ')
    app.decorateReply('pageCsp', function pageCsp(this: FastifyReply): string {
      const nonce = randomBytes(16).toString('hex')
      this.headers(documentHeaders)
      this.header('content-security-policy', `${before}${nonce}${after}`)
      return nonce
    })
  },
  { name: 'security-headers' },
)
