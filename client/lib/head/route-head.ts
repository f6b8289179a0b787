import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { useMatches } from 'react-router'
import { useClientConfig } from '../client-config.tsx'

// The browser's half of the page head (client/lib/head/head.ts): the server wrote the first one, so the
// code that builds and applies a head loads with the first change, never before hydration.

const loadHead = () => Promise.all([import('./head.ts'), import('../../page-heads.ts')])

function reportFailure(error: unknown): void {
  // A head left as it was is no reason to stop the page (a new release's chunks are reloaded by the
  // router's own error handling at the next navigation).
  console.warn('[softshelf] the page head was not updated', error)
}

/** Keeps the document's head in step with the matched route after each navigation or language change. */
export function useRouteHead(): void {
  const matches = useMatches()
  const { t, i18n } = useTranslation()
  const config = useClientConfig()
  const serverWroteIt = useRef(true)
  useEffect(() => {
    // The first run is the page the server rendered, with the head it wrote.
    if (serverWroteIt.current) {
      serverWroteIt.current = false
      return
    }
    let current = true
    const pathname = matches[matches.length - 1]?.pathname ?? '/'
    const language = i18n.language
    loadHead().then(([head, { pageHeads }]) => {
      if (!current) return
      const built = head.routeHead(matches, pageHeads, t, config.appUrl, config.logosVersion)
      // null: the page errored, and its error page sets the head.
      if (built === null) return
      head.applyHead(head.resolveHead(built, { t, appUrl: config.appUrl, pathname, locale: language }))
    }, reportFailure)
    return () => {
      current = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new match list or language is a new head
  }, [matches, i18n.language])
}

/** Error pages set their head themselves: their route has no data to build one from. */
export function useErrorHead(status: number): void {
  const { t, i18n } = useTranslation()
  const config = useClientConfig()
  useEffect(() => {
    let current = true
    const pathname = window.location.pathname
    import('./head.ts').then((head) => {
      if (current) head.applyHead(head.resolveHead(head.errorHead(status), { t, appUrl: config.appUrl, pathname, locale: i18n.language }))
    }, reportFailure)
    return () => {
      current = false
    }
  }, [status, t, config.appUrl, i18n.language])
}
