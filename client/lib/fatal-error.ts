import { useSyncExternalStore } from 'react'
import { isBotUserAgent } from '../../shared/bots.ts'

// Spec §8: only fatal or unhandled errors open the error page, and never for crawlers and bots,
// whose errors are only reported.

let fatal: unknown = null
const listeners = new Set<() => void>()

export function reportError(error: unknown): void {
  console.error('[softshelf] unhandled error', error)
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
