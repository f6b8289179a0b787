import type { SwaggerOptions } from '@fastify/swagger'
import { Type } from 'typebox'

// The OpenAPI 3.1 document of the public HTTP API (issue 14, decision 023). Each service describes
// its own routes with @fastify/swagger from their schemas; the BFF merges them into the one
// document it serves at GET /api/openapi.json. Only routes a caller of the BFF can reach are in it.

export const OPENAPI_VERSION = '3.1.0'

/** The methods an OpenAPI path item names as fields (3.1 §4.8.9). */
export const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const
export type OperationMethod = (typeof OPERATION_METHODS)[number]

export interface OpenApiOperation {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  parameters?: unknown[]
  requestBody?: unknown
  responses: Record<string, unknown>
  [key: string]: unknown
}

export type OpenApiPathItem = Partial<Record<OperationMethod, OpenApiOperation>> & { [key: string]: unknown }

export interface OpenApiDocument {
  openapi: string
  info: { title: string; version: string; description?: string }
  servers?: Array<{ url: string; description?: string }>
  paths: Record<string, OpenApiPathItem>
  components?: { schemas?: Record<string, unknown>; [key: string]: unknown }
  tags?: Array<{ name: string; description?: string }>
}

/** The body of every error answer (server/http/errors.ts errorBody), as a JSON schema. */
export const errorBodySchema = {
  type: 'object',
  description: 'An error: the HTTP status again, a stable code from the API reference, and a message a person can read.',
  required: ['statusCode', 'code', 'error', 'message', 'requestId'],
  properties: {
    statusCode: { type: 'integer' },
    code: { type: 'string', description: 'Stable, SCREAMING_SNAKE (docs/API.md lists them).' },
    error: { type: 'string', description: 'The status text, e.g. "Not Found".' },
    message: { type: 'string' },
    requestId: { type: 'string', description: 'Also in the x-request-id header; quote it when reporting a problem.' },
  },
} as const

/** A route's 204 answer, for its `schema.response`: no body to serialise, and the document says so. */
export const NoContent = Type.Unsafe<void>({ type: 'null', description: 'Done: no body.' })

function hasSuccess(response: Record<string, unknown>): boolean {
  return Object.keys(response).some((status) => /^[23]/.test(status))
}

/**
 * @fastify/swagger's options for one service: only the routes `isPublic` accepts are described,
 * and every described operation also names the error answers (4XX, 5XX). These additions are the
 * document's only: the routes' own schemas, which validate and serialise, are left as they are.
 */
export function openApiOptions(options: { title: string; version: string; description: string; isPublic: (url: string) => boolean }): SwaggerOptions {
  return {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: { title: options.title, version: options.version, description: options.description },
      servers: [{ url: '/' }],
    },
    transform: ({ schema, url }) => {
      if (!options.isPublic(url)) return { schema: { ...schema, hide: true }, url }
      const response: Record<string, unknown> = { ...(schema?.response as Record<string, unknown> | undefined) }
      // A route without a declared success still has one; its body is then not described.
      if (!hasSuccess(response)) response['200'] = { description: 'Success (the body is not described).' }
      response['4xx'] ??= { ...errorBodySchema, description: 'A request the service refused.' }
      response['5xx'] ??= { ...errorBodySchema, description: 'The service could not answer right now.' }
      return { schema: { ...schema, response } as typeof schema, url }
    },
    // Our own document type is looser than the plugin's; the object is the plugin's own, completed.
    transformObject: (documentObject) => withOperationIds((documentObject as unknown as { openapiObject: OpenApiDocument }).openapiObject) as never,
  }
}

function words(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')
}

/**
 * A stable operationId from the method and path, for clients generated from the document:
 * `GET /api/user/program/{id}` is `getUserProgramById`. Unique as long as (method, path) is.
 */
export function operationIdOf(method: string, path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== 'api')
  const named = segments.map((segment) => (/^\{.+\}$/.test(segment) ? `By${words(segment)}` : words(segment))).join('')
  return `${method.toLowerCase()}${named || 'Root'}`
}

/**
 * The document with an operationId on every operation (a route's own, else operationIdOf). A route
 * with several methods shares one operation object between them: each gets its own copy.
 */
export function withOperationIds(document: OpenApiDocument): OpenApiDocument {
  const paths: Record<string, OpenApiPathItem> = {}
  for (const [path, item] of Object.entries(document.paths)) {
    const copy: OpenApiPathItem = { ...item }
    for (const method of OPERATION_METHODS) {
      const operation = item[method]
      if (operation) copy[method] = { ...operation, operationId: operation.operationId ?? operationIdOf(method, path) }
    }
    paths[path] = copy
  }
  return { ...document, paths }
}
