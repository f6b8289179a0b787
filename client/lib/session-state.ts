import type { PageSession, SessionState } from '../../shared/session.ts'

// The light side of sessions, in every page's bundle: whether this browser may hold a session,
// and the loaders' session state. The SDK itself (lib/auth.ts, ~50 kB) loads only when a session
// exists or an account page needs it, so a visitor's catalogue pages stay small.

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

interface SessionContext {
  session?: PageSession
}

/** The state for a loader: what the BFF read while rendering on the server, the SDK's in the browser. */
export async function sessionState(context: unknown): Promise<SessionState> {
  const fromServer = (context as SessionContext | undefined)?.session
  if (fromServer) return fromServer.state
  if (!hasLocalSession()) return 'LOGGED_OUT'
  const auth = await import('./auth.ts')
  return auth.browserSessionState()
}
