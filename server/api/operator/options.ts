import type { coreAccounts } from '../users/core-accounts.ts'
import type { FeedSync } from '../catalogue/feeds/sync.ts'
import type { SessionGuard } from '../session-guard.ts'
import type { CurrentRoles } from './guard.ts'

// What every operator route module is given: index.ts registers them with it.

export interface OperatorRoutesOptions {
  guard: SessionGuard
  /** The auth core's accounts (core-accounts.ts). */
  core: ReturnType<typeof coreAccounts>
  /** The accounts' roles now (the token's claims while current, else the core's). */
  roles: CurrentRoles
  /** The clock; tests move it. */
  now: () => number
  /** The catalogue feeds: their passes, and what they read. */
  feeds: FeedSync
}
