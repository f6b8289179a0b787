import { EventEmitter } from 'node:events'
import { request } from 'undici'
import type { FastifyBaseLogger } from 'fastify'
import { Failover, splitCoreUrls } from './core-urls.ts'

// The revocation list (issue 17 §4, decision 009). The API and the BFF check access tokens
// without calling the auth core, so a session ended early (sign-out, password reset, account
// deleted) would keep working until its token expires. Each instance polls the core's list of
// ended sessions twice a second and refuses their tokens from memory: within a second on every
// instance, with no core call per request. If the list cannot be refreshed for a while, the
// instance can no longer tell, and says so (`fresh` false: callers answer 503, never let a
// possibly-revoked token through).

/** How often the list is read from the core. */
export const REVOCATION_POLL_MS = 500
/** Past this without a successful read the list is stale. */
export const REVOCATION_STALE_MS = 10_000
/** Each read starts this far before the newest revocation seen: a revocation may commit late. */
const OVERLAP_MS = 15_000

export interface RevokedSessionsOptions {
  /** AUTH_CORE_URL's form: one core, or several on one database separated by ";" (the next is asked when one fails). */
  coreUrl: string
  apiKey: string | undefined
  log?: FastifyBaseLogger
  /** Wall clock, for the entries' expiry (the core's ms). */
  now?: () => number
  /** Monotonic clock, for the list's age: a wall clock set forward must not make it stale. */
  monotonic?: () => number
  pollMs?: number
}

interface Page {
  revoked: Array<{ sessionHandle: string; expiresAt: number }>
  until: number
  more: boolean
}

export class RevokedSessions extends EventEmitter {
  private readonly handles = new Map<string, number>()
  private since = 0
  private lastRead = Number.NEGATIVE_INFINITY
  private timer: NodeJS.Timeout | undefined
  private stopped = true
  private failing = false
  private readonly now: () => number
  private readonly monotonic: () => number
  private readonly cores: Failover<string>

  constructor(private readonly options: RevokedSessionsOptions) {
    super()
    this.cores = new Failover(splitCoreUrls(options.coreUrl))
    this.now = options.now ?? (() => Date.now())
    this.monotonic = options.monotonic ?? (() => performance.now())
  }

  /** Reads the list now and then every REVOCATION_POLL_MS until stop(). */
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
    this.timer = setTimeout(() => void this.loop(), this.options.pollMs ?? REVOCATION_POLL_MS)
    this.timer.unref()
  }

  /** One read of the core's list (all pages of it). */
  async read(): Promise<void> {
    try {
      for (let pages = 0; pages < 100; pages++) {
        // Every core on the database keeps the same list: a page may come from any of them.
        const page = await this.cores.attempt((base) => this.fetchPage(base))
        for (const { sessionHandle, expiresAt } of page.revoked) this.handles.set(sessionHandle, expiresAt)
        // Past a full page, the next starts where it ended; otherwise a little before, for late commits.
        this.since = page.more ? page.until : Math.max(this.since, page.until - OVERLAP_MS)
        if (!page.more) break
      }
      this.lastRead = this.monotonic()
      this.sweep()
      if (this.failing) this.options.log?.info('the session revocation list is readable again')
      this.failing = false
      this.emit('read')
    } catch (error) {
      if (!this.failing) this.options.log?.warn({ err: error }, 'the session revocation list cannot be read from the auth core')
      this.failing = true
      throw error
    }
  }

  private async fetchPage(base: string): Promise<Page> {
    const url = `${base}/recipe/session/revoked?since=${this.since}`
    const response = await request(url, {
      headers: { 'cdi-version': '5.4', ...(this.options.apiKey ? { 'api-key': this.options.apiKey } : {}) },
      headersTimeout: 2_000,
      bodyTimeout: 2_000,
    })
    if (response.statusCode !== 200) {
      await response.body.dump()
      throw new Error(`the auth core answered ${response.statusCode}`)
    }
    const body = (await response.body.json()) as Partial<Page> & { status?: string }
    if (body.status !== 'OK' || !Array.isArray(body.revoked) || typeof body.until !== 'number') throw new Error('the auth core answered something else than a revocation list')
    return { revoked: body.revoked, until: body.until, more: body.more === true }
  }

  private sweep(): void {
    const now = this.now()
    for (const [handle, expiresAt] of this.handles) if (expiresAt <= now) this.handles.delete(handle)
  }

  /** This instance ended the session itself: refused at once, before the next read. */
  add(sessionHandle: string, expiresAt: number): void {
    this.handles.set(sessionHandle, expiresAt)
  }

  isRevoked(sessionHandle: string): boolean {
    const expiresAt = this.handles.get(sessionHandle)
    return expiresAt !== undefined && expiresAt > this.now()
  }

  /** Whether the list was read recently enough to be trusted. */
  get fresh(): boolean {
    return this.monotonic() - this.lastRead < REVOCATION_STALE_MS
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
