import { CoreFeed, FEED_STALE_MS, type CoreFeedOptions } from './core-feed.ts'

// The revocation list (decision 009). The API and the BFF check access tokens
// without calling the auth core, so a session ended early (sign-out, password reset, account
// deleted) would keep working until its token expires. Each instance polls the core's list of
// ended sessions twice a second and refuses their tokens from memory: within a second on every
// instance, with no core call per request. If the list cannot be refreshed for a while, the
// instance can no longer tell, and says so (`fresh` false: callers answer 503, never let a
// possibly-revoked token through).

/** Past this without a successful read the list is stale. */
export const REVOCATION_STALE_MS = FEED_STALE_MS

export type RevokedSessionsOptions = CoreFeedOptions

export class RevokedSessions extends CoreFeed<{ sessionHandle: string; expiresAt: number }> {
  private readonly handles = new Map<string, number>()

  constructor(options: RevokedSessionsOptions) {
    super(options, { path: '/recipe/session/revoked', listField: 'revoked', name: 'the session revocation list' })
  }

  protected take(entries: Array<{ sessionHandle: string; expiresAt: number }>): void {
    for (const { sessionHandle, expiresAt } of entries) this.handles.set(sessionHandle, expiresAt)
  }

  protected sweep(): void {
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
}
