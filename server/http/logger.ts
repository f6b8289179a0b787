import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { redactUrl } from '../../shared/redaction.ts'
import type { Config } from '../config.ts'

// The secret query parameters live in shared/redaction.ts, which error reports use too.
export { redactUrl }

/** Log lines are JSON objects, so user input cannot forge a line; secrets are redacted. */
export function loggerOptions(
  config: Pick<Config, 'logLevel'>,
  service: string,
  stream?: NodeJS.WritableStream,
): FastifyServerOptions['logger'] {
  return {
    ...(stream ? { stream } : {}),
    level: config.logLevel,
    base: { service },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    redact: {
      paths: [
        'req.headers.cookie',
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'res.headers["set-cookie"]',
        'headers.cookie',
        'headers.authorization',
        '*.password',
        '*.newPassword',
        '*.token',
        '*.accessToken',
        '*.refreshToken',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; hostname?: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), host: request.hostname, ip: request.ip }
      },
    },
  }
}

/**
 * What machines ask on a timer: probes (/healthz, /readyz), scrapes (/metrics), the revocation
 * list and the role-change feed every API and BFF instance reads twice a second (decision 009,
 * issue 28), and the version every open
 * tab asks every few seconds to announce a deploy (/api/version), and the claims of the BFF's
 * notification mail worker every few seconds (issue 29). An idle app writes nothing
 * (issue 27: 13,750 request lines in 19 minutes of a quiet app), so their requests are not logged at
 * info; a failure still is (a 5xx is an error line, and the poller says once when it starts failing).
 * The paths are the routes' own: the auth core's tenant prefixes are rewritten before routing.
 */
export const POLLED_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics', '/recipe/session/revoked', '/recipe/user/roles/changed', '/api/version', '/api/catalogue/version', '/internal/notification-mail/claim'])

/** Registers the rule above; call before the routes are added. At a level other than info, the level is left as chosen. */
export function quietPolledRoutes(app: FastifyInstance): void {
  if (app.log.level !== 'info') return
  app.addHook('onRoute', (route) => {
    if (POLLED_ROUTES.has(route.url) && !route.logLevel) route.logLevel = 'warn'
  })
}
