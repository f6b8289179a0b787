// Whether this browser may hold a session, and who hears when it ends: the part of sessions both
// the SDK (auth.ts) and every page's bundle use, so neither imports the other.

/** The front token the browser SDK keeps (spec §3 "Local session presence" EXISTS). */
export function hasLocalSession(): boolean {
  return typeof document !== 'undefined' && /(?:^|;\s*)sFrontToken=[^;]/.test(document.cookie)
}

const signOutListeners = new Set<() => void>()

/** Runs `listener` when the session ends (this tab, another tab, or expired); returns the unsubscribe. */
export function onSignedOut(listener: () => void): () => void {
  signOutListeners.add(listener)
  return () => signOutListeners.delete(listener)
}

export function notifySignedOut(): void {
  for (const listener of signOutListeners) listener()
}
