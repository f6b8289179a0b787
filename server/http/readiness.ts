import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/database.ts'
import { isDatabaseUnreachable } from '../db/reachability.ts'
import { RepeatedFailureLog } from './outage-log.ts'

// /readyz of every service is exempt from rate limits (probes must never be refused), so its
// probes' answer is kept for a moment: however often it is asked, the database and the services
// behind it see one probe a second. A failure is kept as long as a success, or a flood of probes during an
// outage would pile onto whatever is already struggling.

/** How long a readiness answer is kept. */
export const READINESS_CACHE_MS = 1_000

/** The last answer of `check`, kept for `ttlMs`; callers arriving while it runs share one check. */
export class ReadinessCache<T> {
  private kept: { answer: T; until: number } | undefined
  private pending: Promise<T> | undefined

  constructor(
    private readonly check: () => Promise<T>,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = READINESS_CACHE_MS,
  ) {}

  async get(): Promise<T> {
    if (this.kept && this.kept.until > this.now()) return this.kept.answer
    this.pending ??= this.check()
      .then((answer) => {
        this.kept = { answer, until: this.now() + this.ttlMs }
        return answer
      })
      .finally(() => {
        this.pending = undefined
      })
    return this.pending
  }
}

// What /readyz answers. Readiness says whether THIS instance should be sent traffic.
// An outage every instance shares — the database, the product API, the auth core — is not a
// reason: a load balancer that took every instance out at once answered its own bare 503 page
// (no code, no Retry-After) instead of the instances' own 503 with both, and took seconds of
// health checks to put them back once the outage ended. So the dependencies are reported in the
// body for operators (`dependencies`), and only the instance's own state fails the probe: it
// has been told to stop (server/http/shutdown.ts, stopServices), so the balancer sends its
// traffic elsewhere before it drains.

/** How a dependency looked at the last probe. */
export type DependencyState = 'ok' | 'unreachable'

/** The body of a /readyz that answers 200. */
export interface ReadyReport<Name extends string = string> {
  status: 'ok'
  dependencies: Record<Name, DependencyState>
}

/** Whether this instance takes traffic: from its start until it is told to stop. */
export class InstanceReadiness<Name extends string = string> {
  private told = false
  private readonly probes: ReadinessCache<Record<Name, DependencyState>>

  /** `probes`: the shared dependencies, by name, each resolving to what it found. */
  constructor(probes: Record<Name, () => Promise<DependencyState>>, now: () => number = Date.now) {
    this.probes = new ReadinessCache(async () => {
      const names = Object.keys(probes) as Name[]
      const states = await Promise.all(names.map((name) => probes[name]()))
      return Object.fromEntries(names.map((name, i) => [name, states[i]])) as Record<Name, DependencyState>
    }, now)
  }

  /** From now on /readyz fails; everything else is still served (the drain begins later). */
  stop(): void {
    this.told = true
  }

  get stopping(): boolean {
    return this.told
  }

  /** The report of a ready instance, or undefined once it is stopping. */
  async report(): Promise<ReadyReport<Name> | undefined> {
    if (this.stopping) return undefined
    return { status: 'ok', dependencies: await this.probes.get() }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** /readyz's view of this instance; stopServices stops it before the service closes. */
    readiness?: InstanceReadiness
  }
}

/**
 * The probe of a service's database: 'unreachable' when a trivial query fails. An outage is the
 * outage log's to tell, once; anything else (a database that answers but refuses) is
 * a warning here.
 */
export function databaseProbe(db: Pick<Database, 'query'>, log: Pick<FastifyBaseLogger, 'warn' | 'info'>): () => Promise<DependencyState> {
  // Probed every second while it lasts: one line when it begins, one when it ends.
  const failures = new RepeatedFailureLog(log, 'readiness: the database')
  return async () => {
    try {
      await db.query('SELECT 1')
      failures.succeeded()
      return 'ok'
    } catch (err) {
      if (!isDatabaseUnreachable(err)) failures.failed(err, 'readiness: database not usable')
      return 'unreachable'
    }
  }
}
