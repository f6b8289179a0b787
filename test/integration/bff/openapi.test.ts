import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { OPERATION_METHODS, type OpenApiDocument } from '../../../server/http/openapi.ts'
import { buildStack, within } from '../../helpers.ts'

// GET /api/openapi.json (decision 023): the document must describe exactly the public
// routes the services really have — nothing undocumented, nothing documented that is not there —
// and every /auth operation in it must be one supertokens-node answers.

/** BFF routes that only pass requests on to the API (whose document describes them). */
const BFF_PROXY_PATHS = new Set(['/api/files/uploads', '/api/stripe/webhook'])

/**
 * Writes that take no body: the path, the session and the headers say everything. Each must be in
 * the document and name no body, so the list cannot outlive a change.
 */
const WRITES_WITHOUT_BODY = [
  'POST /api/files/{id}/restore',
  'POST /api/operator/feeds/sync',
  'POST /api/operator/proposed-changes/{id}/accept',
  'POST /api/operator/proposed-changes/{id}/reject',
  'POST /api/operator/users/{id}/enable',
  'POST /api/operator/users/{id}/sessions/end',
  'POST /api/operator/users/{id}/verification/resend',
  'POST /api/user/email/resend',
  'POST /api/user/program/{id}',
  'POST /api/user/purchases/{programId}/cancel',
  'PUT /auth/mfa/info',
  'POST /auth/session/refresh',
  'POST /auth/signout',
  'POST /auth/user/email/verify/token',
]

interface Answer {
  content?: Record<string, { schema?: Record<string, unknown> }>
  headers?: Record<string, unknown>
}

/** A schema that says something about the body, not only that there is one. */
function describes(schema: Record<string, unknown> | undefined): boolean {
  return schema !== undefined && Object.keys(schema).some((key) => key !== 'description')
}

/**
 * The routes a router really has, read from Fastify's own listing (printRoutes, one tree per
 * service): "METHOD /path/{param}" for each.
 */
function registeredRoutes(app: FastifyInstance): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = []
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!match) continue
    const depth = match[1]!.length / 4
    stack.length = depth
    stack.push(match[2]!)
    const path = stack.join('').replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, path })
  }
  return routes
}

/** The public (method, path) pairs: under /api, no catch-all, and no HEAD Fastify added beside a GET. */
function publicPairs(routes: Array<{ method: string; path: string }>, exclude: (path: string) => boolean): string[] {
  const gets = new Set(routes.filter((route) => route.method === 'GET').map((route) => route.path))
  return routes
    .filter((route) => route.path.startsWith('/api/') && !route.path.includes('*') && !exclude(route.path))
    .filter((route) => !(route.method === 'HEAD' && gets.has(route.path)))
    .map((route) => `${route.method} ${route.path}`)
}

function documentedPairs(document: OpenApiDocument, prefix: string): string[] {
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith(prefix))
    .flatMap(([path, item]) => OPERATION_METHODS.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path}`))
}

t.test('GET /api/openapi.json describes exactly the public routes of the API and the BFF, and the /auth calls', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const response = await stack.bff.inject('/api/openapi.json')
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/json/)
  t.equal(response.headers['cache-control'], 'public, max-age=3600')
  const document = response.json<OpenApiDocument>()
  t.equal(document.openapi, '3.1.0')
  t.equal(document.info.version, '1.0.716')
  t.same(document.servers, [{ url: 'http://localhost:3000' }])

  t.test('every public route is documented, and every documented route exists', async (t) => {
    const apiRoutes = publicPairs(registeredRoutes(stack.api), (path) => path === '/api/sentry-test/error')
    const bffRoutes = publicPairs(registeredRoutes(stack.bff), (path) => BFF_PROXY_PATHS.has(path))
    // The listing is real: it holds routes of both services, one answered by each.
    t.ok(apiRoutes.includes('GET /api/programs/{id}'))
    t.ok(bffRoutes.includes('DELETE /api/user/sessions/{handle}'))
    const expected = [...new Set([...apiRoutes, ...bffRoutes])].sort()
    const documented = documentedPairs(document, '/api/').sort()
    t.same(documented.filter((pair) => !expected.includes(pair)), [], 'nothing documented that is not a route')
    t.same(expected.filter((pair) => !documented.includes(pair)), [], 'no public route left undocumented')
    t.ok(documented.includes('GET /api/openapi.json'), 'the document describes itself')
    // Not public: the services' probes, the operator endpoints, the dev mailbox, the pages.
    for (const hidden of ['/healthz', '/readyz', '/internal/openapi.json', '/internal/maintenance', '/dev/mail', '/api/files/uploads/*']) t.notOk(document.paths[hidden], `${hidden} is not documented`)
  })

  t.test('every operation has a unique operationId and answers; errors have the common shape', async (t) => {
    const ids = new Set<string>()
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of OPERATION_METHODS) {
        const operation = item[method]
        if (!operation) continue
        const name = `${method.toUpperCase()} ${path}`
        t.ok(operation.operationId, `${name} has an operationId`)
        t.notOk(ids.has(operation.operationId!), `${name}: operationId ${operation.operationId} is unique`)
        ids.add(operation.operationId!)
        t.ok(Object.keys(operation.responses).length > 0, `${name} has responses`)
        t.ok(Object.keys(operation.responses).some((status) => /^[23]/.test(status)), `${name} has a success answer`)
        // Every path parameter of the template is described, and required (OpenAPI 3.1 §4.8.12.1).
        for (const param of path.match(/\{[^}]+\}/g) ?? []) {
          const described = (operation.parameters as Array<{ in: string; name: string; required?: boolean }> | undefined)?.find((p) => p.in === 'path' && `{${p.name}}` === param)
          t.ok(described?.required, `${name} describes ${param}`)
        }
        if (path.startsWith('/api/')) {
          const error = (operation.responses['4XX'] ?? operation.responses['400']) as { content?: Record<string, { schema: { required?: string[] } }> } | undefined
          t.same(error?.content?.['application/json']?.schema.required, ['statusCode', 'code', 'error', 'message', 'requestId'], `${name} names its error shape`)
        }
      }
    }
    t.ok(ids.size > 60, `${ids.size} operations`)
  })

  t.test('every success says what it answers, and every write what it takes, so a typed client can be generated', async (t) => {
    let bodies = 0
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of OPERATION_METHODS) {
        const operation = item[method]
        if (!operation) continue
        const name = `${method.toUpperCase()} ${path}`
        for (const [status, answer] of Object.entries(operation.responses as Record<string, Answer>)) {
          if (!/^2/.test(status)) continue
          // Answers that never carry a body; a HEAD's is the GET's, which is the one described.
          if (status === '204' || method === 'head' || method === 'options') {
            t.notOk(answer.content, `${name} ${status} names no body`)
            continue
          }
          const content = Object.entries(answer.content ?? {})
          if (content.length === 0) {
            // No body: what it gives instead is in its headers (a tus upload's Location).
            t.ok(Object.keys(answer.headers ?? {}).length > 0, `${name} ${status} has a body or names the headers it answers with`)
            continue
          }
          for (const [type, media] of content) {
            t.ok(describes(media.schema), `${name} ${status} describes its ${type} body`)
            bodies++
          }
        }
        if (!['post', 'put', 'patch'].includes(method)) continue
        const requestBody = operation.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> } | undefined
        if (WRITES_WITHOUT_BODY.includes(name)) {
          t.notOk(requestBody, `${name} takes no body`)
          continue
        }
        const taken = Object.entries(requestBody?.content ?? {})
        t.ok(taken.length > 0, `${name} names the body it takes`)
        for (const [type, media] of taken) t.ok(describes(media.schema), `${name} describes the ${type} body it takes`)
      }
    }
    for (const pair of WRITES_WITHOUT_BODY) {
      const [method, path] = pair.split(' ') as [string, string]
      t.ok(document.paths[path]?.[method.toLowerCase() as 'post'], `${pair} is documented`)
    }
    t.ok(bodies > 60, `${bodies} success bodies described`)
    // Downloads name their media types.
    t.ok(document.paths['/api/files/archive']?.get?.responses['200'], 'the archive answers')
    t.same(Object.keys((document.paths['/api/files/archive']!.get!.responses['200'] as Answer).content ?? {}), ['application/zip'])
    t.same(Object.keys((document.paths['/api/avatars/{file}']!.get!.responses['200'] as Answer).content ?? {}), ['image/webp'])
    // Raw bodies name theirs; a tus creation may come without bytes (creation-with-upload is optional).
    const create = document.paths['/api/files/uploads']!.post!.requestBody as { required: boolean; content: Record<string, unknown> }
    t.equal(create.required, false)
    t.same(Object.keys(create.content), ['application/offset+octet-stream'])
    t.equal((document.paths['/api/files/uploads/{id}']!.patch!.requestBody as { required: boolean }).required, true)
  })

  t.test('every schema in the document is valid JSON Schema 2020-12 (the OpenAPI 3.1 dialect)', async (t) => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false })
    ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi')
    const schemas: Array<[string, unknown]> = []
    const collect = (where: string, value: unknown): void => {
      if (!value || typeof value !== 'object') return
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'schema' && inner && typeof inner === 'object') schemas.push([where, inner])
        else collect(`${where}/${key}`, inner)
      }
    }
    collect('#/paths', document.paths)
    t.ok(schemas.length > 100)
    for (const [where, schema] of schemas) {
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as object
      t.doesNotThrow(() => ajv.compile(rewritten), where)
    }
  })

  t.test('supertokens-node answers every documented /auth operation', async (t) => {
    const operations = documentedPairs(document, '/auth/')
    t.ok(operations.length >= 15, `${operations.length} /auth operations`)
    const headers = { rid: 'anti-csrf', origin: 'http://localhost:3000', 'content-type': 'application/json' }
    for (const pair of operations) {
      const [method, path] = pair.split(' ') as ['GET' | 'POST' | 'PUT', string]
      const answer = await stack.bff.inject({ method, url: path, headers, ...(method === 'GET' ? {} : { payload: '{}' }) })
      t.not(answer.statusCode, 404, `${pair} is answered (${answer.statusCode})`)
    }
    // And the check can fail: a path the SDK does not know is a 404.
    t.equal((await stack.bff.inject({ method: 'POST', url: '/auth/no-such-call', headers, payload: '{}' })).statusCode, 404)
  })

  t.test('the document is made once: it is still served when the API has gone', async (t) => {
    await stack.api.close()
    const again = await within(stack.bff.inject('/api/openapi.json'))
    t.equal(again.statusCode, 200)
    t.equal(again.body, response.body)
  })
})

t.test('an API that cannot give its document is a 50x with the common error shape; the next request tries again', async (t) => {
  // A stand-in for the API: it fails its first answer, then passes on to the real one.
  let target = ''
  let asked = 0
  const standIn = http.createServer((request, response) => {
    asked++
    if (asked === 1) return void response.writeHead(500, { 'content-type': 'application/json' }).end('{}')
    fetch(`${target}${request.url}`).then(
      async (upstream) => response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text()),
      () => response.writeHead(502).end(),
    )
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => standIn.close(() => resolve())))
  const stack = await buildStack(t, { upstreamApiUrl: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}` })
  target = stack.apiUrl
  const failed = await within(stack.bff.inject('/api/openapi.json'))
  t.equal(failed.statusCode, 502)
  t.match(failed.json(), { statusCode: 502, code: 'BFF_UPSTREAM_BAD_RESPONSE', error: 'Bad Gateway', message: String, requestId: String })
  const next = await within(stack.bff.inject('/api/openapi.json'))
  t.equal(next.statusCode, 200, 'the failure was not kept')
  t.equal(next.json<OpenApiDocument>().openapi, '3.1.0')
})
