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
  /** Whether the answer is the same for every caller whatever its headers (/api/version): request() needs none of them. */
  callerFree(req: Pick<UpstreamRequest, 'method' | 'path'>): boolean
  /** The shared answer of a caller-free request while it is live, without waiting; undefined otherwise (request() then loads it). */
  liveShared(req: Pick<UpstreamRequest, 'method' | 'path'>): UpstreamResponse | undefined
  /**
   * The catalogue's version as the API says it (GET /api/catalogue/version, shared for up to 1 s): the key of every cache of catalogue answers and pages. "unknown" when
   * the API does not answer.
   */
  catalogueVersion(): Promise<string>
  /** The API answered a write that changes what /api/version says: this instance asks afresh. */
  versionChanged(): void
}

declare module 'fastify' {
  interface FastifyInstance {
    upstreamApi: UpstreamApi
  }
}

/** Paths whose GET answers do not depend on the caller and may be shared for up to 1 s. */
/** The catalogue's version: what the shared catalogue caches are keyed by. */
const CATALOGUE_VERSION_PATH = '/api/catalogue/version'
const MICRO_CACHED = new Set(['/api/version', CATALOGUE_VERSION_PATH])
const MICRO_CACHE_TTL_MS = 1_000

/**
 * Catalogue answers the API marks `public` are the same for every visitor of one language and one
 * catalogue version: the BFF keeps them up to 30 s for pages it renders and browsers it proxies
 * for, one copy per language (program texts follow Accept-Language, which the BFF always
 * sends as one of the eight locales) and per catalogue version (an editor's change is
 * public within 2 s — the version comes from GET /api/catalogue/version, shared for 1 s, and an answer is
 * kept only under the version it names, `x-catalogue-version`). An answer that varies by anything
 * else is not kept. Conditional and credentialed requests always go to the API.
 */
const SHARED_PREFIXES = ['/api/programs', '/api/categories', '/api/license-types', '/api/developers/', '/api/publishers/', '/api/releases']
const SHARED_MAX_TTL_MS = 30_000
const CATALOGUE_VERSION_HEADER = 'x-catalogue-version'

function sharedTtl(response: UpstreamResponse, version: string): number {
  if (response.status !== 200 || response.headers[CATALOGUE_VERSION_HEADER] !== version) return 0
  const control = String(response.headers['cache-control'] ?? '')
  return /(?:^|,)\s*public\b/.test(control) && variesByLanguageAtMost(response) ? SHARED_MAX_TTL_MS : 0
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
  async (app: FastifyInstance, opts: { url: string; timeouts: Config['upstream']; now?: (() => number) | undefined }) => {
    // An API that cannot be reached is logged once, begun and ended, not per request.
    const client = new UpstreamClient(opts.url, opts.timeouts, undefined, new OutageLog(app.log, 'product API'))
    const now = opts.now ?? Date.now
    const cache = new MicroCache<UpstreamResponse>(MICRO_CACHE_TTL_MS, now)
    const shared = new MicroCache<UpstreamResponse>(SHARED_MAX_TTL_MS, now, 500)
    // The version read from the answer the micro-cache holds: parsed once per answer, not per page.
    let parsed: { response: UpstreamResponse; version: string } | undefined
    const catalogueVersion = async (): Promise<string> => {
      try {
        const response = await api.request({ method: 'GET', path: CATALOGUE_VERSION_PATH })
        if (parsed?.response !== response) {
          const version = response.status === 200 ? (JSON.parse(response.body.toString('utf8')) as { version?: unknown }).version : undefined
          parsed = { response, version: typeof version === 'string' ? version : 'unknown' }
        }
        return parsed.version
      } catch {
        return 'unknown'
      }
    }
    const api: UpstreamApi = {
      origin: client.origin,
      catalogueVersion,
      async request(req) {
        if (api.callerFree(req)) {
          // The shared answer must not depend on the caller's headers.
          const path = req.path
          return cache.get(path, () => client.request({ method: 'GET', path, headers: { accept: 'application/json' } }), (r) => r.status === 200)
        }
        if (isShareable(req)) {
          const { signal: _signal, ...rest } = req
          const language = languageOf(req)
          const version = await catalogueVersion()
          return shared.get(
            `${version} ${language} ${req.path}`,
            () => client.request({ ...rest, headers: { accept: 'application/json', 'accept-language': language } }),
            (response) => sharedTtl(response, version),
          )
        }
        return client.request(req)
      },
      stream: (req) => client.stream(req),
      cacheable: (req) => api.callerFree(req) || isShareable(req),
      callerFree: (req) => req.method === 'GET' && MICRO_CACHED.has(req.path),
      liveShared: (req) => (api.callerFree(req) ? cache.peek(req.path) : undefined),
      versionChanged: () => cache.forget('/api/version'),
    }
    app.decorate('upstreamApi', api)
    app.addHook('onClose', () => client.close())
  },
  { name: 'upstream-api' },
)
