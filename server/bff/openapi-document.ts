import { OPENAPI_VERSION, OPERATION_METHODS, type OpenApiDocument, type OpenApiOperation, type OpenApiPathItem } from '../http/openapi.ts'

// The one OpenAPI document of the public HTTP API (decision 023): what the BFF proxies to the
// product API, what it answers itself under /api, and the /auth calls of the browser app.

const WRITES = new Set(['put', 'post', 'patch', 'delete'])

/** The anti-forgery header every browser-side write carries (DESIGN.md §4.4, server/bff/csrf.ts). */
const RID_HEADER = {
  name: 'rid',
  in: 'header',
  required: true,
  description: 'Any non-empty value (the app sends "anti-csrf"); a write without it is refused with BFF_CSRF_REJECTED.',
  schema: { type: 'string' },
}

export interface MergeInput {
  /** The product API's document (its /internal/openapi.json). */
  api: OpenApiDocument
  /** The BFF's own /api routes. */
  bff: OpenApiDocument
  /** The /auth operations (auth/openapi-auth.ts). */
  auth: Record<string, OpenApiPathItem>
  version: string
  appUrl: string
  /** Writes that are not the browser's (Stripe's webhook): no anti-forgery header. */
  withoutRid: string[]
}

function tagOf(path: string): string {
  if (path.startsWith('/auth/')) return 'auth'
  return path.split('/')[2]?.replace(/^\{.*\}$/, '').replace(/\.json$/, '') || 'api'
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

export function mergeOpenApi(input: MergeInput): OpenApiDocument {
  const paths: Record<string, OpenApiPathItem> = {}
  // The API's paths first; the BFF's own operations win where both answer a path and method.
  for (const source of [input.api.paths, input.bff.paths]) {
    for (const [path, item] of Object.entries(source)) paths[path] = { ...paths[path], ...item }
  }
  for (const [path, item] of Object.entries(paths)) {
    for (const method of OPERATION_METHODS) {
      const operation = item[method]
      if (!operation) continue
      const copy: OpenApiOperation = { ...operation, tags: operation.tags ?? [tagOf(path)] }
      if (WRITES.has(method) && !input.withoutRid.includes(path)) copy.parameters = [...(operation.parameters ?? []), RID_HEADER]
      item[method] = copy
    }
  }
  for (const [path, item] of Object.entries(input.auth)) paths[path] = item

  const schemas: Record<string, unknown> = {}
  for (const source of [input.api, input.bff]) {
    for (const [name, schema] of Object.entries(source.components?.schemas ?? {})) {
      if (name in schemas && !sameJson(schemas[name], schema)) throw new Error(`OpenAPI: the API and the BFF both name a different schema "${name}"`)
      schemas[name] = schema
    }
  }

  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)))
  const tags = [...new Set(Object.entries(sortedPaths).flatMap(([, item]) => OPERATION_METHODS.flatMap((method) => item[method]?.tags ?? [])))].sort()
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Softshelf HTTP API',
      version: input.version,
      description:
        'The public HTTP API of Softshelf, as the browser app uses it: /api (the product API behind the BFF, and the BFF\'s own routes) and /auth (supertokens-node). ' +
        'Sessions are httpOnly cookies set by /auth; writes need the rid header. Errors are {statusCode, code, error, message, requestId}; docs/API.md lists the codes.',
    },
    servers: [{ url: input.appUrl }],
    tags: tags.map((name) => ({ name })),
    paths: sortedPaths,
    components: {
      schemas,
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'sAccessToken', description: 'The session cookie /auth sets at sign-in (httpOnly).' },
      },
    },
  }
}
