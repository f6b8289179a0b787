import type { SwaggerOptions } from '@fastify/swagger'
import { Type } from 'typebox'
import { ErrorBody } from '../../shared/web/answers.ts'

// The OpenAPI 3.1 document of the public HTTP API (decision 023). Each service describes
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


/** A route's 204 answer, for its `schema.response`: no body to serialise, and the document says so. */
export const NoContent = Type.Unsafe<void>({ type: 'null', description: 'Done: no body.' })

/**
 * What a route takes or answers that its own schemas cannot say without changing what it does: a
 * body it reads as raw bytes, or one it checks itself with its own error codes (a `schema.body`
 * would validate it first); an answer that is bytes (a download) or headers only. Read by the
 * document only (the transform below); Fastify neither validates nor serialises with it.
 */
export interface OpenApiDocs {
  /** The request body by media type, e.g. `{ 'application/json': schema }`. */
  body?: Record<string, object>
  /** Whether a body must be sent (default true). */
  bodyRequired?: boolean
  /** Request headers the route reads itself, as a JSON schema of an object (lower-case names). */
  headers?: object
  /** Answers by status: a description, and the body by media type and/or the headers that carry the answer. */
  response?: Record<string, { description: string; content?: Record<string, object>; headers?: Record<string, object> }>
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Documentation-only additions to the route's OpenAPI operation (OpenApiDocs). */
    openapi?: OpenApiDocs
  }
}

/** Route options (e.g. guardedWrite's) with the route's OpenApiDocs added to their config. */
export function documented<T extends { config?: object }>(options: T, openapi: OpenApiDocs): T & { config: { openapi: OpenApiDocs } } {
  return { ...options, config: { ...options.config, openapi } }
}

/** A body of bytes, for OpenApiDocs: what a typed client sends or receives as a Blob. */
export function binaryBody(description: string): object {
  return { type: 'string', format: 'binary', description }
}

/** A mark the transform leaves on an operation whose body may be left out. */
const BODY_OPTIONAL = 'x-body-optional'

/** OpenApiDocs' media-type map in the shape @fastify/swagger reads (`content: { type: { schema } }`). */
function asContent(byType: Record<string, object>): Record<string, { schema: object }> {
  return Object.fromEntries(Object.entries(byType).map(([type, schema]) => [type, { schema }]))
}

/** The route's schema with its documentation-only additions (the document's copy only). */
function withDocs(schema: Record<string, unknown>, docs: OpenApiDocs | undefined): Record<string, unknown> {
  if (!docs) return schema
  const documented = { ...schema }
  if (docs.headers) documented.headers = docs.headers
  if (docs.body) {
    documented.body = { content: asContent(docs.body) }
    // The plugin marks every body required; this mark, copied to the operation, is undone in withOperationIds.
    if (docs.bodyRequired === false) documented[BODY_OPTIONAL] = true
  }
  if (docs.response) {
    const response: Record<string, unknown> = { ...(schema.response as Record<string, unknown> | undefined) }
    for (const [status, answer] of Object.entries(docs.response)) {
      // Without a body the answer is a JSON-schema null to the plugin, which then names no content.
      response[status] = answer.content ? { description: answer.description, content: asContent(answer.content), ...(answer.headers ? { headers: answer.headers } : {}) } : { type: 'null', description: answer.description, ...(answer.headers ? { headers: answer.headers } : {}) }
    }
    documented.response = response
  }
  return documented
}

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
    transform: ({ schema: own, url, route }) => {
      if (!options.isPublic(url)) return { schema: { ...own, hide: true }, url }
      const schema = withDocs({ ...own }, route.config?.openapi)
      const response: Record<string, unknown> = { ...(schema.response as Record<string, unknown> | undefined) }
      // A route without a declared success still has one; its body is then not described.
      if (!hasSuccess(response)) response['200'] = { description: 'Success (the body is not described).' }
      response['4xx'] ??= { ...ErrorBody, description: 'A request the service refused.' }
      response['5xx'] ??= { ...ErrorBody, description: 'The service could not answer right now.' }
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
 * The document with an operationId on every operation (a route's own, else operationIdOf), and the
 * bodies OpenApiDocs calls optional marked so. A route with several methods shares one operation
 * object between them: each gets its own copy.
 */
export function withOperationIds(document: OpenApiDocument): OpenApiDocument {
  const paths: Record<string, OpenApiPathItem> = {}
  for (const [path, item] of Object.entries(document.paths)) {
    const copy: OpenApiPathItem = { ...item }
    for (const method of OPERATION_METHODS) {
      const operation = item[method]
      if (!operation) continue
      const { [BODY_OPTIONAL]: optional, ...rest } = operation
      copy[method] = { ...rest, operationId: operation.operationId ?? operationIdOf(method, path) }
      if (optional && rest.requestBody) copy[method].requestBody = { ...rest.requestBody, required: false }
    }
    paths[path] = copy
  }
  return { ...document, paths }
}
