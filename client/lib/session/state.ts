import type { PageSession, SessionState } from '../../../shared/auth/session.ts'
import { hasLocalSession } from './presence.ts'

// The loaders' session state, in every page's bundle. The SDK itself (auth.ts, ~50 kB) loads
// only when a session exists or an account page needs it, so a visitor's catalogue pages stay small.

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
