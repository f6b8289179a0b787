import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorBody } from './errors.ts'

// A 503 written in Node's own 'request' listener, before Fastify routes, parses or runs a hook:
// what the load shedding (load-shedding.ts) and the shutdown (shutdown.ts) answer. It has the
// service's error shape, its request id and headers, so a caller cannot tell it from Fastify's own.

export interface Refusal {
  /** The error code, with the service's prefix (BFF_OVERLOADED, API_SHUTTING_DOWN …). */
  code: string
  message: string
  retryAfterSeconds: number
  requestId: string
  /** Headers every answer of the service carries (the BFF's security headers). */
  headers?: Record<string, string>
  /**
   * The HTML a person's browser gets instead of the JSON body when it asks for a page (GET or
   * HEAD accepting text/html); undefined: JSON.
   */
  page?: (request: IncomingMessage) => string
  /** The connection ends after this answer (`Connection: close`). */
  close?: boolean
}

export function asksForPage(request: IncomingMessage): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && /\btext\/html\b/.test(request.headers.accept ?? '')
}

export function writeRefusal(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  const asPage = refusal.page !== undefined && asksForPage(request)
  const body = asPage ? refusal.page!(request) : JSON.stringify(errorBody(503, refusal.code, refusal.message, refusal.requestId))
  response.writeHead(503, {
    ...refusal.headers,
    'content-type': asPage ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'retry-after': String(refusal.retryAfterSeconds),
    'x-request-id': refusal.requestId,
    ...(refusal.close ? { connection: 'close' } : {}),
  })
  response.end(body)
}
