import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

// Text PostgreSQL cannot store. A NUL byte in a string that reached a query failed
// there — "invalid byte sequence for encoding UTF8: 0x00" — and the request answered 500 or 502,
// with an error line and an error report per request, no session needed. An unpaired UTF-16
// surrogate is no character at all: the driver writes it as U+FFFD, so what was stored is not
// what was sent. Both are refused at the edge of every service, before any route, as a 400 of
// the service's validation code: in the path, the query string (percent-decoded as UTF-8, where
// `%ED%A0%80` is a surrogate and so not UTF-8) and the parsed body, nested.

/** A NUL, or a surrogate that is not half of a pair (in a `u` regular expression, \p{Cs} matches only those). */
// eslint-disable-next-line no-control-regex -- the NUL is the point
const UNSTORABLE = /[\u0000\p{Cs}]/u
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Whether a string holds a character PostgreSQL cannot store. */
export function isStorable(text: string): boolean {
  return !UNSTORABLE.test(text)
}

/** Whether a part of a URL, once its percent-escapes are decoded as UTF-8, is text PostgreSQL can store. */
function storableUrlPart(part: string): boolean {
  if (!isStorable(part)) return false
  for (const run of part.match(PERCENT_RUN) ?? []) {
    const bytes = Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16))
    let decoded: string
    try {
      decoded = utf8.decode(bytes)
    } catch {
      // Not UTF-8: an encoded surrogate (%ED%A0%80), an over-long NUL (%C0%80), a cut sequence.
      return false
    }
    if (!isStorable(decoded)) return false
  }
  return true
}

/** Where in a request URL unstorable text is: 'path', 'query', or undefined when there is none. */
export function unstorableInUrl(url: string): 'path' | 'query' | undefined {
  const queryAt = url.indexOf('?')
  const path = queryAt < 0 ? url : url.slice(0, queryAt)
  if (!storableUrlPart(path)) return 'path'
  if (queryAt >= 0 && !storableUrlPart(url.slice(queryAt + 1))) return 'query'
  return undefined
}

/** A parsed JSON or form object; not a Buffer, a stream or anything else a parser may hand on. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false
  const prototype = Object.getPrototypeOf(value) as unknown
  return prototype === Object.prototype || prototype === null
}

/**
 * The place of the first unstorable string (a value or a key) in a parsed body — "" for the body
 * itself, else a dotted path like "formFields.0.value" — or undefined when there is none. Walked
 * without recursion: a deeply nested JSON body must not overflow the stack. Bytes (uploads, the
 * webhook's raw body) and streams (the BFF's proxied bodies, read by the service behind) are not
 * text and are not looked at.
 */
export function unstorableInBody(body: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[body, '']]
  while (pending.length > 0) {
    const [value, at] = pending.pop()!
    if (typeof value === 'string') {
      if (!isStorable(value)) return at
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push([item, at ? `${at}.${index}` : String(index)]))
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        const place = at ? `${at}.${key}` : key
        if (!isStorable(key)) return at || '(a field name)'
        pending.push([item, place])
      }
    }
  }
  return undefined
}

/** The sentence of the 400: where the character is, never the value itself. */
export function unstorableMessage(where: string): string {
  return `The request contains a character that cannot be accepted (a NUL character or a broken Unicode character) in ${where}. Remove it and try again.`
}

function placeOf(request: FastifyRequest): string | undefined {
  // The URL as the client sent it: a service that rewrites its URL (the auth core's tenant prefix) is checked on the original.
  const where = unstorableInUrl(request.originalUrl)
  if (where) return where === 'path' ? 'the address' : 'the query string'
  return undefined
}

/**
 * The check on a service, registered before any of its routes: the URL when the request arrives,
 * the body once parsed. `refuse` makes the service's own validation error, which its error handler
 * answers as a 400 — a caller's mistake, so no error line and no error report.
 */
export const storableText = fp<{ refuse: (message: string) => Error }>(
  async (app, { refuse }) => {
    // Callback hooks, not async ones: every request passes both, and a promise each is measurable
    // on a route as light as /api/version.
    app.addHook('onRequest', (request, _reply, done) => {
      const where = placeOf(request)
      done(where ? refuse(unstorableMessage(where)) : undefined)
    })
    app.addHook('preValidation', (request, _reply, done) => {
      // A GET has no body to look at.
      const at = request.body === undefined ? undefined : unstorableInBody(request.body)
      done(at !== undefined ? refuse(unstorableMessage(at ? `the body (${at})` : 'the body')) : undefined)
    })
  },
  { name: 'storable-text', fastify: '5.x' },
)
