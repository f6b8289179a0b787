import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { POLLING_EXCLUDED_PREFIXES } from '../../../shared/constants.ts'
import type { VersionWatchState } from './version-watch.ts'

/** Spec §2: no maintenance and version polling on /streaming and /sharing. */
export function isPollingExcluded(pathname: string): boolean {
  return POLLING_EXCLUDED_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`))
}

/**
 * Polls /api/version on mount and every 6 s (spec §4, §9), except on /streaming and /sharing.
 * The polling (version-polling.ts) loads after the mount, outside the page's first JS.
 * `renderedVersion`: the version the page was rendered with (the root loader's, in its footer) —
 * the first version this tab saw, so a deploy between the page's load and the first poll, which
 * comes only once the polling's code has loaded, is announced too.
 */
export function useVersionPolling(pathname: string, renderedVersion: string | null): void {
  const { t, i18n } = useTranslation()
  const state = useRef<VersionWatchState>({ firstVersion: renderedVersion, versionNoticeShown: false })
  const excluded = isPollingExcluded(pathname)

  useEffect(() => {
    if (excluded) return
    let stop: (() => void) | undefined
    let cancelled = false
    import('./version-polling.ts').then(
      ({ startVersionPolling }) => {
        if (!cancelled) stop = startVersionPolling(state, t, i18n)
      },
      // Like a failed poll (spec §7): only logged.
      (error: unknown) => console.warn('version check failed', error),
    )
    return () => {
      cancelled = true
      stop?.()
    }
  }, [excluded, t, i18n])
}
