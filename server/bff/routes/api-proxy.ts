import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { BffBadPath } from '../errors.ts'
import { upstreamStatusError, type UpstreamResponse } from '../upstream-client.ts'
import { assertSameOriginWrite } from '../csrf.ts'

/** Request headers the API may see. Everything else — the browser's Cookie above all — stays here. */
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'if-none-match', 'if-modified-since', 'user-agent'] as const
/** Response headers the browser may see. The API's Set-Cookie never reaches it. */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'content-disposition', 'cache-control', 'etag', 'last-modified', 'content-language', 'retry-after', 'vary'] as const

const BODY_LIMIT = 1024 * 1024

/**
 * Returns the path to send upstream, or null when the path could escape the /api prefix once an
 * upstream decodes it: dot segments (also percent-encoded), encoded slashes, backslashes.
 */
export function safeApiPath(rawUrl: string): string | null {
  const queryIndex = rawUrl.indexOf('?')
  const pathPart = queryIndex === -1 ? rawUrl : rawUrl.slice(0, queryIndex)
  if (!pathPart.startsWith('/api/') || pathPart.includes('//') || pathPart.includes('\\')) return null
  for (const segment of pathPart.split('/')) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      return null
    }
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\') || decoded.includes('\0')) return null
  }
  return rawUrl
}

export function upstreamHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  // The API authorises by the session's access token alone; the cookie itself stays here.
  const accessToken = request.cookies?.sAccessToken
  if (accessToken) headers.authorization = `Bearer ${accessToken}`
  headers['x-request-id'] = request.id
  headers['x-forwarded-for'] = request.ip
  headers['x-forwarded-proto'] = request.protocol
  return headers
}

async function proxy(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const path = safeApiPath(request.raw.url ?? '')
  if (!path) throw new BffBadPath()
  const body = request.body instanceof Buffer ? request.body : undefined
  const response = await app.upstreamApi.request({ method: request.method, path, headers: upstreamHeaders(request), body })
  return relayUpstream(request, reply, response)
}

/** Answers with the product API's answer: its status, body and the headers a browser may see; a 5xx as the BFF's own error. */
export function relayUpstream(request: FastifyRequest, reply: FastifyReply, response: UpstreamResponse): FastifyReply {
  if (response.status >= 500) {
    request.log.warn({ upstreamStatus: response.status }, 'upstream API answered with a server error')
    const error = upstreamStatusError(response.status)
    const retryAfter = Number(response.headers['retry-after'])
    if (Number.isFinite(retryAfter) && retryAfter > 0) error.retryAfter = retryAfter
    throw error
  }
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = response.headers[name]
    if (value !== undefined) reply.header(name, value)
  }
  reply.code(response.status)
  if (response.status === 204 || response.status === 304 || request.method === 'HEAD') return reply.send()
  return reply.send(response.body)
}

/** /api/* → the product API, with the anti-forgery check on every write. */
export default async function apiProxyRoutes(app: FastifyInstance, opts: { appOrigin: string }): Promise<void> {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body))
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      assertSameOriginWrite(request, opts.appOrigin)
      done()
    } catch (error) {
      done(error as Error)
    }
  })
  app.all('/api/*', { bodyLimit: BODY_LIMIT }, (request, reply) => proxy(app, request, reply))
}
