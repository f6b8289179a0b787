/**
 * Keeps one value per key for a short time and lets concurrent callers share one in-flight load.
 * Every open tab polls /api/version every 6 s; with this the API sees at most one call a second
 * per BFF instance, however many tabs are open.
 */
export class MicroCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>()
  private readonly inflight = new Map<string, Promise<T>>()

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string, load: () => Promise<T>, shouldCache: (value: T) => boolean = () => true): Promise<T> {
    const entry = this.entries.get(key)
    if (entry && entry.expires > this.now()) return entry.value
    const pending = this.inflight.get(key)
    if (pending) return pending
    const promise = load()
      .then((value) => {
        if (shouldCache(value)) this.entries.set(key, { value, expires: this.now() + this.ttlMs })
        else this.entries.delete(key)
        return value
      })
      .finally(() => this.inflight.delete(key))
    this.inflight.set(key, promise)
    return promise
  }
}
