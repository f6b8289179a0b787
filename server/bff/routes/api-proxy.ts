import fp from 'fastify-plugin'
import { Readable } from 'node:stream'
import { isAscii } from 'node:buffer'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { BffBadPath } from '../errors.ts'
import { isJsonAnswer, readBody, upstreamStatusError, type UpstreamResponse, type UpstreamStream } from '../upstream-client.ts'
import { JSON_BODY_LIMIT, STRIPE_WEBHOOK_BODY_LIMIT } from '../../http/body-limits.ts'
import { ERROR_EVENT_HEADER } from '../../http/errors.ts'
import { hasBody } from '../../http/body-deadline.ts'
import { assertSameOriginWrite, isSafeMethod } from '../csrf.ts'
import { isDeliberateServerError } from '../../http/errors.ts'
import { rememberUnlock, sharingLinkOf, shareTokenFor } from '../share-access.ts'
import { negotiateLocale, type Locale } from '../../../shared/locales.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { rememberAccountLanguage } from '../account/security-notices.ts'
import { checkOperatorAccess, isOperatorPath } from '../auth/operator-access.ts'
import { authUnavailable } from '../auth/core-outage.ts'
import type { RoleChanges } from '../../http/role-changes.ts'
import Session from 'supertokens-node/recipe/session'
import { errorHandler as supertokensErrorHandler } from 'supertokens-node/framework/fastify'
import { SCREENSHOT_MAX_BYTES } from '../../../shared/catalogue/media.ts'
import { ImageTooLarge } from '../../http/media-errors.ts'

/** The tus 1.0.0 protocol's request headers (resumable uploads, /api/files/uploads). */
const TUS_REQUEST_HEADERS = ['tus-resumable', 'upload-length', 'upload-offset', 'upload-metadata'] as const
/** And its answer headers; Location is the same-origin path the browser continues at. */
const TUS_RESPONSE_HEADERS = ['tus-resumable', 'tus-version', 'tus-extension', 'tus-max-size', 'upload-offset', 'upload-length', 'upload-metadata', 'upload-expires', 'location'] as const
const UPLOADS_PATH = '/api/files/uploads'
/** The console's maintenance setting: what /api/version says changes with it. */
const MAINTENANCE_PATH = '/api/operator/maintenance'
/** Stripe's webhook: the one /api path that carries no session and no anti-forgery header. */
export const STRIPE_WEBHOOK_PATH = '/api/stripe/webhook'
/** What Stripe's delivery may pass on: its signature is checked by the API on the exact bytes. */
const WEBHOOK_REQUEST_HEADERS = ['content-type', 'stripe-signature', 'user-agent'] as const

declare module 'fastify' {
  interface FastifyRequest {
    /** The access token the operator check verified (and renewed when the roles changed), when it ran before the body was read. */
    operatorAccessToken?: string
  }
  interface FastifyContextConfig {
    /** The route of Stripe's webhook: no anti-forgery check (it is no browser's request). */
    stripeWebhook?: boolean
  }
}

/** Request headers the API may see. Everything else — the browser's Cookie above all — stays here. */
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'if-none-match', 'if-modified-since', 'if-range', 'range', 'user-agent', ...TUS_REQUEST_HEADERS] as const
/**
 * Response headers the browser may see. The API's Set-Cookie never reaches it. The share links'
 * `referrer-policy: no-referrer` and `x-robots-tag` replace the BFF's own defaults on their answers.
 */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'content-disposition', 'content-range', 'cache-control', 'etag', 'last-modified', 'content-language', 'retry-after', 'vary', 'referrer-policy', 'x-robots-tag', ...TUS_RESPONSE_HEADERS] as const
/** And of a streamed answer, whose length and ranges are the upstream's own. */
const FORWARDED_STREAM_HEADERS = [...FORWARDED_RESPONSE_HEADERS, 'content-length', 'accept-ranges'] as const

/** A `.` or `..` segment of a path. */
const DOT_SEGMENT = /\/\.{1,2}(?:\/|$)/

/**
 * Returns the path to send upstream, or null when the path could escape the /api prefix once an
 * upstream decodes it: dot segments (also percent-encoded), encoded slashes, backslashes.
 */
export function safeApiPath(rawUrl: string): string | null {
  const queryIndex = rawUrl.indexOf('?')
  const pathPart = queryIndex === -1 ? rawUrl : rawUrl.slice(0, queryIndex)
  if (!pathPart.startsWith('/api/') || pathPart.includes('//') || pathPart.includes('\\')) return null
  // Nothing percent-encoded (the common case): each segment decodes to itself.
  if (!pathPart.includes('%')) return DOT_SEGMENT.test(pathPart) || pathPart.includes('\0') ? null : rawUrl
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

/**
 * The language of a proxied call: the best match of its Accept-Language among the
 * eight — the app's pages send their own language with every call — else English. The API gets
 * exactly that one tag, so what varies by language comes in at most eight variants, and an
 * answer's `Vary: Accept-Language` is exactly what it depends on.
 */
export function callLocale(request: FastifyRequest): Locale {
  return negotiateLocale(undefined, request.headers['accept-language'])
}

export function upstreamHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  headers['accept-language'] = callLocale(request)
  // The API authorises by the session's access token alone; the cookie itself stays here.
  const accessToken = request.cookies?.sAccessToken
  if (accessToken) headers.authorization = `Bearer ${accessToken}`
  // A share link's unlock proof (share-access.ts): only to that link's own paths.
  const link = sharingLinkOf(request.raw.url ?? '')
  const shareToken = link === null ? undefined : shareTokenFor(request, link)
  if (shareToken) headers['x-share-token'] = shareToken
  headers['x-request-id'] = request.id
  headers['x-forwarded-for'] = request.ip
  headers['x-forwarded-proto'] = request.protocol
  return headers
}

async function proxy(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, https: boolean, roleChanges: RoleChanges): Promise<FastifyReply> {
  // The operator console's routes: the session's permission for the route's row is
  // checked here before anything is proxied, whatever the path's spelling; the API checks again.
  const accessToken = request.operatorAccessToken ?? (isOperatorPath(request.raw.url ?? '') ? await checkOperatorAccess(request, reply, roleChanges) : undefined)
  try {
    return await forward(app, request, reply, https, accessToken)
  } catch (error) {
    if (!clientWentAway(request)) throw error
    // The browser went away with its body half sent (a tab closed mid-upload), so the
    // upstream call failed for want of the rest. Not a fault of the API nor of ours — a tus upload
    // resumes from what arrived — and there is no one left to answer: an info line, no error line,
    // no error report, no 502 counted.
    request.log.info({ event: 'client-gone', method: request.method }, "the client's connection closed before its request body had all arrived")
    return reply.hijack()
  }
}

/** The profile's own path, as the API's router takes it (with a query; a trailing slash is its 404). */
const PROFILE_PATH = /^\/api\/user(?:\?|$)/

/**
 * A language chosen on the profile is the account's language for the mails sent without a
 * session too (a password reset's security notice): kept with the account as soon as
 * the API has it, not only at the next sign-in.
 */
async function keepProfileLanguage(request: FastifyRequest, body: Buffer): Promise<void> {
  try {
    const record = JSON.parse(body.toString('utf8')) as Partial<UserRecord>
    if (typeof record.id === 'string' && typeof record.language === 'string') await rememberAccountLanguage(record.id, record.language)
  } catch (err) {
    request.log.warn({ err }, "the account's language could not be kept")
  }
}

/** Whether the client's connection closed before its request had all arrived. */
function clientWentAway(request: FastifyRequest): boolean {
  return !request.raw.complete && (request.raw.destroyed || request.raw.socket.destroyed)
}

/** The one spelling of the polled version the early answer takes; every other goes through the route. */
const VERSION_URL = '/api/version'

/**
 * The version every open tab polls, answered from the micro-cache as soon as its request is
 * routed, before the other hooks of every request: they were about a fifth of its CPU, and none of
 * them has anything to do for it. Install it on the BFF before any other onRequest hook but the
 * request id's. It takes only a GET of exactly `/api/version` with no body while the micro-cache
 * holds a live answer below 500, and does for it what the hooks it passes would have done:
 * - the security headers (`headers`, the ones the security-headers plugin sets on every answer);
 * - the cookies parsed, so that a signed-in caller is counted against their account too;
 * - the general rate limit's count (`app.countRequest`, the route's own hook), refused as it refuses;
 * - nothing for the rest: the URL has no text to check (storable-text), there is no body to wait
 *   for or to check, a GET has no anti-forgery check, and the route compresses nothing.
 * The route's onSend and onResponse hooks (shedding, metrics, the access log) run as for any
 * answer. Any other request — another spelling (a query string, a trailing slash, another case),
 * HEAD, a body, nothing live — goes through every hook and the route.
 * Registered after request-basics (its `dependencies`): the request id's hook runs first, so an
 * early answer carries the id too.
 */
export const versionEarlyAnswer = fp<{ headers: Record<string, string> }>(async (app, { headers }) => {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.url !== VERSION_URL || request.method !== 'GET' || hasBody(request.headers)) return done()
    const live = app.upstreamApi.liveShared({ method: 'GET', path: VERSION_URL })
    // A server error goes through the route, which answers it as the BFF's own.
    if (live === undefined || live.status >= 500) return done()
    reply.headers(headers)
    const cookies = request.headers.cookie
    request.cookies = cookies ? app.parseCookie(cookies) : {}
    // Counted as the route counts; a refusal is answered by the count (a hook's error, or its page).
    app.countRequest(request, reply, (error) => {
      if (error) return done(error)
      relayUpstream(request, reply, live, asciiText(live))
    })
  })
}, { name: 'version-early-answer', fastify: '5.x', dependencies: ['request-basics'] })

/** Shared answers' bodies as text, made once per answer: see asciiText. */
const sharedTexts = new WeakMap<UpstreamResponse, string | Buffer>()

/**
 * A shared answer's body as a string when it is ASCII (the same bytes either way), else the bytes.
 * Node writes a string body in one piece with the headers; bytes go as a second piece of the same
 * write (writev): /api/version answered 15–23 % more a second with the text.
 */
function asciiText(response: UpstreamResponse): string | Buffer {
  let text = sharedTexts.get(response)
  if (text === undefined) {
    text = isAscii(response.body) ? response.body.toString('latin1') : response.body
    sharedTexts.set(response, text)
  }
  return text
}

async function forward(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, https: boolean, accessToken?: string): Promise<FastifyReply> {
  const path = safeApiPath(request.raw.url ?? '')
  if (!path) throw new BffBadPath()
  // The version every open tab polls is the same for every caller: nothing of theirs is read for it.
  if (app.upstreamApi.callerFree({ method: request.method, path })) return relayUpstream(request, reply, await app.upstreamApi.request({ method: request.method, path }))
  const headers = upstreamHeaders(request)
  // The token the operator check verified, new when it read the roles again.
  if (accessToken) headers.authorization = `Bearer ${accessToken}`
  // Catalogue answers the same for everyone may come from the short shared cache (JSON, small).
  if (app.upstreamApi.cacheable({ method: request.method, path, headers })) {
    return relayUpstream(request, reply, await app.upstreamApi.request({ method: request.method, path, headers }))
  }
  // Everything else streams both ways: an upload's body as it arrives (a JSON body was read here
  // within its limit), the answer as it comes.
  const body = requestBody(request)
  if (Buffer.isBuffer(body)) headers['content-length'] = String(body.length)
  else if (body) {
    const length = request.headers['content-length']
    if (typeof length === 'string') headers['content-length'] = length
  }
  const response = await app.upstreamApi.stream({ method: request.method, path, headers, body })
  // Maintenance set from the console shows in this instance's /api/version at once;
  // the others' one-second cache shows it within the second.
  if (response.status === 200 && request.method === 'PUT' && path.split('?')[0] === MAINTENANCE_PATH) app.upstreamApi.versionChanged()
  return relayStream(request, reply, response, https)
}

/** The body to send upstream: bytes read within the route's limit, or an upload's stream. */
function requestBody(request: FastifyRequest): Buffer | Readable | undefined {
  return Buffer.isBuffer(request.body) || request.body instanceof Readable ? request.body : undefined
}

async function relayStream(request: FastifyRequest, reply: FastifyReply, response: UpstreamStream, https: boolean): Promise<FastifyReply> {
  // The API's JSON is read whole first, so a stalled or cut answer is a clean 502/504 rather than
  // a cut reply; anything else (downloads) streams as it comes. A user's own .json file is a
  // download (the API sandboxes user content), and keeps its sandbox and length.
  if (response.status < 500 && isJsonAnswer(response.headers) && !isSandboxed(response.headers['content-security-policy'])) {
    const whole = { status: response.status, headers: response.headers, body: await readBody(response.body) }
    if (request.method === 'PATCH' && whole.status === 200 && PROFILE_PATH.test(request.raw.url ?? '')) await keepProfileLanguage(request, whole.body)
    return relayUpstream(request, reply, rememberUnlock(request, reply, whole, https))
  }
  if (response.status >= 500) {
    // A deliberate answer (streaming off, clusters full) reaches the browser as the API gave it.
    if (response.status === 503 && isJsonAnswer(response.headers)) {
      const body = await readBody(response.body)
      if (isDeliberateServerError(codeOf(body))) {
        for (const name of FORWARDED_RESPONSE_HEADERS) forwardHeader(reply, name, response.headers[name])
        return reply.code(503).send(body)
      }
      throw serverError(request, response)
    }
    response.body.resume()
    throw serverError(request, response)
  }
  for (const name of FORWARDED_STREAM_HEADERS) forwardHeader(reply, name, response.headers[name])
  sandboxLike(reply, response.headers['content-security-policy'])
  reply.code(response.status)
  if (response.status === 204 || response.status === 304 || request.method === 'HEAD') {
    response.body.resume()
    return reply.send()
  }
  return reply.send(response.body)
}

function codeOf(body: Buffer): unknown {
  try {
    return (JSON.parse(body.toString('utf8')) as { code?: unknown } | null)?.code
  } catch {
    return undefined
  }
}

function forwardHeader(reply: FastifyReply, name: string, value: string | string[] | undefined): void {
  if (value === undefined) return
  // Only a path of ours (a tus upload's URL): never a redirect to another site through our origin.
  if (name === 'location' && (typeof value !== 'string' || safeApiPath(value) === null)) return
  reply.header(name, value)
}

function isSandboxed(upstreamPolicy: string | string[] | undefined): boolean {
  return typeof upstreamPolicy === 'string' && /(^|;)\s*sandbox\b/.test(upstreamPolicy)
}

/** User content the API marks `sandbox` keeps it here too, on top of the BFF's own strict policy. */
function sandboxLike(reply: FastifyReply, upstreamPolicy: string | string[] | undefined): void {
  if (!isSandboxed(upstreamPolicy)) return
  const own = String(reply.getHeader('content-security-policy') ?? "default-src 'none'")
  if (!/(^|;)\s*sandbox\b/.test(own)) reply.header('content-security-policy', `${own}; sandbox`)
}

function serverError(request: FastifyRequest, response: { status: number; headers: UpstreamResponse['headers'] }): Error {
  // A 503 is the API saying it cannot serve now (its database is down: it logged that once, issue
  // 18); relayed as BFF_UPSTREAM_UNAVAILABLE with its Retry-After, it needs no line per request here.
  if (response.status !== 503) request.log.warn({ upstreamStatus: response.status }, 'upstream API answered with a server error')
  const error = upstreamStatusError(response.status)
  // The API reported its own failure: the BFF does not report it again, and says which event it was.
  const eventId = response.headers[ERROR_EVENT_HEADER]
  if (typeof eventId === 'string' && /^[0-9a-f]{32}$/.test(eventId)) (error as Error & { reportedAs?: string }).reportedAs = eventId
  const retryAfter = Number(response.headers['retry-after'])
  if (Number.isFinite(retryAfter) && retryAfter > 0) error.retryAfter = retryAfter
  return error
}

/**
 * Answers with the product API's answer: its status, body and the headers a browser may see; a 5xx
 * as the BFF's own error. `body`: the answer's body as the caller has it (the upstream's bytes, or
 * the same bytes as text).
 */
export function relayUpstream(request: FastifyRequest, reply: FastifyReply, response: UpstreamResponse, body: Buffer | string = response.body): FastifyReply {
  if (response.status >= 500) throw serverError(request, response)
  for (const name of FORWARDED_RESPONSE_HEADERS) forwardHeader(reply, name, response.headers[name])
  reply.code(response.status)
  if (response.status === 204 || response.status === 304 || request.method === 'HEAD') return reply.send()
  return reply.send(body)
}

/** /api/* → the product API, with the anti-forgery check on every write; bodies stream both ways. */
async function apiProxyRoutes(app: FastifyInstance, opts: { appOrigin: string; rateLimitMax: number; roleChanges: RoleChanges }): Promise<void> {
  // The operator check's session errors are the SDK's answers (401 to refresh, 403 for a claim),
  // as on the BFF's own session routes; the core out of reach is a 503.
  const sdkErrors = supertokensErrorHandler()
  app.setErrorHandler(async (error, request, reply) => {
    const unavailable = authUnavailable(error, { ownDatabase: false })
    if (unavailable) throw unavailable
    if (!Session.Error.isErrorFromSuperTokens(error)) throw error
    await sdkErrors(error as never, request as never, reply as never)
  })
  // A body goes no further than the API route would read it. The API reads JSON
  // whole up to JSON_BODY_LIMIT (and the webhook's bytes up to its own), so those are read here
  // within the same limit — a declared Content-Length over it is refused before any byte is read,
  // a chunked body as soon as it passes it — and refused with 413 BFF_BODY_TOO_LARGE (Fastify's
  // FST_ERR_CTP_BODY_TOO_LARGE, closing the connection), instead of streaming on until the API cut
  // it: that was a 502 and an error line. Uploads (below) stream with no limit of ours.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: JSON_BODY_LIMIT }, (_request, body, done) => done(null, body))
  app.addHook('onRequest', (request, _reply, done) => {
    // Decided by the route the router chose, not by comparing strings: whatever spelling reaches
    // the webhook route is the webhook (and goes upstream as its one canonical path), whatever
    // reaches /api/* is checked. A read has nothing to check.
    if (isSafeMethod(request.method) || request.routeOptions.config?.stripeWebhook === true) return done()
    try {
      assertSameOriginWrite(request, opts.appOrigin)
      done()
    } catch (error) {
      done(error as Error)
    }
  })
  const https = opts.appOrigin.startsWith('https:')
  // The proxied routes are described by the API's own document (decision 023): hidden here.
  const hide = { hide: true }
  app.all('/api/*', { bodyLimit: JSON_BODY_LIMIT, schema: hide }, (request, reply) => proxy(app, request, reply, https, opts.roleChanges))
  // The version every open tab polls (client/lib/notices/version-polling.ts): proxied like the rest, as a
  // route of its own so that its request lines stay out of the log at info (POLLED_ROUTES).
  // Its answer (~40 bytes) is never long enough to compress, and a GET has no body to decompress:
  // no compression hooks either. While the micro-cache holds it, versionEarlyAnswer answers
  // it before this route is reached.
  app.get('/api/version', { schema: hide, compress: false, decompress: false }, (request, reply) => proxy(app, request, reply, https, opts.roleChanges))
  // Resumable uploads: a PATCH may take minutes on a slow line (no body deadline), and
  // a folder of many small files is two requests a file, so they count apart from other calls, in
  // a bucket of their own as large as theirs (RATE_LIMIT_MAX, decision 027). Their bodies stream to
  // the API as they arrive, whatever their size: the tus server there keeps each upload within its
  // declared length and the quota.
  const uploads = { longBody: true, rateLimit: { max: opts.rateLimitMax, timeWindow: 60_000 } }
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
    for (const url of [UPLOADS_PATH, `${UPLOADS_PATH}/*`]) scope.all(url, { config: uploads, schema: hide }, (request, reply) => proxy(app, request, reply, https, opts.roleChanges))
  })
  // Programs' logos and screenshots: the image is the body, read within the largest
  // the API takes for them (it holds each route to its own, smaller for logos, and answers 413
  // API_IMAGE_TOO_LARGE).
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SCREENSHOT_MAX_BYTES }, (_request, body, done) => done(null, body))
    // Anything else goes on to the proxy's own handler (the operator check's session answers).
    scope.setErrorHandler(async (error) => {
      throw (error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? new ImageTooLarge(`${SCREENSHOT_MAX_BYTES / 1024 / 1024} MiB`) : error
    })
    // The permission first, before a byte of the image is read: anyone else is refused at once.
    scope.addHook('preParsing', async (request, reply, payload) => {
      request.operatorAccessToken = await checkOperatorAccess(request, reply, opts.roleChanges)
      return payload
    })
    const upload = { bodyLimit: SCREENSHOT_MAX_BYTES, schema: hide }
    scope.put('/api/operator/programs/:id/logo', upload, (request, reply) => proxy(app, request, reply, https, opts.roleChanges))
    scope.post('/api/operator/programs/:id/screenshots', upload, (request, reply) => proxy(app, request, reply, https, opts.roleChanges))
  })
  // Stripe's webhook: no cookie, token or anti-forgery header; the raw body (read within the API's
  // own limit for it) goes to the API, which verifies its signature. Only POST: any other method is
  // an ordinary /api call.
  app.post(STRIPE_WEBHOOK_PATH, { bodyLimit: STRIPE_WEBHOOK_BODY_LIMIT, config: { stripeWebhook: true }, schema: hide }, async (request, reply) => {
    const headers: Record<string, string> = { 'x-request-id': request.id, 'x-forwarded-for': request.ip, 'x-forwarded-proto': request.protocol }
    for (const name of WEBHOOK_REQUEST_HEADERS) {
      const value = request.headers[name]
      if (typeof value === 'string') headers[name] = value
    }
    const body = Buffer.isBuffer(request.body) ? request.body : undefined
    if (body) headers['content-length'] = String(body.length)
    return relayStream(request, reply, await app.upstreamApi.stream({ method: 'POST', path: STRIPE_WEBHOOK_PATH, headers, body }), https)
  })
}

export default fp(apiProxyRoutes, { name: 'api-proxy-routes', encapsulate: true, dependencies: ['@fastify/cookie', 'rate-limit', 'upstream-api', 'auth'] })
