import { EventEmitter } from 'node:events'
import { request } from 'undici'
import type { FastifyBaseLogger } from 'fastify'
import { Failover, splitCoreUrls } from './core-urls.ts'

// The role-change feed (issue 28, decision 028), read like the revocation list (decision 009).
// The roles and permissions an access token carries (`st-role`, `st-perm`) were read from the
// auth core when the claim was set (its `t`); a role granted or taken away since would go
// unnoticed until the next sign-in. Each instance polls the core's feed of the users whose roles
// changed twice a second and keeps, per user, the time of the latest change: a claim read before
// it is stale, and the caller reads the user's roles again (the BFF into the token, the API from
// the core). If the feed cannot be read for a while the instance can no longer tell, and says so
// (`fresh` false: the checks that depend on it answer 503, never a possibly-taken-away role).

/** How often the feed is read from the core. */
export const ROLE_CHANGES_POLL_MS = 500
/** Past this without a successful read the feed is stale. */
export const ROLE_CHANGES_STALE_MS = 10_000
/** Each read starts this far before the newest change seen: a change may commit late. */
const OVERLAP_MS = 15_000
/**
 * A claim read longer ago than this is read again whatever the feed says: the core keeps a day
 * of changes, and an instance only knows those since it started, while a session's claims are
 * carried from refresh to refresh.
 */
export const ROLE_CLAIM_MAX_AGE_MS = 60 * 60_000
/**
 * A change is stamped when the core writes it and commits a moment later: roles read within this
 * after a change may not have seen it, and are read again.
 */
export const ROLE_COMMIT_MARGIN_MS = 1_000

export interface RoleChangesOptions {
  /** AUTH_CORE_URL's form: one core, or several on one database separated by ";". */
  coreUrl: string
  apiKey: string | undefined
  log?: FastifyBaseLogger
  /** Wall clock (the claims' `t` and the feed's times are the core's and the BFF's ms). */
  now?: () => number
  /** Monotonic clock, for the feed's age: a wall clock set forward must not make it stale. */
  monotonic?: () => number
  pollMs?: number
}

interface Page {
  changed: Array<{ userId: string; changedAt: number }>
  until: number
  more: boolean
}

export class RoleChanges extends EventEmitter {
  private readonly changes = new Map<string, number>()
  private since = 0
  private lastRead = Number.NEGATIVE_INFINITY
  private timer: NodeJS.Timeout | undefined
  private stopped = true
  private failing = false
  private readonly now: () => number
  private readonly monotonic: () => number
  private readonly cores: Failover<string>

  constructor(private readonly options: RoleChangesOptions) {
    super()
    this.cores = new Failover(splitCoreUrls(options.coreUrl))
    this.now = options.now ?? (() => Date.now())
    this.monotonic = options.monotonic ?? (() => performance.now())
  }

  /** Reads the feed now and then every ROLE_CHANGES_POLL_MS until stop(). */
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
    this.timer = setTimeout(() => void this.loop(), this.options.pollMs ?? ROLE_CHANGES_POLL_MS)
    this.timer.unref()
  }

  /** One read of the core's feed (all pages of it). */
  async read(): Promise<void> {
    try {
      for (let pages = 0; pages < 100; pages++) {
        const page = await this.cores.attempt((base) => this.fetchPage(base))
        for (const { userId, changedAt } of page.changed) {
          const known = this.changes.get(userId)
          if (known === undefined || changedAt > known) {
            this.changes.set(userId, changedAt)
            this.emit('change', userId, changedAt)
          }
        }
        this.since = page.more ? page.until : Math.max(this.since, page.until - OVERLAP_MS)
        if (!page.more) break
      }
      this.lastRead = this.monotonic()
      this.sweep()
      if (this.failing) this.options.log?.info('the role-change feed is readable again')
      this.failing = false
      this.emit('read')
    } catch (error) {
      if (!this.failing) this.options.log?.warn({ err: error }, 'the role-change feed cannot be read from the auth core')
      this.failing = true
      throw error
    }
  }

  private async fetchPage(base: string): Promise<Page> {
    const url = `${base}/recipe/user/roles/changed?since=${this.since}`
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
    if (body.status !== 'OK' || !Array.isArray(body.changed) || typeof body.until !== 'number') throw new Error('the auth core answered something else than a role-change feed')
    return { changed: body.changed, until: body.until, more: body.more === true }
  }

  /** A change older than any claim still used (ROLE_CLAIM_MAX_AGE_MS) tells nothing more. */
  private sweep(): void {
    const horizon = this.now() - ROLE_CLAIM_MAX_AGE_MS
    for (const [userId, changedAt] of this.changes) if (changedAt < horizon) this.changes.delete(userId)
  }

  /** When the user's roles (or their roles' permissions) last changed, as far as this instance knows. */
  changedAt(userId: string): number | undefined {
    return this.changes.get(userId)
  }

  /** This instance changed the user's roles itself: claims read before now are stale at once. */
  add(userId: string, changedAt = this.now()): void {
    const known = this.changes.get(userId)
    if (known === undefined || changedAt > known) this.changes.set(userId, changedAt)
  }

  /**
   * Whether roles read from the core at `readAt` (a claim's `t`, ms) may still be used: none of
   * the user's changes came at or after it, and it is no older than ROLE_CLAIM_MAX_AGE_MS (the
   * feed, a day long at the core, then surely holds every change since).
   */
  isCurrent(userId: string, readAt: number | undefined): boolean {
    if (readAt === undefined) return false
    if (this.now() - readAt > ROLE_CLAIM_MAX_AGE_MS) return false
    const changed = this.changes.get(userId)
    return changed === undefined || changed + ROLE_COMMIT_MARGIN_MS < readAt
  }

  /** Whether the feed was read recently enough to be trusted. */
  get fresh(): boolean {
    return this.monotonic() - this.lastRead < ROLE_CHANGES_STALE_MS
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
