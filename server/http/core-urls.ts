// AUTH_CORE_URL names one auth core or several, separated by ";" as supertokens-node's
// connectionURI takes them. Several cores on one database answer alike (same users, sessions,
// signing keys and revocation list), so a caller that cannot reach one may ask the next.

/** The entries of an AUTH_CORE_URL value, without trailing slashes; blanks between ";" are ignored. */
export function splitCoreUrls(value: string): string[] {
  return value
    .split(';')
    .map((url) => url.trim().replace(/\/+$/, ''))
    .filter((url) => url !== '')
}

/**
 * One of several equivalent things (a core's URL, a JWKS reader per core) for each call: it starts
 * with the one that answered last, so a dead core costs one refused connection once rather than on
 * every call, and tries the others in turn while `fallOver` says the failure was that one's.
 */
export class Failover<T> {
  private preferred = 0

  constructor(readonly items: readonly T[]) {
    if (items.length === 0) throw new Error('Failover needs at least one item')
  }

  async attempt<R>(call: (item: T) => Promise<R>, fallOver: (error: unknown) => boolean = () => true): Promise<R> {
    let lastError: unknown
    for (let tried = 0; tried < this.items.length; tried++) {
      const index = (this.preferred + tried) % this.items.length
      try {
        const result = await call(this.items[index]!)
        this.preferred = index
        return result
      } catch (error) {
        lastError = error
        if (!fallOver(error)) throw error
      }
    }
    throw lastError
  }
}
