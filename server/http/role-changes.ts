import { CoreFeed, FEED_STALE_MS, type CoreFeedOptions } from './core-feed.ts'

// The role-change feed (decision 028), read like the revocation list (decision 009).
// The roles and permissions an access token carries (`st-role`, `st-perm`) were read from the
// auth core when the claim was set (its `t`); a role granted or taken away since would go
// unnoticed until the next sign-in. Each instance polls the core's feed of the users whose roles
// changed twice a second and keeps, per user, the time of the latest change: a claim read before
// it is stale, and the caller reads the user's roles again (the BFF into the token, the API from
// the core). If the feed cannot be read for a while the instance can no longer tell, and says so
// (`fresh` false: the checks that depend on it answer 503, never a possibly-taken-away role).

/** Past this without a successful read the feed is stale. */
export const ROLE_CHANGES_STALE_MS = FEED_STALE_MS
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

export type RoleChangesOptions = CoreFeedOptions

export class RoleChanges extends CoreFeed<{ userId: string; changedAt: number }> {
  private readonly changes = new Map<string, number>()

  constructor(options: RoleChangesOptions) {
    super(options, { path: '/recipe/user/roles/changed', listField: 'changed', name: 'the role-change feed' })
  }

  protected take(entries: Array<{ userId: string; changedAt: number }>): void {
    for (const { userId, changedAt } of entries) {
      const known = this.changes.get(userId)
      if (known === undefined || changedAt > known) {
        this.changes.set(userId, changedAt)
        this.emit('change', userId, changedAt)
      }
    }
  }

  /** A change older than any claim still used (ROLE_CLAIM_MAX_AGE_MS) tells nothing more. */
  protected sweep(): void {
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
}
