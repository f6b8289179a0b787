import { data, redirect, useRouteError, type LoaderFunctionArgs, type RouteObject } from 'react-router'
import { notFoundMessage } from '../shared/constants.ts'
import { ErrorPage } from './components/shell-parts.tsx'
import { DefaultLayout } from './layouts/default-layout.tsx'
import { useReportRouteError } from './lib/error-reporting/fatal-error.ts'
import { routeName, SIGNED_IN_TWINS, type TwinKind } from './lib/catalogue/twins.ts'
import { alwaysRevalidate, protectedGuard, publicGuard, sessionPageGuard, viewerLoader } from './lib/session/guards.ts'
import { OPERATOR_PAGES, operatorPages } from './pages/operator/routes.ts'
import type { PageHead } from './lib/head/head.ts'
import { page, type RouteHandle } from './lib/i18n/namespaces.ts'
import { RootErrorBoundary, RootLayout, rootLoader } from './root.tsx'

/** Legal pages: an English title (spec §1). */
const legalHead = (title: string): PageHead => ({ title })

/** Account pages and the signed-in area: English titles, never indexed. */
const privateHead = (title: string): PageHead => ({ title, noindex: true })

/** Errors of a page render inside its layout, so the visitor keeps the header and footer. */
function PageErrorBoundary() {
  const error = useRouteError()
  useReportRouteError(error)
  return <ErrorPage error={error} />
}

/**
 * The public catalogue and the drive's public page: one route per entry of
 * client/lib/catalogue/twins.ts, whose twins under /@ signedInTwinRoutes() makes from the same list.
 */
function publicTwinRoutes(): RouteObject[] {
  const listing = () => import('./pages/catalogue-listing.tsx')
  const pages: Record<TwinKind, ReturnType<typeof page>> = {
    listing: page(['catalogue'], 'client/pages/catalogue-listing.tsx', listing, 'listing'),
    program: page(['catalogue', 'checkout'], 'client/pages/program.tsx', () => import('./pages/program.tsx'), 'program'),
    // What the drive is, for visitors.
    files: page(['files'], 'client/pages/files/files-intro.tsx', () => import('./pages/files/files-intro.tsx'), 'files'),
    compare: comparePage,
  }
  return SIGNED_IN_TWINS.map(({ path, kind }) => ({ path, ErrorBoundary: PageErrorBoundary, ...pages[kind] }))
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

/** An account page: the `auth` namespace and an English, unindexed title. */
function accountPage(path: string, title: string, load: () => Promise<Record<string, unknown>>, module: string, ns: Parameters<typeof page>[0] = ['auth']): RouteObject {
  return { path, ErrorBoundary: PageErrorBoundary, ...page(ns, module, load, privateHead(title)) }
}

/** A page's route with response headers of its own for the server render. */
function withHeaders<T extends { handle: RouteHandle }>(route: T, headers: Record<string, string>): T {
  return { ...route, handle: { ...route.handle, headers } }
}

/** A comparison; the same page public and under /@ (its links go to the twins there). */
const comparePage = page(['compare', 'catalogue'], 'client/pages/compare/compare.tsx', () => import('./pages/compare/compare.tsx'), 'compare')

const emailPages = () => import('./pages/auth/email-verification.tsx')
const signedInCatalogue = () => import('./pages/signed-in-catalogue.tsx')
const checkoutReturns = () => import('./pages/checkout/return-pages.tsx')

/**
 * The signed-in twins under /@ of the public pages above: the catalogue with
 * add/remove, and the drive. Each carries its route name in the style of spec §2 ('@-programs',
 * '@-programs-programId', '@-category-categoryId', '@-developer-developerId', '@-files', and the
 * new '@-publisher-publisherId', '@-license-type-licenseType').
 */
function signedInTwinRoutes(): RouteObject[] {
  const module = 'client/pages/signed-in-catalogue.tsx'
  const pages: Record<TwinKind, ReturnType<typeof page>> = {
    listing: page(['catalogue'], module, () => signedInCatalogue().then((m) => ({ Component: m.ListingComponent, loader: m.listingLoader })), 'listing'),
    program: page(['catalogue', 'checkout'], module, () => signedInCatalogue().then((m) => ({ Component: m.ProgramComponent, loader: m.programLoader })), 'program'),
    files: page(['files'], 'client/pages/files/drive.tsx', () => import('./pages/files/drive.tsx'), privateHead('My files')),
    compare: comparePage,
  }
  return SIGNED_IN_TWINS.map(({ twin, kind }) => ({ path: twin, id: routeName(twin), ErrorBoundary: PageErrorBoundary, ...pages[kind] }))
}

// One route table for server rendering and hydration (DESIGN.md §4.6). Three pathless groups
// carry the route guard of spec §2/§4: public pages (a fully signed-in user goes to /@), pages
// that skip the check, and protected pages.
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
        id: 'public',
        loader: publicGuard,
        shouldRevalidate: alwaysRevalidate,
        ErrorBoundary: PageErrorBoundary,
        children: [
          {
            id: 'default-layout',
            Component: DefaultLayout,
            children: [
              { index: true, ErrorBoundary: PageErrorBoundary, ...page(['home', 'catalogue'], 'client/pages/home.tsx', () => import('./pages/home.tsx'), 'home') },
              ...publicTwinRoutes(),
              // About a session's pending step; without a session, log in first.
              {
                loader: sessionPageGuard,
                shouldRevalidate: alwaysRevalidate,
                children: [accountPage('check-email', 'Check your email', () => emailPages().then((m) => ({ Component: m.CheckEmailPage, action: m.action })), 'client/pages/auth/email-verification.tsx')],
              },
            ],
          },
          // Spec §2: the welcome page uses no layout. Like the login and the forgotten
          // password, which skip the check in spec §2 but whose forms a fully signed-in user has no
          // use for (spec §4: on to /@); a second factor or an email still owed keeps them open.
          accountPage('welcome', 'Create your account', () => import('./pages/auth/welcome.tsx'), 'client/pages/auth/welcome.tsx'),
          // The account forms' pages export the action that shows a form the BFF answered
          // without the page's script (decision 025).
          accountPage('login', 'Log in', () => import('./pages/auth/login.tsx'), 'client/pages/auth/login.tsx'),
          accountPage('forgot-password', 'Forgot your password', () => import('./pages/auth/forgot-password.tsx'), 'client/pages/auth/forgot-password.tsx'),
        ],
      },
      {
        // Spec §2: login-related pages, terms, cookie, privacy, verify-email, reset-password and
        // /@/logout skip the check (the login and forgotten-password forms are public pages above).
        id: 'unguarded',
        children: [
          {
            id: 'unguarded-default-layout',
            Component: DefaultLayout,
            // No check, but the header shows who is there (a signed-in user's on /mfa,
            // /sentry-test and the 404 page), looked at again on every navigation like the guards.
            loader: viewerLoader,
            shouldRevalidate: alwaysRevalidate,
            children: [
              {
                loader: sessionPageGuard,
                shouldRevalidate: alwaysRevalidate,
                children: [accountPage('email-not-verified', 'Verify your email', () => emailPages().then((m) => ({ Component: m.EmailNotVerifiedPage, action: m.action })), 'client/pages/auth/email-verification.tsx')],
              },
              // The second factor decides for itself: it serves both a pending sign-in and set-up (decision 008).
              accountPage('mfa', 'Two-step verification', () => import('./pages/auth/mfa.tsx'), 'client/pages/auth/mfa.tsx'),
              // The error-reporting test page; no sign-in, never indexed.
              {
                path: 'sentry-test',
                ErrorBoundary: PageErrorBoundary,
                ...withHeaders(page(['sentry'], 'client/pages/sentry-test.tsx', () => import('./pages/sentry-test.tsx'), { title: 'Error reporting test', noindex: true }), { 'x-robots-tag': 'noindex' }),
              },
              { path: '404', ErrorBoundary: PageErrorBoundary, Component: RenderedByErrorBoundary, loader: notFoundLoader, handle: { head: null } },
              { path: '*', ErrorBoundary: PageErrorBoundary, Component: RenderedByErrorBoundary, loader: notFoundLoader, handle: { head: null } },
            ],
          },
          accountPage('reset-password', 'Choose a new password', () => import('./pages/auth/reset-password.tsx'), 'client/pages/auth/reset-password.tsx'),
          accountPage('verify-email', 'Verify your email', () => emailPages().then((m) => ({ Component: m.VerifyEmailPage, action: m.action })), 'client/pages/auth/email-verification.tsx'),
          // The link that confirms a new email address; like verify-email, it may open in any browser.
          accountPage('confirm-email', 'Confirm your new email', () => import('./pages/profile/confirm-email.tsx'), 'client/pages/profile/confirm-email.tsx', ['profile']),
          accountPage('auth-callback/:provider', 'Signing in', () => import('./pages/auth/auth-callback.tsx'), 'client/pages/auth/auth-callback.tsx'),
          accountPage('@/logout', 'Log out', () => import('./pages/auth/logout.tsx'), 'client/pages/auth/logout.tsx'),
          // Spec §2: a shared link's page uses no layout, skips the check and does not poll the
          // version (client/lib/notices/version-watch.ts). Its content depends on a revocable
          // link, so no cache keeps it. Its `Referrer-Policy: no-referrer` and `X-Robots-Tag` come
          // from the BFF's security headers (server/bff/plugins/security-headers.ts), which also
          // cover the answers rendered without the router (render failures, the refresh page).
          {
            path: 'sharing/:link',
            ErrorBoundary: PageErrorBoundary,
            ...withHeaders(page(['files'], 'client/pages/files/shared-link.tsx', () => import('./pages/files/shared-link.tsx'), { title: 'Shared with you', noindex: true }), {
              'cache-control': 'no-store',
            }),
          },
          // Spec §2: terms, privacy and cookie pages use no layout.
          { path: 'terms', ErrorBoundary: PageErrorBoundary, ...page(['legal'], 'client/pages/legal.tsx', () => import('./pages/legal.tsx').then((m) => ({ Component: m.TermsPage })), legalHead('Terms of service')) },
          { path: 'privacy', ErrorBoundary: PageErrorBoundary, ...page(['legal'], 'client/pages/legal.tsx', () => import('./pages/legal.tsx').then((m) => ({ Component: m.PrivacyPage })), legalHead('Privacy policy')) },
          { path: 'cookie', ErrorBoundary: PageErrorBoundary, ...page(['legal'], 'client/pages/legal.tsx', () => import('./pages/legal.tsx').then((m) => ({ Component: m.CookiePage })), legalHead('Cookie policy')) },
        ],
      },
      {
        id: 'signed-in',
        loader: protectedGuard,
        shouldRevalidate: alwaysRevalidate,
        ErrorBoundary: PageErrorBoundary,
        children: [
          accountPage('tos', 'Terms of service', () => import('./pages/auth/tos.tsx'), 'client/pages/auth/tos.tsx', ['auth', 'legal']),
          {
            id: 'signed-in-layout',
            // Its code loads with the first signed-in page: a visitor's pages stay small.
            lazy: () => import('./layouts/signed-in-layout.tsx').then((m) => ({ Component: m.SignedInLayout })),
            children: [
              // Spec §2: /@ is the home after login, and it is the library.
              { path: '@', loader: () => redirect('/@/library'), Component: RenderedByErrorBoundary },
              accountPage('@/library', 'My library', () => import('./pages/my-library.tsx'), 'client/pages/my-library.tsx', ['auth', 'catalogue']),
              ...signedInTwinRoutes(),
              // Spec §2: where Stripe's hosted page returns to; route names stripe-success, stripe-cancel.
              {
                ...accountPage('stripe/success', 'Payment', () => checkoutReturns().then((m) => ({ Component: m.SuccessPage, loader: m.successLoader })), 'client/pages/checkout/return-pages.tsx', ['checkout']),
                id: 'stripe-success',
              },
              {
                ...accountPage('stripe/cancel', 'Payment cancelled', () => checkoutReturns().then((m) => ({ Component: m.CancelPage, loader: m.cancelLoader })), 'client/pages/checkout/return-pages.tsx', ['checkout']),
                id: 'stripe-cancel',
              },
              // The account's saved searches.
              accountPage('@/saved-searches', 'Saved searches', () => import('./pages/saved-searches.tsx'), 'client/pages/saved-searches.tsx', ['saved-searches']),
              accountPage('@/my-profile', 'My profile', () => import('./pages/my-profile.tsx'), 'client/pages/my-profile.tsx', ['profile', 'auth']),
              // What the programs the user watches did, and what saved searches found.
              accountPage('@/notifications', 'Notifications', () => import('./pages/notifications.tsx'), 'client/pages/notifications.tsx', ['notifications', 'catalogue']),
              // The operator console, for an account with a role (anyone else: the 404 page).
              {
                path: '@/operator',
                id: 'operator',
                shouldRevalidate: alwaysRevalidate,
                ErrorBoundary: PageErrorBoundary,
                // The guard is the layout's loader (pages/operator/layout.tsx), in the console's chunk.
                ...page(['operator'], 'client/pages/operator/pages.tsx', () => operatorPages().then((pages) => pages.layout)),
                children: OPERATOR_PAGES.map((route) => ({ ErrorBoundary: PageErrorBoundary, ...route })),
              },
            ],
          },
          {
            id: 'signed-in-default-layout',
            Component: DefaultLayout,
            // Spec §2 names this route 'streaming'; no version polling here (version-watch.ts).
            children: [{ ...accountPage('streaming', 'Streaming', () => import('./pages/streaming/streaming-page.tsx'), 'client/pages/streaming/streaming-page.tsx', ['streaming']), id: 'streaming' }],
          },
        ],
      },
    ],
  },
]
