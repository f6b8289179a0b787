// /readyz of every service is exempt from rate limits (probes must never be refused), so its
// answer is kept for a moment: however often it is asked, the database and the services behind it
// see one probe a second. A failure is kept as long as a success, or a flood of probes during an
// outage would pile onto whatever is already struggling.

/** How long a readiness answer is kept. */
export const READINESS_CACHE_MS = 1_000

export type Readiness = { ok: true } | { ok: false; reason: string }

/** The last answer of `check`, kept for `ttlMs`; callers arriving while it runs share one check. */
export class ReadinessCache {
  private kept: { answer: Readiness; until: number } | undefined
  private pending: Promise<Readiness> | undefined

  constructor(
    private readonly check: () => Promise<Readiness>,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = READINESS_CACHE_MS,
  ) {}

  async get(): Promise<Readiness> {
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
