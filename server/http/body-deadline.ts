import type { IncomingHttpHeaders } from 'node:http'
import fp from 'fastify-plugin'
import { errorBody } from './errors.ts'
import { serviceCode, type Service } from './service-codes.ts'

// How long a request's body may take to arrive (SECURITY.md "Load, faults and shutdown"). Node's
// `requestTimeout` would do it, but for every request alike: a resumable upload's PATCH
// may rightly take many minutes on a slow line, so the servers turn that off and use this
// instead — the same deadline for every route but those whose config says `longBody`. Those still
// have the idle timeout (a body that stops flowing is cut) and Node's headers timeout (a client
// that never finishes its headers is disconnected), and the tus protocol keeps what arrived.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The request's body may take longer than the body deadline (a tus PATCH of a big file). */
    longBody?: boolean
  }
}

/** The deadline of an ordinary request's body, from its headers (what `requestTimeout` was). */
export const BODY_DEADLINE_MS = 30_000

/**
 * Whether a request has a body to wait for: only a Content-Length above 0 or a Transfer-Encoding
 * says so (RFC 9112 §6.3). Most requests (every page, every GET) have none, and get no timer.
 */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length']
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/**
 * Answers 408 `<prefix>_REQUEST_TIMEOUT` and closes the connection when a request's body has not
 * fully arrived `ms` (BODY_DEADLINE_MS unless given) after its headers, unless its route says `longBody`.
 */
export const bodyDeadline = fp<{ prefix: Service; ms?: number }>(async (app, { prefix, ms = BODY_DEADLINE_MS }) => {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.complete || !hasBody(request.raw.headers) || request.routeOptions.config?.longBody) return done()
    const timer = setTimeout(() => {
      if (request.raw.complete || reply.raw.writableEnded) return
      request.log.info({ event: 'body-deadline', ms }, 'a request body did not arrive in time')
      const socket = request.raw.socket
      if (reply.raw.headersSent) {
        socket.destroy()
        return
      }
      const body = JSON.stringify(errorBody(408, serviceCode(prefix, 'REQUEST_TIMEOUT'), 'The request took too long to arrive. Please try again.', request.id))
      reply.raw.writeHead(408, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close', 'x-request-id': request.id })
      reply.raw.end(body, () => socket.destroy())
    }, ms)
    timer.unref()
    reply.raw.once('close', () => clearTimeout(timer))
    done()
  })
}, { name: 'body-deadline', fastify: '5.x' })
