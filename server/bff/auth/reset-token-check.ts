import type { FastifyInstance } from 'fastify'
import { request as undiciRequest } from 'undici'
import { databaseUnreachable } from '../../db/reachability.ts'
import { Failover, splitCoreUrls } from '../../http/core-urls.ts'
import { BffAuthCoreUnavailable } from '../errors.ts'

// GET /auth/user/password/reset/token/check?token= (decision 025): whether a
// password reset link can still be used, asked without using it, so /reset-password says at once
// that a link was used or has expired instead of failing on submit. A GET, because it changes
// nothing; the token is as secret as in the page's own address, and the logs redact both. The
// SDK has no such call: the BFF asks the auth core's own endpoint beside consume.

const ANSWER = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['OK', 'RESET_PASSWORD_INVALID_TOKEN_ERROR'] } },
} as const

/** Longer than any token the core makes: not one. */
const MAX_TOKEN_LENGTH = 512

export function resetTokenCheckRoute(scope: FastifyInstance, options: { coreUrl: string; coreApiKey: string | undefined }): void {
  const cores = new Failover(splitCoreUrls(options.coreUrl))
  scope.get<{ Querystring: { token?: string } }>('/auth/user/password/reset/token/check', { schema: { response: { 200: ANSWER } } }, async (request) => {
    const token = typeof request.query.token === 'string' ? request.query.token : ''
    if (token === '' || token.length > MAX_TOKEN_LENGTH) return { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' }
    try {
      return await cores.attempt(async (base) => {
        const response = await undiciRequest(`${base}/recipe/user/password/reset/token/check`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'cdi-version': '5.4',
            'x-request-id': request.id,
            ...(options.coreApiKey ? { 'api-key': options.coreApiKey } : {}),
          },
          body: JSON.stringify({ token }),
          headersTimeout: 5_000,
          bodyTimeout: 5_000,
        })
        if (response.statusCode !== 200) {
          await response.body.dump()
          throw Object.assign(new Error(`the auth core answered ${response.statusCode}`), { coreStatus: response.statusCode })
        }
        const body = (await response.body.json()) as { status?: unknown }
        if (body.status !== 'OK' && body.status !== 'RESET_PASSWORD_INVALID_TOKEN_ERROR') throw new Error('the auth core answered something else than a token check')
        return { status: body.status }
      })
    } catch (err) {
      // The core out of reach, or answering 503 (its database), is an outage the session
      // revocation list's reader has already said, once; anything else is said here.
      if ((err as { coreStatus?: unknown }).coreStatus !== 503 && databaseUnreachable(err) === null) request.log.warn({ err }, 'the reset link could not be checked')
      throw new BffAuthCoreUnavailable()
    }
  })
}
