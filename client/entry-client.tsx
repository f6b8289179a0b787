import { StrictMode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { createBrowserRouter, matchRoutes, RouterProvider } from 'react-router'
import { consentFromCookieHeader } from '../shared/consent.ts'
import { BOOT_DATA_GLOBAL, type BootData } from '../shared/web/ssr-contract.ts'
import { ConsentBannerBody, consentBannerShows, ErrorPage, SignedInNav } from './components/shell-parts.tsx'
import { ClientConfigProvider } from './lib/client-config.tsx'
import { ConsentProvider } from './lib/consent/consent.tsx'
import { configureErrorReporting, startErrorReporting } from './lib/error-reporting/report.ts'
import { reportRecoveredError } from './lib/error-reporting/fatal-error.ts'
import { BrowserI18n } from './lib/i18n/browser.ts'
import { I18nextProvider } from './lib/i18n/react.tsx'
import { setNamespaceLoader } from './lib/i18n/namespaces.ts'
import { routes } from './routes.tsx'
import { hasLocalSession } from './lib/session/presence.ts'
import './styles.css'

declare global {
  interface Window {
    [BOOT_DATA_GLOBAL]: BootData
  }
}

async function start(): Promise<void> {
  const boot = window[BOOT_DATA_GLOBAL]
  configureErrorReporting(boot.config.errorReporting)
  // With a session, the SDK starts before the router: it refreshes expired tokens for every
  // /auth and /api call the pages make (spec §4).
  if (hasLocalSession()) await import('./lib/session/auth.ts')
  void import('./lib/session/utm.ts').then((m) => m.captureUtm())
  // The server rendered with i18next; the browser's runtime writes the same text (decision 031).
  const i18n = new BrowserI18n({ locale: boot.locale, resources: boot.resources, namespaces: boot.namespaces, localesHash: boot.config.localesHash })
  setNamespaceLoader((ns) => i18n.loadNamespaces([...ns]))

  // The server rendered the matched lazy pages; load their code before hydrating so the first
  // client render is identical to the server's. The consent banner too when it is on the page: the
  // visitor may answer it at once.
  const consent = consentFromCookieHeader(document.cookie)
  const asked = boot.config.support.tagManagerScriptUrl !== null
  const lazyMatches = matchRoutes(routes, window.location)?.filter((match) => match.route.lazy) ?? []
  // So are the error page and a signed-in user's header links when the server's page shows them.
  const hydration = (window as { __staticRouterHydrationData?: { errors?: unknown } }).__staticRouterHydrationData
  await Promise.all([
    consentBannerShows({ choice: consent, asked }, window.location.pathname) ? ConsentBannerBody.preload() : null,
    hydration?.errors ? ErrorPage.preload() : null,
    document.querySelector('[data-testid="signed-in-as"]') ? SignedInNav.preload() : null,
    ...lazyMatches.map(async (match) => {
      const lazy = match.route.lazy
      if (typeof lazy !== 'function') return
      const module = await lazy()
      Object.assign(match.route, { ...module, lazy: undefined })
    }),
  ])

  const router = createBrowserRouter(routes)
  hydrateRoot(
    document.getElementById('root') as HTMLElement,
    <StrictMode>
      <I18nextProvider i18n={i18n}>
        <ClientConfigProvider value={boot.config}>
          {/* The same cookie the server rendered the banner (or not) from. */}
          <ConsentProvider initial={consent}>
            <RouterProvider router={router} />
          </ConsentProvider>
        </ClientConfigProvider>
      </I18nextProvider>
    </StrictMode>,
    { onRecoverableError: (error, info) => reportRecoveredError(error, info.componentStack) },
  )
  // The SDK loads after hydration, and only with SENTRY_DSN (report.ts).
  startErrorReporting()
}

void start()
