import { useEffect, useSyncExternalStore } from 'react'
import { isRouteErrorResponse } from 'react-router'
import { isBotUserAgent } from '../../../shared/web/bots.ts'
import { reportToTracker } from './report.ts'

// Spec §8: only fatal or unhandled errors open the error page, and never for crawlers and bots,
// whose errors are only reported. Reported means logged, and sent to the error tracker when
// SENTRY_DSN is set — for bots too.

let fatal: unknown = null
const listeners = new Set<() => void>()

export function reportError(error: unknown): void {
  console.error('[softshelf] unhandled error', error)
  void reportToTracker(error)
}

/**
 * An error React recovered from by itself (hydrateRoot's onRecoverableError): the page is whole, so
 * it is reported but opens nothing. The common one is a part of the shell hydrated after the page
 * (the consent banner, the toasts: their own Suspense boundaries, which React hydrates after the
 * page is interactive) when the visitor changed something it shows in between, such as the
 * language: React renders that part afresh in the new language. Before, React's default passed it
 * to window.reportError, and the window's error listener opened the error page over a working page.
 */
export function reportRecoveredError(error: unknown, componentStack?: string): void {
  console.error('[softshelf] recovered from an error', error, componentStack ?? '')
  void reportToTracker(error)
}

export function openFatalError(error: unknown, userAgent: string = navigator.userAgent): void {
  reportError(error)
  if (isBotUserAgent(userAgent)) return
  fatal = error ?? new Error('Unknown error')
  for (const listener of listeners) listener()
}

export function useFatalError(): unknown {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => fatal,
    () => null,
  )
}

/**
 * In a route's error boundary: an exception (a render or loader that threw) is reported; a
 * deliberate answer such as a 404 or the API's 503 is not an error of the page.
 */
export function useReportRouteError(error: unknown): void {
  useEffect(() => {
    if (error != null && !isRouteErrorResponse(error)) reportError(error)
  }, [error])
}
