import type { FastifyServerOptions } from 'fastify'
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
