import { useEffect, useSyncExternalStore } from 'react'
import { apiResponse } from '../../lib/api.ts'

// GET /api/user/security, read once for the whole profile page: the password section
// and the authenticator section both depend on it, and a change in one (an authenticator removed)
// reloads it for both. Read in the browser after the page shows, like the device list: the server
// renders pages against the product API, which does not know the account's sign-in methods.

export interface SecuritySummary {
  email: string | null
  hasPassword: boolean
  totp: { enabled: boolean; devices: Array<{ name: string }> }
  recoveryCodes: { remaining: number }
}

export type SummaryState = SecuritySummary | 'loading' | 'failed'

let state: SummaryState = 'loading'
let inflight: Promise<void> | null = null
const listeners = new Set<() => void>()

function publish(next: SummaryState): void {
  state = next
  for (const listener of listeners) listener()
}

/** Reads the summary again; callers on the page share one request. */
export function reloadSecuritySummary(): Promise<void> {
  inflight ??= (async () => {
    const response = await apiResponse(undefined, '/api/user/security').catch(() => null)
    publish(response?.status === 200 && response.body !== null && typeof response.body === 'object' ? (response.body as SecuritySummary) : 'failed')
  })().finally(() => {
    inflight = null
  })
  return inflight
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** The account's security summary; loaded afresh when a page using it mounts (never another account's from earlier). */
export function useSecuritySummary(): SummaryState {
  const value = useSyncExternalStore(subscribe, () => state, () => 'loading' as const)
  useEffect(() => {
    if (!inflight) publish('loading')
    void reloadSecuritySummary()
  }, [])
  return value
}
