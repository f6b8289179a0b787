import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { OpenApiDocument } from '../../http/openapi.ts'
import { authPaths } from '../auth/openapi-auth.ts'
import { BffUpstreamBadResponse } from '../errors.ts'
import { mergeOpenApi } from '../openapi-document.ts'
import { upstreamStatusError } from '../upstream-client.ts'
import { STRIPE_WEBHOOK_PATH } from './api-proxy.ts'

/** GET /api/openapi.json: public, and the same until the next deploy. */
export const OPENAPI_CACHE_CONTROL = 'public, max-age=3600'

/**
 * GET /api/openapi.json (decision 023): one OpenAPI 3.1 document of the public API,
 * merged from the product API's (read once from its /internal/openapi.json), the BFF's own /api
 * routes and the /auth calls. Made at the first request and kept; a failed read is tried again.
 */
async function openApiRoutes(app: FastifyInstance, opts: { version: string; appUrl: string }): Promise<void> {
  let document: Promise<string> | undefined

  async function build(requestId: string): Promise<string> {
    const response = await app.upstreamApi.request({ method: 'GET', path: '/internal/openapi.json', headers: { accept: 'application/json', 'x-request-id': requestId } })
    if (response.status !== 200) throw response.status >= 500 ? upstreamStatusError(response.status) : new BffUpstreamBadResponse()
    let api: OpenApiDocument
    try {
      api = JSON.parse(response.body.toString('utf8')) as OpenApiDocument
    } catch (cause) {
      const error = new BffUpstreamBadResponse()
      error.cause = cause
      throw error
    }
    const merged = mergeOpenApi({ api, bff: app.swagger() as OpenApiDocument, auth: authPaths(), version: opts.version, appUrl: opts.appUrl, withoutRid: [STRIPE_WEBHOOK_PATH] })
    return JSON.stringify(merged)
  }

  app.get(
    '/api/openapi.json',
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This document: the public HTTP API as OpenAPI 3.1.',
        // The answer is sent as the JSON text it already is; this schema only describes it.
        response: { 200: { type: 'object', description: 'An OpenAPI 3.1 document.', additionalProperties: true } },
      },
    },
    async (request, reply) => {
      document ??= build(request.id).catch((error: unknown) => {
        document = undefined
        throw error
      })
      const body = await document
      reply.header('cache-control', OPENAPI_CACHE_CONTROL)
      return reply.type('application/json; charset=utf-8').send(body)
    },
  )
}

export default fp(openApiRoutes, { name: 'openapi-routes', encapsulate: true, dependencies: ['@fastify/swagger', 'upstream-api'] })
