import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { errorBody } from '../../http/errors.ts'
import { routeLabel } from '../../http/metrics.ts'
import { OutageLog } from '../../http/outage-log.ts'
import { redisCause, sharedOrLocalStore } from './shared-rate-limit-store.ts'

/** Requests that never count: hashed assets, locale files and probes. */
const EXEMPT = /^\/(?:assets\/|locales\/|favicon\.svg$|healthz$|readyz$)/

/**
 * Per-IP limits (DESIGN.md §2): in memory for one instance, in Redis when REDIS_URL is set so
 * every instance shares the counters (each instance's memory while Redis is away). Behind a
 * proxy the IP is trusted only when TRUST_PROXY names it, so a forged X-Forwarded-For changes
 * nothing.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, opts: { max: number; redisUrl: string | undefined }) => {
    let store: FastifyRateLimitStoreCtor | undefined
    if (opts.redisUrl) {
      const ioredis = await import('ioredis')
      const redis = new ioredis.Redis(opts.redisUrl, { connectTimeout: 2_000, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
      // One warn when Redis goes away and one info when it is back (issue 26): not a line with a
      // stack per reconnect attempt. Meanwhile the limits count per instance.
      const outage = new OutageLog(app.log, 'Redis', Date.now, { down: 'rate limits count per instance until it is back', back: 'rate limits are shared again' })
      redis.on('error', (err: Error) => outage.unreachable(redisCause(err)))
      redis.on('ready', () => outage.reached())
      store = sharedOrLocalStore(redis, outage, 'softshelf-rl:')
      // Requests that arrive before the connection is up would count only on this instance, so
      // the app is ready once Redis is, or its connect timeout passed (then the outage log has
      // said that Redis is unreachable).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_500)
        redis.once('ready', () => {
          clearTimeout(timer)
          resolve()
        })
      })
      app.addHook('onClose', async () => {
        // quit() waits for Redis to answer; a Redis that is away gets the connection dropped.
        if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect())
        else redis.disconnect()
      })
    }
    await app.register(rateLimit, {
      global: true,
      max: opts.max,
      timeWindow: 60_000,
      ...(store ? { store } : {}),
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
