import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * An AsyncLocalStorage that is switched off whenever no call chain is running in it.
 *
 * On Node 20 (the engines floor), an AsyncLocalStorage that has run once makes Node call a hook for
 * every promise the process creates from then on — about 13 µs of a cached answer's ~100 in role
 * `all` (docs/BENCHMARKS.md, "What /api/version pays for") — though the transaction guard and the
 * upload store need their storage only while a transaction or an upload request runs. Node 24's
 * storage (AsyncContextFrame) has no such hook; switching it off costs nothing there.
 *
 * What a caller gives up: work a finished `run` left behind (a timer, an unawaited promise) may read
 * `undefined` instead of the finished run's store, so a store must not mean anything once its `run`
 * has returned (the guard marks its transaction closed; the upload store is read only inside).
 */
export class IdleAsyncScope<T> {
  readonly #storage = new AsyncLocalStorage<T>()
  #running = 0

  /** Runs `body` with `store` as its call chain's; the storage is off again once no run is in progress. */
  async run<R>(store: T, body: () => Promise<R>): Promise<R> {
    this.#running++
    try {
      return await this.#storage.run(store, body)
    } finally {
      if (--this.#running === 0) this.#storage.disable()
    }
  }

  /** The store of the run the caller is in, if one is in progress. */
  getStore(): T | undefined {
    return this.#storage.getStore()
  }

  /** How many runs are in progress (for tests). */
  get running(): number {
    return this.#running
  }
}
