import { createRequire } from 'node:module'
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { Redis } from 'ioredis'
import type { OutageLog } from '../../http/outage-log.ts'

// With REDIS_URL the per-IP counters live in Redis, shared by every BFF instance.
// While Redis cannot be reached, each instance counts in its own memory (the limits still hold,
// per instance) instead of skipping them; the outage log says so once when it begins and once
// when Redis is back. The two stores are @fastify/rate-limit's own.

type Result = { current: number; ttl: number }
type Callback = (error: Error | null, result?: Result) => void
interface Store extends FastifyRateLimitStore {
  read?(key: string, callback: Callback, timeWindow: number, max: number): void
}
type RouteOptions = Parameters<FastifyRateLimitStore['child']>[0]

const require = createRequire(import.meta.url)
// The package exports the stores' files but no types for them.
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key?: string) => Store
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => Store

/** A short cause for the outage log: the connection error's code, or what the client said. */
export function redisCause(error: Error): string {
  return (error as NodeJS.ErrnoException).code ?? error.name
}

class SharedOrLocalStore implements Store {
  constructor(
    private readonly redis: Redis,
    private readonly outage: OutageLog,
    private readonly shared: Store,
    private readonly local: Store,
  ) {}

  private use(method: 'incr' | 'read', key: string, callback: Callback, timeWindow: number, max: number): void {
    const local = () => this.local[method]!(key, callback, timeWindow, max)
    if (this.redis.status !== 'ready') {
      this.outage.unreachable(`redis ${this.redis.status}`)
      return local()
    }
    this.shared[method]!(
      key,
      (error, result) => {
        if (error) {
          this.outage.unreachable(redisCause(error))
          return local()
        }
        this.outage.reached()
        return callback(null, result)
      },
      timeWindow,
      max,
    )
  }

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.use('incr', key, callback, timeWindow, max)
  }

  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.use('read', key, callback, timeWindow, max)
  }

  child(routeOptions: RouteOptions): Store {
    return new SharedOrLocalStore(this.redis, this.outage, this.shared.child(routeOptions), this.local.child(routeOptions))
  }
}

/** The `store` option of @fastify/rate-limit: Redis while it answers, this instance's memory while it does not. */
export function sharedOrLocalStore(redis: Redis, outage: OutageLog, nameSpace: string): FastifyRateLimitStoreCtor {
  return class extends SharedOrLocalStore {
    // The plugin hands its global settings to the store it makes.
    constructor(options: { continueExceeding?: boolean; exponentialBackoff?: boolean; cache?: number }) {
      const continueExceeding = options.continueExceeding ?? false
      const exponentialBackoff = options.exponentialBackoff ?? false
      super(redis, outage, new RedisStore(continueExceeding, exponentialBackoff, redis, nameSpace), new LocalStore(continueExceeding, exponentialBackoff, options.cache))
    }
  }
}

/** A counted request past its key's limit: the seconds until its window ends, and the limit. */
export interface Exceeded {
  retryAfter: number
  max: number
}

/** Counts one request against `key`; `done` gets what was exceeded, or undefined when it is allowed. */
export type Counter = (key: string, done: (exceeded: Exceeded | undefined) => void) => void

/**
 * The general limit's counters (rate-limit.ts), one store each, of the kind @fastify/rate-limit
 * makes: `storeCtor` (Redis while it answers) or, without one, its LocalStore. `counters(kind, max)`
 * counts against `kind:key` in windows of `windowMs`; with the local store `done` is called before
 * the count returns. A store that fails lets the request through rather than refuse every request
 * (neither of these does: the shared store falls back to memory).
 */
export function counterStores(storeCtor: FastifyRateLimitStoreCtor | undefined, windowMs: number): (kind: string, max: number) => Counter {
  return (kind, max) => {
    const store: Store = storeCtor ? new storeCtor({}) : new LocalStore(false, false)
    const prefix = `${kind}:`
    return (key, done) =>
      store.incr(
        prefix + key,
        (error, result) => done(!error && result && result.current > max ? { retryAfter: Math.ceil(result.ttl / 1000), max } : undefined),
        windowMs,
        max,
      )
  }
}
