import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { OutageLog } from '../http/outage-log.ts'
import { negotiateLocale } from '../../shared/locales.ts'
import { MicroCache } from './micro-cache.ts'
import { UpstreamClient, type UpstreamRequest, type UpstreamResponse, type UpstreamStream } from './upstream-client.ts'

/** The product API as the BFF sees it: one pooled client plus the /api/version micro-cache. */
export interface UpstreamApi {
  readonly origin: string
  request(req: UpstreamRequest): Promise<UpstreamResponse>
  /** Never cached: the body is read as it arrives (downloads, uploads, anything not JSON). */
  stream(req: UpstreamRequest): Promise<UpstreamStream>
  /** Whether request() may answer this GET from a short shared cache. */
  cacheable(req: UpstreamRequest): boolean
  /** The API answered a write that changes what /api/version says: this instance asks afresh. */
  versionChanged(): void
}

declare module 'fastify' {
  interface FastifyInstance {
    upstreamApi: UpstreamApi
  }
}

/** Paths whose GET answers do not depend on the caller and may be shared for up to 1 s. */
const MICRO_CACHED = new Set(['/api/version'])
const MICRO_CACHE_TTL_MS = 1_000

/**
 * Catalogue answers the API marks `public, max-age=N` are the same for every visitor of one
 * language: the BFF keeps them up to N seconds (at most 30) for pages it renders and browsers it
 * proxies for, one copy per language (issue 15: program texts follow Accept-Language, which the
 * BFF always sends as one of the eight locales). An answer that varies by anything else is not
 * kept. Conditional and credentialed requests always go to the API.
 */
const SHARED_PREFIXES = ['/api/programs', '/api/categories', '/api/license-types', '/api/developers/', '/api/publishers/']
const SHARED_MAX_TTL_MS = 30_000

function sharedTtl(response: UpstreamResponse): number {
  if (response.status !== 200) return 0
  const control = String(response.headers['cache-control'] ?? '')
  const maxAge = /(?:^|,)\s*max-age=(\d+)/.exec(control)?.[1]
  return /(?:^|,)\s*public\b/.test(control) && maxAge !== undefined && variesByLanguageAtMost(response) ? Number(maxAge) * 1000 : 0
}

/** No Vary, or one naming only Accept-Language: the key (language and path) tells such answers apart. */
function variesByLanguageAtMost(response: UpstreamResponse): boolean {
  const vary = response.headers.vary
  if (vary === undefined) return true
  const names = (Array.isArray(vary) ? vary.join(',') : vary).split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '')
  return names.every((name) => name === 'accept-language')
}

/** The language a shared answer is kept under, and asked for: one of the eight, whatever the caller sent. */
function languageOf(req: UpstreamRequest): string {
  const value = req.headers?.['accept-language']
  return negotiateLocale(undefined, typeof value === 'string' ? value : undefined)
}

function isShareable(req: UpstreamRequest): boolean {
  if (req.method !== 'GET' || !SHARED_PREFIXES.some((prefix) => req.path.startsWith(prefix))) return false
  const headers = req.headers ?? {}
  return !('authorization' in headers || 'cookie' in headers || 'if-none-match' in headers || 'if-modified-since' in headers)
}

export const upstreamApiPlugin = fp(
  async (app: FastifyInstance, opts: { url: string; timeouts: Config['upstream'] }) => {
    // An API that cannot be reached is logged once, begun and ended, not per request (issue 18).
    const client = new UpstreamClient(opts.url, opts.timeouts, undefined, new OutageLog(app.log, 'product API'))
    const cache = new MicroCache<UpstreamResponse>(MICRO_CACHE_TTL_MS)
    const shared = new MicroCache<UpstreamResponse>(SHARED_MAX_TTL_MS, Date.now, 500)
    const api: UpstreamApi = {
      origin: client.origin,
      request(req) {
        if (req.method === 'GET' && MICRO_CACHED.has(req.path)) {
          // The shared answer must not depend on the caller's headers.
          const { headers: _ignored, signal: _signal, ...shared } = req
          return cache.get(req.path, () => client.request({ ...shared, headers: { accept: 'application/json' } }), (r) => r.status === 200)
        }
        if (isShareable(req)) {
          const { signal: _signal, ...rest } = req
          const language = languageOf(req)
          return shared.get(`${language} ${req.path}`, () => client.request({ ...rest, headers: { accept: 'application/json', 'accept-language': language } }), sharedTtl)
        }
        return client.request(req)
      },
      stream: (req) => client.stream(req),
      cacheable: (req) => (req.method === 'GET' && MICRO_CACHED.has(req.path)) || isShareable(req),
      versionChanged: () => cache.forget('/api/version'),
    }
    app.decorate('upstreamApi', api)
    app.addHook('onClose', () => client.close())
  },
  { name: 'upstream-api' },
)
