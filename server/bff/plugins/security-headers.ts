import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Security headers (SECURITY.md "Headers"): an enforced CSP whose scripts run by per-request
 * nonce, framing forbidden, nosniff, a referrer policy, HSTS under https. Development adds what
 * Vite's hot reload needs (its websocket and injected styles).
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance, opts: { https: boolean; dev: boolean }) => {
    await app.register(helmet, {
      enableCSPNonces: true,
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          'default-src': ["'self'"],
          'script-src': ["'self'"],
          'style-src': opts.dev ? ["'self'", "'unsafe-inline'"] : ["'self'"],
          'img-src': ["'self'", 'data:'],
          'font-src': ["'self'"],
          'connect-src': opts.dev ? ["'self'", 'ws:', 'wss:'] : ["'self'"],
          'object-src': ["'none'"],
          'base-uri': ["'none'"],
          'frame-ancestors': ["'none'"],
          'form-action': ["'self'"],
          ...(opts.https ? { 'upgrade-insecure-requests': [] } : {}),
        },
      },
      strictTransportSecurity: opts.https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
      crossOriginEmbedderPolicy: false,
      crossOriginResourcePolicy: { policy: 'same-origin' },
    })
  },
  { name: 'security-headers' },
)
