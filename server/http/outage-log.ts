import type { ReachabilityListener } from '../db/reachability.ts'

// An outage of something a service depends on (its database, above all) is logged
// once, at warn, when it begins, and once, at info, when it ends — not once per request that
// failed because of it (PostgreSQL stopped for 20 s wrote about 6,000 error lines). Requests
// still get their access-log line, with their 503.
//
// The rule, one state machine per service and dependency:
// - up → a failure: the outage begins. Warn "<what> unreachable" with the cause code.
// - during it, failures are counted, nothing is written.
// - the first success ends it. Info "<what> reachable again" with how long it lasted and how
//   many calls failed.
// - a failure less than FLAP_MS after that end is the same outage flapping (a server coming back
//   refuses or drops a few connections as it starts): not written. A failure FLAP_MS or more
//   after the end was not a flap: it begins a new outage, logged as one. So a database that flaps
//   for a few seconds as it comes back is one warn and one info line, and one that keeps failing
//   is never silent for more than FLAP_MS.

/** How long after an outage ends a failure still counts as that outage flapping. */
export const FLAP_MS = 5_000

/** The lines the outage log writes (pino's, as every service's logger). */
export interface OutageLogger {
  warn(fields: Record<string, unknown>, message: string): void
  info(fields: Record<string, unknown>, message: string): void
}

interface Outage {
  since: number
  failures: number
}

export class OutageLog implements ReachabilityListener {
  private outage: Outage | null = null
  /** When the last outage ended: failures soon after are that outage flapping. */
  private endedAt: number | null = null

  /**
   * @param what the dependency, as the lines name it: "database", "product API", "auth core"
   * @param now the clock (tests move it)
   * @param effect what the outage means for callers, said on each line ("rate limits count per
   *   instance" / "rate limits are shared again"), when the service carries on without `what`
   */
  constructor(
    private readonly log: OutageLogger,
    private readonly what: string,
    private readonly now: () => number = Date.now,
    private readonly effect?: { down: string; back: string },
  ) {}

  /** Whether an outage is going on (begun and not yet ended). */
  get down(): boolean {
    return this.outage !== null
  }

  /** A call failed because `what` could not be reached; `cause` is a short code (ECONNREFUSED, 57P01, HTTP 503). */
  unreachable(cause: string): void {
    const now = this.now()
    if (this.outage) {
      this.outage.failures += 1
      return
    }
    if (this.endedAt !== null && now - this.endedAt < FLAP_MS) return
    this.outage = { since: now, failures: 1 }
    this.endedAt = null
    this.log.warn({ outage: this.what, cause }, this.effect ? `${this.what} unreachable: ${this.effect.down}` : `${this.what} unreachable`)
  }

  /** A call reached `what`. */
  reached(): void {
    const outage = this.outage
    if (!outage) return
    const now = this.now()
    this.outage = null
    this.endedAt = now
    const message = this.effect ? `${this.what} reachable again: ${this.effect.back}` : `${this.what} reachable again`
    this.log.info({ outage: this.what, downMs: now - outage.since, failures: outage.failures }, message)
  }
}

/**
 * Work that runs on a timer (the mail outbox's rounds, the account-deletion sweep, readiness
 * probes) and fails for another reason than an outage: one warn line, with the error,
 * when a run of failures begins, and one info line when the work next succeeds, with how many runs
 * failed. The runs in between write nothing, so a fault that lasts writes two lines, not one per poll.
 */
export class RepeatedFailureLog {
  private failures = 0

  /** @param what the work, as the lines name it: "the mail outbox", "the account-deletion sweep" */
  constructor(
    private readonly log: OutageLogger,
    private readonly what: string,
    private readonly fields: Record<string, unknown> = {},
  ) {}

  /** A run failed; `message` says so on the first of a series. */
  failed(err: unknown, message: string): void {
    this.failures += 1
    if (this.failures === 1) this.log.warn({ ...this.fields, err }, message)
  }

  /** A run succeeded. */
  succeeded(): void {
    if (this.failures === 0) return
    this.log.info({ ...this.fields, failures: this.failures }, `${this.what} works again`)
    this.failures = 0
  }
}
