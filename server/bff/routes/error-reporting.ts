import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { request as undiciRequest } from 'undici'
import { SENTRY_TUNNEL_PATH } from '../../../shared/error-reporting.ts'
import type { SentryConfig } from '../../config.ts'
import { errorBody } from '../../http/errors.ts'
import { guardedWrite } from '../csrf.ts'
import { BffCsrfRejected, BffTunnelBadEnvelope, BffTunnelForeignDsn, BffTunnelUnavailable } from '../errors.ts'

// Error reporting on the BFF (decision 019), registered only when SENTRY_DSN is set:
// - POST /sentry-tunnel: the browser SDK's envelopes, forwarded to the configured DSN's project and
//   nowhere else, so the page talks to its own origin only (no new connect-src in the CSP);
// - POST /sentry-test/error: an error raised on purpose in the BFF, for the /sentry-test page.

/** A browser's envelope is one event with its stack and breadcrumbs: tens of kB; replays are not sent. */
export const TUNNEL_BODY_LIMIT = 256 * 1024
/** Per IP per minute: a page in an error loop should not flood the project (the SDK backs off on 429). */
export const TUNNEL_RATE_LIMIT = 60
/** The tracker's answers the SDK reads to back off. */
const RELAYED_HEADERS = ['x-sentry-rate-limits', 'retry-after'] as const

export interface ErrorReportingRoutesOptions {
  sentry: SentryConfig
  appOrigin: string
  rateLimitMax: number
  timeouts: { connectTimeoutMs: number; headersTimeoutMs: number; bodyTimeoutMs: number }
}

/** The `dsn` of an envelope's header (its first line, JSON); undefined when there is none. */
export function envelopeDsn(body: Buffer): string | undefined {
  const end = body.indexOf(0x0a)
  const line = (end === -1 ? body : body.subarray(0, end)).toString('utf8')
  let header: unknown
  try {
    header = JSON.parse(line)
  } catch {
    throw new BffTunnelBadEnvelope()
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw new BffTunnelBadEnvelope()
  const dsn = (header as { dsn?: unknown }).dsn
  return typeof dsn === 'string' ? dsn : undefined
}

/** The SDK cannot send our anti-forgery header with every report, but another site's page has no business here. */
function assertNotCrossSite(request: FastifyRequest, appOrigin: string): void {
  const origin = request.headers.origin
  if (origin !== undefined && origin !== appOrigin && origin !== `${request.protocol}://${request.host}`) throw new BffCsrfRejected()
}

async function errorReportingRoutes(app: FastifyInstance, opts: ErrorReportingRoutesOptions): Promise<void> {
  // The SDK posts its envelope as text/plain (a fetch without a content type); whatever the type,
  // the bytes are read as they are, up to the limit, and forwarded unchanged.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: TUNNEL_BODY_LIMIT }, (_request, body, done) => done(null, body))

  app.post(
    SENTRY_TUNNEL_PATH,
    {
      bodyLimit: TUNNEL_BODY_LIMIT,
      config: { rateLimit: { max: TUNNEL_RATE_LIMIT, timeWindow: 60_000 } },
      onRequest: async (request) => assertNotCrossSite(request, opts.appOrigin),
    },
    async (request, reply) => {
      const body = request.body
      if (!Buffer.isBuffer(body) || body.length === 0) throw new BffTunnelBadEnvelope()
      // Exactly our DSN: a forged envelope can at most reach our own project, never another.
      if (envelopeDsn(body) !== opts.sentry.dsn) throw new BffTunnelForeignDsn()
      let answer: Awaited<ReturnType<typeof undiciRequest>>
      try {
        answer = await undiciRequest(opts.sentry.envelopeUrl, {
          method: 'POST',
          // Nothing of the browser's request goes on (no cookie, no IP): only the envelope.
          headers: { 'content-type': 'application/x-sentry-envelope' },
          body,
          headersTimeout: opts.timeouts.headersTimeoutMs,
          bodyTimeout: opts.timeouts.bodyTimeoutMs,
        })
        await answer.body.dump()
      } catch (err) {
        // Answered here, not thrown: a report that the tracker is unreachable would go to the tracker.
        request.log.warn({ err }, 'the error tracker could not be reached')
        const error = new BffTunnelUnavailable()
        return reply.code(502).send(errorBody(502, error.code, error.message, request.id))
      }
      for (const name of RELAYED_HEADERS) {
        const value = answer.headers[name]
        if (typeof value === 'string') reply.header(name, value)
      }
      reply.header('cache-control', 'no-store')
      if (answer.statusCode >= 500) {
        request.log.warn({ upstreamStatus: answer.statusCode }, 'the error tracker refused an envelope')
        const error = new BffTunnelUnavailable()
        return reply.code(502).send(errorBody(502, error.code, error.message, request.id))
      }
      // 200 for what the tracker took; its 4xx (rate limits, an envelope it refused) as they are.
      return reply.code(answer.statusCode).send({})
    },
  )

  app.post('/sentry-test/error', guardedWrite(opts.appOrigin, opts.rateLimitMax), async () => {
    throw new Error('Sentry test: an error raised on purpose in the BFF (POST /sentry-test/error)')
  })
}

export default fp(errorReportingRoutes, { name: 'error-reporting-routes', encapsulate: true, dependencies: ['rate-limit'] })
