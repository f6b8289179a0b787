/**
 * Keeps one value per key for a short time and lets concurrent callers share one in-flight load.
 * Every open tab polls /api/version every 6 s; with this the API sees at most one call a second
 * per BFF instance, however many tabs are open. Bounded: past `maxEntries` the oldest entry goes.
 */
export class MicroCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>()
  private readonly inflight = new Map<string, Promise<T>>()

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 1_000,
  ) {}

  /** A live value, if there is one; never loads. */
  peek(key: string): T | undefined {
    const entry = this.entries.get(key)
    return entry && entry.expires > this.now() ? entry.value : undefined
  }

  /** Keeps a value made elsewhere, for the cache's TTL or `ttlMs` if shorter. */
  put(key: string, value: T, ttlMs = this.ttlMs): void {
    const ttl = Math.min(ttlMs, this.ttlMs)
    this.entries.delete(key)
    if (ttl <= 0) return
    this.entries.set(key, { value, expires: this.now() + ttl })
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
  }

  /**
   * Drops a key's value, and any load already under way is not kept when it ends: the next
   * caller loads afresh. For a value the caller knows has just changed.
   */
  forget(key: string): void {
    this.entries.delete(key)
    this.inflight.delete(key)
  }

  /**
   * `keepFor` says whether (true: the cache's TTL) or for how many milliseconds (a number; 0 or
   * less: not at all) a loaded value may be kept.
   */
  async get(key: string, load: () => Promise<T>, keepFor: (value: T) => boolean | number = () => true): Promise<T> {
    const live = this.peek(key)
    if (live !== undefined) return live
    const pending = this.inflight.get(key)
    if (pending) return pending
    const promise: Promise<T> = load()
      .then((value) => {
        // Not kept when forgotten while it loaded (forget): it may be older than the change.
        if (this.inflight.get(key) !== promise) return value
        const keep = keepFor(value)
        this.put(key, value, keep === true ? this.ttlMs : keep === false ? 0 : keep)
        return value
      })
      .finally(() => {
        if (this.inflight.get(key) === promise) this.inflight.delete(key)
      })
    this.inflight.set(key, promise)
    return promise
  }
}
