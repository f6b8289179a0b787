import { useEffect } from 'react'
import { Outlet, UNSAFE_useScrollRestoration as useScrollRestoration, useLocation, useRouteError, useRouteLoaderData, type LoaderFunctionArgs } from 'react-router'
import type { VersionResponse } from '../shared/types.ts'
import { ConsentBanner, ErrorPage, Toaster } from './components/shell-parts.tsx'
import { apiGet } from './lib/api.ts'
import { isChunkLoadError, reloadAfterChunkError } from './lib/notices/chunk-reload.ts'
import { openFatalError, useFatalError, useReportRouteError } from './lib/error-reporting/fatal-error.ts'
import { useRouteHead } from './lib/head/route-head.ts'
import { useChatWidget } from './lib/support/use-chat-widget.ts'
import { useVersionPolling } from './lib/notices/use-version-polling.ts'

export interface RootData {
  version: string
}

/** Every page needs the API: when it is down the page answers 503 with the error page. */
export async function rootLoader({ context, request }: LoaderFunctionArgs): Promise<RootData> {
  const body = await apiGet<VersionResponse>(context, '/api/version', request.signal)
  return { version: body.version }
}

function useGlobalErrorHandlers(): void {
  useEffect(() => {
    const onPreloadError = (event: Event) => {
      event.preventDefault()
      reloadAfterChunkError()
    }
    const onError = (event: ErrorEvent) => {
      // An outside script's error (the chat widget, the tag manager; "Script error." without a
      // file when it is cross-origin) is not the app's: only logged (spec §8).
      if (!event.filename || new URL(event.filename, window.location.href).origin !== window.location.origin) {
        console.warn('[softshelf] an outside script failed', event.message)
        return
      }
      openFatalError(event.error ?? new Error(event.message))
    }
    const onRejection = (event: PromiseRejectionEvent) => {
      if (isChunkLoadError(event.reason) && reloadAfterChunkError()) return
      openFatalError(event.reason)
    }
    document.documentElement.dataset.hydrated = 'true'
    window.addEventListener('vite:preloadError', onPreloadError)
    window.addEventListener('error', onError)
    window.addEventListener('unhandledrejection', onRejection)
    return () => {
      window.removeEventListener('vite:preloadError', onPreloadError)
      window.removeEventListener('error', onError)
      window.removeEventListener('unhandledrejection', onRejection)
    }
  }, [])
}

export function RootLayout() {
  const location = useLocation()
  const fatal = useFatalError()
  useVersionPolling(location.pathname, (useRouteLoaderData('root') as RootData | undefined)?.version ?? null)
  useGlobalErrorHandlers()
  useRouteHead()
  useChatWidget()
  // Spec §2: every navigation to a new history entry starts at the top (a program, the
  // next page: the entry's own key, so a changed query alone is a new page too); back and forward
  // return to where that entry was left; filters opt out with preventScrollReset. This is what
  // <ScrollRestoration /> does in a data router — the component adds only the inline script of
  // framework mode, which renders nothing here and was 0.4 kB gzip of dead code on every page
  // (the first-load budget). A full reload is left to the browser's own restoration of the server's
  // HTML, and to the router's once hydrated.
  useScrollRestoration()
  return (
    <>
      {fatal ? <ErrorPage error={fatal} /> : <Outlet />}
      <Toaster />
      <ConsentBanner />
    </>
  )
}

export function RootErrorBoundary() {
  const error = useRouteError()
  useEffect(() => {
    if (isChunkLoadError(error)) reloadAfterChunkError()
  }, [error])
  useReportRouteError(isChunkLoadError(error) ? null : error)
  return (
    <>
      <ErrorPage error={error} />
      <Toaster />
    </>
  )
}
