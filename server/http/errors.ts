import createError from '@fastify/error'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { ERROR_EVENT_HEADER } from '../../shared/error-reporting.ts'
import type { ErrorBody } from '../../shared/types.ts'
import { DatabaseTimeoutError } from '../db/guard.ts'
import { isDatabaseUnreachable } from '../db/reachability.ts'
import type { ErrorReporter } from './error-reporting.ts'
import { serviceCode, type Service, type ServiceCodeName } from './service-codes.ts'

export { createError }

/** Fastify's own error codes mapped to messages a person understands. */
const FRIENDLY: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty but its content type says JSON.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is larger than this endpoint accepts.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'This endpoint does not accept that content type.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body.',
  FST_ERR_BAD_URL: 'The request URL is malformed.',
  FST_ERR_MAX_PARAM_LENGTH: 'A part of the request path is longer than this service accepts.',
  FST_ERR_ASYNC_CONSTRAINT: 'The request could not be routed.',
}

/** Stable codes for Fastify's own 4xx errors, in our catalogue's naming. */
const CODE_MAP: Record<string, ServiceCodeName> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_BAD_URL: 'BAD_URL',
  FST_ERR_MAX_PARAM_LENGTH: 'PARAM_TOO_LONG',
  FST_ERR_VALIDATION: 'VALIDATION_FAILED',
}

/**
 * Codes of a family rather than a service: the avatar's (the BFF or the API may refuse an upload),
 * the drive's (FILES_* and the share links' SHARE_*), streaming's and card checkout's
 * (STREAMING_*, CHECKOUT_*), answered by the API, passed through by the BFF.
 */
const SHARED_CODE_PREFIXES = ['AVATAR_', 'FILES_', 'SHARE_', 'STREAMING_', 'CHECKOUT_']

/** Single codes either service answers: a program's image over its limit (the BFF past the largest upload it reads, the API past each route's own). */
const SHARED_CODES = new Set(['API_IMAGE_TOO_LARGE'])

/**
 * Families whose 5xx are deliberate answers a person should read as they are — "streaming is not
 * set up here", "every cluster is full, try again in N s" — rather than a fault hidden behind a
 * generic message: the API sends them with their code, and the BFF relays them instead of its
 * own BFF_UPSTREAM_* error.
 */
const DELIBERATE_5XX_PREFIXES = ['STREAMING_']

/**
 * Answers that say a capability is not set up on this server (card payments without
 * STRIPE_SECRET_KEY, streaming without STREAMING_CLUSTERS): what the operator chose, not a fault — relayed like the families above, and
 * no error line or error report, however often a page asks.
 */
const NOT_CONFIGURED_CODES = new Set(['CHECKOUT_NOT_CONFIGURED', 'STREAMING_NOT_CONFIGURED'])

export function isDeliberateServerError(code: unknown): boolean {
  return typeof code === 'string' && (NOT_CONFIGURED_CODES.has(code) || DELIBERATE_5XX_PREFIXES.some((prefix) => code.startsWith(prefix)))
}

function ownCode(code: string | undefined, prefix: Service): code is string {
  return code !== undefined && (code.startsWith(`${prefix}_`) || SHARED_CODES.has(code) || SHARED_CODE_PREFIXES.some((shared) => code.startsWith(shared)))
}

export function errorBody(statusCode: number, code: string, message: string, requestId: string): ErrorBody {
  return { statusCode, code, error: STATUS_CODES[statusCode] ?? 'Error', message, requestId }
}

export { ERROR_EVENT_HEADER }

export interface RequestBasicsOptions {
  prefix: Service
  /** The service's not-found error. */
  notFound: new (method: string, path: string) => FastifyError
  reporter?: ErrorReporter | undefined
}

/**
 * What every service does for every request: echo the request id in `x-request-id`, answer an
 * unknown route with the service's not-found error, and handle errors (below), reporting the
 * unexpected ones when error reporting is on. The first of a service's plugins: others' hooks
 * answer with the request id it sets.
 */
export const requestBasics = fp<RequestBasicsOptions>(
  async (app, { prefix, notFound, reporter }) => {
    installErrorHandler(app, prefix, reporter)
    app.setNotFoundHandler((request, reply) => {
      const error = new notFound(request.method, request.url.split('?')[0] ?? '/')
      return reply.code(404).send(errorBody(404, error.code, error.message, request.id))
    })
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id)
      done()
    })
  },
  { name: 'request-basics', fastify: '5.x' },
)

export const DATABASE_RETRY_AFTER_SECONDS = 2
const DATABASE_UNAVAILABLE_MESSAGE = 'The service is busy right now. Please try again in a moment.'
const DATABASE_UNREACHABLE_MESSAGE = 'The service is unavailable right now. Please try again in a moment.'

/**
 * Answers that say a dependency cannot be reached right now: the product API, the auth
 * core or a database. Each is a 503 with Retry-After, and each is an answer, not a fault of the
 * request: the outage is logged once by whoever saw it begin (the dependency's outage log,
 * server/http/outage-log.ts, or the service behind, which logged its own), so a request adds no
 * error line and no error report of its own — an outage of 20 s under load was 6,000 of them.
 */
const OUTAGE_CODES = new Set(['BFF_UPSTREAM_UNAVAILABLE', 'BFF_AUTH_CORE_UNAVAILABLE', 'API_AUTH_UNAVAILABLE', 'BFF_NOT_READY', 'API_NOT_READY', 'BFF_MAIL_UNAVAILABLE'])

export function isOutageAnswer(code: unknown): boolean {
  return typeof code === 'string' && OUTAGE_CODES.has(code)
}

/**
 * Fastify's `frameworkErrors` option for a service: a URL that cannot be decoded or a path
 * parameter over `maxParamLength` is refused by the router before any hook runs, so Fastify's own
 * answer had neither our error shape, nor the request id, nor `headers` (the BFF's security
 * headers), and it echoed the raw path. Given at construction, as Fastify requires.
 */
export function frameworkErrorHandler(prefix: Service, headers: Record<string, string> = {}) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.headers(headers)
    reply.header('x-request-id', request.id)
    const known = error.code !== undefined ? CODE_MAP[error.code] : undefined
    if (!known) {
      // Only async route constraints end here otherwise, and we use none: a fault of ours.
      request.log.error({ err: error }, 'request failed before routing')
      void reply.code(500).send(errorBody(500, serviceCode(prefix, 'INTERNAL_ERROR'), 'Something went wrong on our side. Please try again in a moment.', request.id))
      return
    }
    // 414 is Fastify's own status for an over-long parameter, and what it is: a URI too long.
    const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400
    void reply.code(status).send(errorBody(status, serviceCode(prefix, known), FRIENDLY[error.code!] ?? 'The request URL is malformed.', request.id))
  }
}

/** What a request Node's parser refused is answered, by the parser's error code. */
const CLIENT_ERRORS: Record<string, { status: number; code: ServiceCodeName; message: string }> = {
  // Node's headers timeout (server-options.ts): the same words as the body's deadline.
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive. Please try again.' },
  // The request line and headers past Node's 16 KiB: a 70,000-byte path is one.
  HPE_HEADER_OVERFLOW: { status: 431, code: 'HEADERS_TOO_LARGE', message: 'The request address or its headers are longer than this service accepts.' },
}
const MALFORMED = { status: 400, code: 'MALFORMED_REQUEST' as const, message: 'The request is not well-formed HTTP and could not be read.' }

/**
 * Fastify's `clientErrorHandler` option for a service: a request Node's HTTP parser refuses — a
 * control byte in the path, a header line without a colon, `HTTP/9.9`, Content-Length with
 * Transfer-Encoding, a head past 16 KiB, a head not finished in time — never reaches Fastify, and
 * its default answer had neither our shape nor a charset, the request id or `headers` (the BFF's
 * security headers). Answered here in the error shape, written on the socket as Node's own
 * handler does, when the connection still allows it (no answer of an earlier request on it under
 * way); the connection is then closed. A caller's mistake: an info line, never an error line.
 */
export function clientErrorHandler(prefix: Service, headers: Record<string, string> = {}) {
  return function onClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Duplex): void {
    // A reset connection has gone: there is no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const kind = (error.code !== undefined ? CLIENT_ERRORS[error.code] : undefined) ?? MALFORMED
    const requestId = randomUUID()
    this.log.info({ event: 'client-error', parserCode: error.code, requestId, status: kind.status }, 'a request could not be read')
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage
    if (socket.writable && !inFlight?.headersSent) {
      const body = JSON.stringify(errorBody(kind.status, serviceCode(prefix, kind.code), kind.message, requestId))
      const head = {
        ...headers,
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        'cache-control': 'no-store',
        'x-request-id': requestId,
        connection: 'close',
      }
      const lines = Object.entries(head).map(([name, value]) => `${name}: ${value}\r\n`).join('')
      // Written and then the socket destroyed, as Node's and Fastify's own handlers do: the answer
      // is small enough to leave at once, and what the client still sends is not read.
      socket.write(`HTTP/1.1 ${kind.status} ${STATUS_CODES[kind.status]}\r\n${lines}\r\n${body}`)
    }
    socket.destroy()
  }
}

/**
 * The root error handler of a service: a deliberate 4xx passes through with its code and message;
 * anything else is logged with the request id and answered with a generic 5xx that reveals nothing.
 */
export function installErrorHandler(app: FastifyInstance, prefix: Service, reporter?: ErrorReporter): void {
  // Only the unexpected (5xx) is reported: a 4xx is the caller's mistake, answered as such.
  const report = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (!reporter) return
    // The API's own 5xx, relayed by the BFF: the API reported it under the same request id.
    if (error.reportedAs !== undefined) {
      reply.header(ERROR_EVENT_HEADER, error.reportedAs)
      return
    }
    try {
      reply.header(ERROR_EVENT_HEADER, reporter.captureRequestError(error, request))
    } catch (err) {
      request.log.warn({ err }, 'the error could not be reported')
    }
  }
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isDatabaseUnreachable(error)) {
      // The database is down or going: the service's outage log has said so, once.
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
      return reply.code(503).send(errorBody(503, serviceCode(prefix, 'DATABASE_UNAVAILABLE'), DATABASE_UNREACHABLE_MESSAGE, request.id))
    }
    if (error instanceof DatabaseTimeoutError) {
      // A query stuck past its bound: the request fails, the process keeps serving.
      request.log.warn({ err: error }, 'database did not answer in time')
      report(error, request, reply)
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
      return reply.code(503).send(errorBody(503, serviceCode(prefix, 'DATABASE_UNAVAILABLE'), DATABASE_UNAVAILABLE_MESSAGE, request.id))
    }
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
    if (status === 503 && isOutageAnswer(error.code)) {
      reply.header('retry-after', String(error.retryAfter ?? DATABASE_RETRY_AFTER_SECONDS))
      return reply.code(503).send(errorBody(503, error.code, error.message, request.id))
    }
    if (status === 503 && error.code !== undefined && NOT_CONFIGURED_CODES.has(error.code)) return reply.code(503).send(errorBody(503, error.code, error.message, request.id))
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed')
      report(error, request, reply)
      // A deliberate 5xx of the service or of a shared family (STREAMING_CLUSTERS_FULL, CHECKOUT_UNAVAILABLE) keeps its code.
      const exposed = ownCode(error.code, prefix) && error.statusCode !== undefined
      const code = exposed ? error.code : serviceCode(prefix, 'INTERNAL_ERROR')
      const message = exposed ? error.message : 'Something went wrong on our side. Please try again in a moment.'
      if (status === 503 && error.retryAfter) reply.header('retry-after', String(error.retryAfter))
      return reply.code(status).send(errorBody(status, code, message, request.id))
    }
    const fastifyCode = error.code && CODE_MAP[error.code]
    const code = fastifyCode ? serviceCode(prefix, fastifyCode) : ownCode(error.code, prefix) ? error.code : serviceCode(prefix, 'BAD_REQUEST')
    const message = (error.code && FRIENDLY[error.code]) || error.message
    if (status === 429 && error.retryAfter) reply.header('retry-after', String(error.retryAfter))
    // A deliberate 4xx may say more for a program to read (the fields a validation names, the current revision of a conflict).
    const details = ownCode(error.code, prefix) ? error.details : undefined
    return reply.code(status).send(details ? { ...details, ...errorBody(status, code, message, request.id) } : errorBody(status, code, message, request.id))
  })
}

declare module 'fastify' {
  interface FastifyError {
    retryAfter?: number
    /** Already reported upstream as this event (the BFF relaying the API's 5xx). */
    reportedAs?: string
    /** Fields a deliberate 4xx adds to the error body (`fields`, `currentRevision`). */
    details?: Record<string, unknown>
  }
}

interface ValidationIssue {
  keyword: string
  instancePath: string
  message?: string
  params: Record<string, unknown>
}

/**
 * Validation messages that name the parameter and, for a fixed vocabulary, list what is allowed:
 * "sort must be one of: namePopular, nameAsc, nameDesc, updated".
 */
export function schemaErrorFormatter(errors: ValidationIssue[], dataVar: string): Error {
  const issue = errors[0]
  if (!issue) return new Error(`${dataVar} is invalid`)
  const name = issue.instancePath.replace(/^\//, '').replace(/\//g, '.') || String(issue.params.missingProperty ?? dataVar)
  if (issue.keyword === 'enum') {
    return new Error(`${name} must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`)
  }
  if (issue.keyword === 'required') return new Error(`${name} is required`)
  return new Error(`${name} ${issue.message ?? 'is invalid'}`)
}
