import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { MicroCache } from './micro-cache.ts'
import { UpstreamClient, type UpstreamRequest, type UpstreamResponse } from './upstream-client.ts'

/** The product API as the BFF sees it: one pooled client plus the /api/version micro-cache. */
export interface UpstreamApi {
  readonly origin: string
  request(req: UpstreamRequest): Promise<UpstreamResponse>
}

declare module 'fastify' {
  interface FastifyInstance {
    upstreamApi: UpstreamApi
  }
}

/** Paths whose GET answers do not depend on the caller and may be shared for up to 1 s. */
const MICRO_CACHED = new Set(['/api/version'])
const MICRO_CACHE_TTL_MS = 1_000

export const upstreamApiPlugin = fp(
  async (app: FastifyInstance, opts: { url: string; timeouts: Config['upstream'] }) => {
    const client = new UpstreamClient(opts.url, opts.timeouts)
    const cache = new MicroCache<UpstreamResponse>(MICRO_CACHE_TTL_MS)
    const api: UpstreamApi = {
      origin: client.origin,
      request(req) {
        if (req.method === 'GET' && MICRO_CACHED.has(req.path)) {
          // The shared answer must not depend on the caller's headers.
          const { headers: _ignored, signal: _signal, ...shared } = req
          return cache.get(req.path, () => client.request({ ...shared, headers: { accept: 'application/json' } }), (r) => r.status === 200)
        }
        return client.request(req)
      },
    }
    app.decorate('upstreamApi', api)
    app.addHook('onClose', () => client.close())
  },
  { name: 'upstream-api' },
)
