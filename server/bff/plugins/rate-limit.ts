import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { errorBody } from '../../http/errors.ts'
import { routeLabel } from '../../http/metrics.ts'

/** Requests that never count: hashed assets, locale files and probes. */
const EXEMPT = /^\/(?:assets\/|locales\/|favicon\.svg$|healthz$|readyz$)/

/**
 * Per-IP limits (DESIGN.md §2): in memory for one instance, in Redis when REDIS_URL is set so
 * every instance shares the counters. Behind a proxy the IP is trusted only when TRUST_PROXY
 * names it, so a forged X-Forwarded-For changes nothing.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, opts: { max: number; redisUrl: string | undefined }) => {
    let redis: Redis | undefined
    if (opts.redisUrl) {
      const ioredis = await import('ioredis')
      redis = new ioredis.Redis(opts.redisUrl, { connectTimeout: 2_000, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
      redis.on('error', (err) => app.log.warn({ err }, 'redis error'))
      // Requests that arrive before the connection is up would go uncounted (the limiter skips
      // on store errors), so the app is ready only once Redis is, or its connect timeout passed.
      const client = redis
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          app.log.warn('redis not ready: rate limits are skipped until it is')
          resolve()
        }, 2_500)
        client.once('ready', () => {
          clearTimeout(timer)
          resolve()
        })
      })
      app.addHook('onClose', async () => {
        await redis?.quit().catch(() => redis?.disconnect())
      })
    }
    await app.register(rateLimit, {
      global: true,
      max: opts.max,
      timeWindow: 60_000,
      ...(redis ? { redis, nameSpace: 'softshelf-rl:', skipOnError: true } : {}),
      allowList: (request: FastifyRequest) => EXEMPT.test(request.url),
      // Limit headers only once the limit is reached (with retry-after): every other answer stays lean.
      addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
      errorResponseBuilder: (request, context) => {
        request.server.metrics?.rateLimited.inc({ route: routeLabel(request) })
        const body = errorBody(429, 'BFF_RATE_LIMITED', `Too many requests. Please wait ${Math.ceil(context.ttl / 1000)} seconds and try again.`, request.id)
        return Object.assign(new Error(body.message), body, { retryAfter: Math.ceil(context.ttl / 1000) })
      },
    })
  },
  { name: 'rate-limit' },
)
