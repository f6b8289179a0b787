import { EventEmitter } from 'node:events'
import { request } from 'undici'
import type { FastifyBaseLogger } from 'fastify'
import { Failover, splitCoreUrls } from './core-urls.ts'

// What the revocation list (decision 009) and the role-change feed (decision 028) share: a list
// the auth core keeps of recent events, read by every API and BFF instance twice a second, paged
// by the database's clock, so that a check done from memory is at most a second behind the core.
// If the list cannot be read for a while the instance can no longer tell, and says so (`fresh`
// false: the checks that depend on it answer 503, never a possibly-wrong yes).

/** How often a feed is read from the core. */
export const FEED_POLL_MS = 500
/** Past this without a successful read a feed is stale. */
export const FEED_STALE_MS = 10_000
/** Each read starts this far before the newest entry seen: an entry may commit late. */
const OVERLAP_MS = 15_000

export interface CoreFeedOptions {
  /** AUTH_CORE_URL's form: one core, or several on one database separated by ";" (the next is asked when one fails). */
  coreUrl: string
  apiKey: string | undefined
  log?: FastifyBaseLogger
  /** Wall clock, for the entries' times (the core's ms). */
  now?: () => number
  /** Monotonic clock, for the feed's age: a wall clock set forward must not make it stale. */
  monotonic?: () => number
  pollMs?: number
}

/** Which feed: the core's path, the answer's list field, and its name in log lines and errors. */
export interface CoreFeedKind {
  path: string
  listField: string
  name: string
}

export abstract class CoreFeed<Entry> extends EventEmitter {
  private since = 0
  private lastRead = Number.NEGATIVE_INFINITY
  private timer: NodeJS.Timeout | undefined
  private stopped = true
  private failing = false
  protected readonly now: () => number
  private readonly monotonic: () => number
  private readonly cores: Failover<string>

  constructor(
    protected readonly options: CoreFeedOptions,
    private readonly kind: CoreFeedKind,
  ) {
    super()
    this.cores = new Failover(splitCoreUrls(options.coreUrl))
    this.now = options.now ?? (() => Date.now())
    this.monotonic = options.monotonic ?? (() => performance.now())
  }

  /** Takes a page's entries into memory. */
  protected abstract take(entries: Entry[]): void
  /** Forgets what no check needs any more; after every read. */
  protected abstract sweep(): void

  /** Reads the feed now and then every `pollMs` until stop(). */
  start(): void {
    if (!this.stopped) return
    this.stopped = false
    void this.loop()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  private async loop(): Promise<void> {
    await this.read().catch(() => {})
    this.emit('attempt')
    if (this.stopped) return
    this.timer = setTimeout(() => void this.loop(), this.options.pollMs ?? FEED_POLL_MS)
    this.timer.unref()
  }

  /** One read of the core's feed (all pages of it). */
  async read(): Promise<void> {
    try {
      for (let pages = 0; pages < 100; pages++) {
        // Every core on the database keeps the same feed: a page may come from any of them.
        const page = await this.cores.attempt((base) => this.fetchPage(base))
        this.take(page.entries)
        // Past a full page, the next starts where it ended; otherwise a little before, for late commits.
        this.since = page.more ? page.until : Math.max(this.since, page.until - OVERLAP_MS)
        if (!page.more) break
      }
      this.lastRead = this.monotonic()
      this.sweep()
      if (this.failing) this.options.log?.info(`${this.kind.name} is readable again`)
      this.failing = false
      this.emit('read')
    } catch (error) {
      if (!this.failing) this.options.log?.warn({ err: error }, `${this.kind.name} cannot be read from the auth core`)
      this.failing = true
      throw error
    }
  }

  private async fetchPage(base: string): Promise<{ entries: Entry[]; until: number; more: boolean }> {
    const response = await request(`${base}${this.kind.path}?since=${this.since}`, {
      headers: { 'cdi-version': '5.4', ...(this.options.apiKey ? { 'api-key': this.options.apiKey } : {}) },
      headersTimeout: 2_000,
      bodyTimeout: 2_000,
    })
    if (response.statusCode !== 200) {
      await response.body.dump()
      throw new Error(`the auth core answered ${response.statusCode}`)
    }
    const body = (await response.body.json()) as Record<string, unknown>
    const entries = body[this.kind.listField]
    if (body.status !== 'OK' || !Array.isArray(entries) || typeof body.until !== 'number') throw new Error(`the auth core answered something else than ${this.kind.name.replace(/^the /, 'a ')}`)
    return { entries: entries as Entry[], until: body.until, more: body.more === true }
  }

  /** Whether the feed was read recently enough to be trusted. */
  get fresh(): boolean {
    return this.monotonic() - this.lastRead < FEED_STALE_MS
  }

  /** Resolves after the next successful read (tests). */
  nextRead(): Promise<void> {
    return new Promise((resolve) => this.once('read', () => resolve()))
  }

  /** Starts polling and resolves once the first read succeeded or failed, or after `boundMs`. */
  async startAndWait(boundMs = 2_000): Promise<void> {
    const attempted = new Promise<void>((resolve) => this.once('attempt', () => resolve()))
    this.start()
    await Promise.race([attempted, new Promise<void>((resolve) => setTimeout(resolve, boundMs).unref())])
  }
}
