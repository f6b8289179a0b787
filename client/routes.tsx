import { data, useRouteError, type LoaderFunctionArgs, type RouteObject } from 'react-router'
import { notFoundMessage } from '../shared/constants.ts'
import { ErrorPage } from './components/error-page.tsx'
import { DefaultLayout } from './layouts/default-layout.tsx'
import { page } from './lib/namespaces.ts'
import { errorRouteHead, homeHead, legalHead, listingHead, programHead } from './page-heads.ts'
import { RootErrorBoundary, RootLayout, rootLoader } from './root.tsx'

/** Errors of a page render inside its layout, so the visitor keeps the header and footer. */
function PageErrorBoundary() {
  return <ErrorPage error={useRouteError()} />
}

/** The public catalogue (issue 3): one listing page for every scope, and the program page. */
function catalogueRoutes(): RouteObject[] {
  const listing = () => import('./pages/catalogue-listing.tsx')
  const listingPage = page(['catalogue'], 'client/pages/catalogue-listing.tsx', listing, listingHead)
  return [
    ...['library', 'category/:categoryId', 'developer/:developerId', 'publisher/:publisherId', 'license-type/:licenseType'].map((path) => ({
      path,
      ErrorBoundary: PageErrorBoundary,
      ...listingPage,
    })),
    {
      path: 'programs/:programId',
      ErrorBoundary: PageErrorBoundary,
      ...page(['catalogue'], 'client/pages/program.tsx', () => import('./pages/program.tsx'), programHead),
    },
  ]
}

/** Routes whose loader always throws still need a component, or the router warns of an empty page. */
function RenderedByErrorBoundary() {
  return null
}

/** Spec §2: an invalid route is a not-found error "Page Not Found" followed by the path. */
function notFoundLoader({ request }: LoaderFunctionArgs): never {
  const path = new URL(request.url).pathname
  throw data({ message: notFoundMessage(path) }, { status: 404, statusText: 'Not Found' })
}

// One route table for server rendering and hydration (DESIGN.md §4.6).
export const routes: RouteObject[] = [
  {
    id: 'root',
    path: '/',
    Component: RootLayout,
    ErrorBoundary: RootErrorBoundary,
    loader: rootLoader,
    // The version only feeds the footer; polling keeps it fresh, navigation need not.
    shouldRevalidate: ({ formMethod }) => formMethod !== undefined,
    children: [
      {
        id: 'default-layout',
        Component: DefaultLayout,
        children: [
          { index: true, ErrorBoundary: PageErrorBoundary, ...page(['home', 'catalogue'], 'client/pages/home.tsx', () => import('./pages/home.tsx'), homeHead) },
          ...catalogueRoutes(),
          { path: '404', ErrorBoundary: PageErrorBoundary, Component: RenderedByErrorBoundary, loader: notFoundLoader, handle: { head: errorRouteHead } },
          { path: '*', ErrorBoundary: PageErrorBoundary, Component: RenderedByErrorBoundary, loader: notFoundLoader, handle: { head: errorRouteHead } },
        ],
      },
      // Spec §2: terms, privacy and cookie pages use no layout.
      { path: 'terms', ErrorBoundary: PageErrorBoundary, ...page(['legal'], 'client/pages/legal.tsx', () => import('./pages/legal.tsx').then((m) => ({ Component: m.TermsPage })), legalHead('Terms of service')) },
      { path: 'privacy', ErrorBoundary: PageErrorBoundary, ...page(['legal'], 'client/pages/legal.tsx', () => import('./pages/legal.tsx').then((m) => ({ Component: m.PrivacyPage })), legalHead('Privacy policy')) },
      { path: 'cookie', ErrorBoundary: PageErrorBoundary, ...page(['legal'], 'client/pages/legal.tsx', () => import('./pages/legal.tsx').then((m) => ({ Component: m.CookiePage })), legalHead('Cookie policy')) },
    ],
  },
]
