import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'
import { errorBody } from '../../http/errors.ts'
import { routeLabel } from '../../http/metrics.ts'
import { OutageLog } from '../../http/outage-log.ts'
import { asksForPage } from '../../http/refusal.ts'
import { RATE_LIMITED_PAGE_CSP } from '../locales.ts'
import { counterStores, redisCause, sharedOrLocalStore, type Exceeded } from './shared-rate-limit-store.ts'

const WINDOW_MS = 60_000

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts a request against the general limit as a counted route's own hook does: `done()` when it may go on, `done(error)` or a 429 page when not. */
    countRequest: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void
  }
}

/**
 * Routes whose answers are static and cacheable, the probes and the operator's metrics: never
 * counted (decision 027). Decided by the route that answers, never by the URL's spelling: whatever
 * spelling reaches the logo route is a logo, and no spelling of an /api path reaches one of these.
 */
const UNCOUNTED_ROUTES: ReadonlySet<string> = new Set([
  '/assets/*',
  '/locales/:hash/:lng/:ns',
  '/logos/*',
  '/og/programs/*',
  '/favicon.svg',
  '/healthz',
  '/readyz',
  // The operator's scrape, answered only to their token (added before this plugin; named should that change).
  '/metrics',
])

/** Whether a refused request is a browser's page load, answered with a page rather than JSON. */
function wantsPage(request: FastifyRequest): boolean {
  const route = request.routeOptions.url ?? ''
  return asksForPage(request.raw) && !/^\/(?:api|auth)(?:\/|$)/.test(route)
}

export interface RateLimitOptions {
  /** Counted requests per address per minute, everyone behind it (RATE_LIMIT_MAX). */
  addressMax: number
  /** Counted requests per signed-in account per minute (RATE_LIMIT_ACCOUNT_MAX). */
  accountMax: number
  redisUrl: string | undefined
  /**
   * The account of the request's verified session; undefined for none, an expired, forged or
   * garbled one. Undefined at once (not a promise) when the request carries no session to verify.
   */
  accountOf: (request: FastifyRequest) => Promise<string | undefined> | undefined
  /** The page a browser's refused page load gets, in its language, reloading after `retryAfterSeconds`. */
  page: (request: FastifyRequest, retryAfterSeconds: number) => string
}

/**
 * Rate limits (DESIGN.md §2, decision 027). Only what costs is counted: pages, API calls and
 * writes; static answers and probes never. Every counted request counts against its address;
 * one with a verified session also against its account, with a budget of its own, so one busy
 * person behind a shared address (a school, an office) cannot use up everyone's. Routes with a
 * limit of their own (`config.rateLimit`: /auth writes, uploads, page forms…) keep it, per address.
 * In memory for one instance, in Redis when REDIS_URL is set so every instance shares the counters
 * (each instance's memory while Redis is away). Behind a proxy the address is trusted only when
 * TRUST_PROXY names it, so a forged X-Forwarded-For changes nothing.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, opts: RateLimitOptions) => {
    let store: FastifyRateLimitStoreCtor | undefined
    if (opts.redisUrl) {
      const ioredis = await import('ioredis')
      const redis = new ioredis.Redis(opts.redisUrl, { connectTimeout: 2_000, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
      // One warn when Redis goes away and one info when it is back: not a line with a
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
    // The plugin itself only applies the routes' own limits (`config.rateLimit`); the general
    // limit is the hook below, which needs two counters for a signed-in request.
    await app.register(rateLimit, {
      global: false,
      max: opts.addressMax,
      timeWindow: WINDOW_MS,
      ...(store ? { store } : {}),
      // Limit headers only once the limit is reached (with retry-after): every other answer stays lean.
      addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
      errorResponseBuilder: (request, context) => {
        request.server.metrics?.rateLimited.inc({ route: routeLabel(request) })
        return limitedError(request, Math.ceil(context.ttl / 1000))
      },
    })

    // The general limit's two counters, each a store of the kind the plugin uses (Redis while it
    // answers, else this instance's memory), made as the plugin makes a route's own. Counted here
    // rather than through `createRateLimit`, whose check is a chain of promises per request: with
    // the local store a count is synchronous, a request that is allowed makes no promise at all
    // (the limit was ~12 µs of /api/version's ~100). Keys carry their kind, so no account
    // id can name an address's counter or the reverse.
    const counters = counterStores(store, WINDOW_MS)
    const byAddress = counters('address', opts.addressMax)
    const byAccount = counters('account', opts.accountMax)

    const refuse = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, exceeded: Exceeded) => {
      request.server.metrics?.rateLimited.inc({ route: routeLabel(request) })
      const { retryAfter, max } = exceeded
      reply.header('retry-after', String(retryAfter)).header('x-ratelimit-limit', String(max)).header('x-ratelimit-remaining', '0').header('x-ratelimit-reset', String(retryAfter))
      if (!wantsPage(request)) return done(limitedError(request, retryAfter))
      // A person's browser: a page in their language that tries again by itself (a hook that
      // answers does not call done).
      reply.code(429).header('cache-control', 'no-store').header('content-security-policy', RATE_LIMITED_PAGE_CSP).type('text/html; charset=utf-8').send(opts.page(request, retryAfter))
    }

    const countAddress = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) =>
      byAddress(request.ip, (exceeded) => (exceeded ? refuse(request, reply, done, exceeded) : done()))

    // A hook with a callback, not a promise: a request without a session is counted synchronously.
    const count = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      // Only a session the BFF verified names an account: a forged or garbled cookie is just the address.
      const account = opts.accountOf(request)
      if (account === undefined) return countAddress(request, reply, done)
      account.then(
        (accountId) => {
          if (accountId === undefined) return countAddress(request, reply, done)
          byAccount(accountId, (exceeded) => (exceeded ? refuse(request, reply, done, exceeded) : countAddress(request, reply, done)))
        },
        (error: unknown) => done(error as Error),
      )
    }

    // The polled version's early answer (api-proxy.ts versionEarlyAnswer) counts with this, as its route would.
    app.decorate('countRequest', count)

    // Decided once per route, when it is added: its own hook runs after the hooks of its scope,
    // as the plugin's did (in development Vite's middleware answers its modules before it).
    app.addHook('onRoute', (route) => {
      if (UNCOUNTED_ROUTES.has(route.url ?? route.path)) return
      // A route with a limit of its own is counted by it alone, as before.
      if ((route.config as { rateLimit?: unknown } | undefined)?.rateLimit) return
      route.onRequest = [...(Array.isArray(route.onRequest) ? route.onRequest : route.onRequest ? [route.onRequest] : []), count]
    })
  },
  // Counting per account reads the session cookie, which @fastify/cookie parses.
  { name: 'rate-limit', dependencies: ['@fastify/cookie'] },
)

function limitedError(request: FastifyRequest, retryAfter: number): Error {
  const body = errorBody(429, 'BFF_RATE_LIMITED', `Too many requests. Please wait ${retryAfter} seconds and try again.`, request.id)
  return Object.assign(new Error(body.message), body, { retryAfter })
}
