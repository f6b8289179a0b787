import { matchRoutes, useRouteLoaderData } from 'react-router'

// The public catalogue pages and their signed-in twins under /@. One list
// makes the route table (client/routes.tsx), the route guard's redirect of a signed-in user
// (client/lib/session/guards.ts) and the links of the signed-in pages, so a page cannot gain a twin in one
// and not in the others.

/** What a page shows; the route table gives each kind its page module, public and signed in. */
export type TwinKind = 'listing' | 'program' | 'files' | 'compare'

export interface TwinPage {
  /** The public page's route pattern, as React Router writes it (no leading slash). */
  path: string
  /** Its signed-in twin's route pattern, with the same parameters. */
  twin: string
  kind: TwinKind
}

export const SIGNED_IN_TWINS: readonly TwinPage[] = [
  // The public library is the whole catalogue; under /@ that is "Programs" (/@/library is the
  // user's own library, which has no public page).
  { path: 'library', twin: '@/programs', kind: 'listing' },
  { path: 'programs/:programId', twin: '@/programs/:programId', kind: 'program' },
  { path: 'category/:categoryId', twin: '@/category/:categoryId', kind: 'listing' },
  { path: 'developer/:developerId', twin: '@/developer/:developerId', kind: 'listing' },
  { path: 'publisher/:publisherId', twin: '@/publisher/:publisherId', kind: 'listing' },
  { path: 'license-type/:licenseType', twin: '@/license-type/:licenseType', kind: 'listing' },
  // What the drive is, for visitors; the drive itself for a signed-in user.
  { path: 'files', twin: '@/files', kind: 'files' },
  // A comparison, shared by its link (/compare?programs=a,b,c).
  { path: 'compare', twin: '@/compare', kind: 'compare' },
]

/**
 * The route name of a signed-in route in the style of spec §2 ('@-programs-programId',
 * '@-category-categoryId'): the path's segments joined by '-', without the parameters' colons.
 */
export function routeName(path: string): string {
  return path.replaceAll('/', '-').replaceAll(':', '')
}

/**
 * The signed-in twin of a public catalogue path, with its query; null when the path has none.
 *
 * The page is found by React Router's own matcher, so every spelling the router takes for the
 * page (upper case, trailing slashes, percent-encoded letters) has the twin and no other does. The
 * twin is written from its pattern's literals and the parameters' segments as they came — still
 * encoded, so an encoded "/" stays inside its segment — and so always starts with "/@/": whatever
 * the path held, the answer is a path on this origin.
 */
export function signedInTwin(pathname: string, search = ''): string | null {
  // The list's entries are routes to React Router's matcher (a path is all it reads).
  const page = matchRoutes(SIGNED_IN_TWINS as TwinPage[], pathname)?.[0]?.route
  if (!page) return null
  // A parameter is one whole segment, at the same place in the path as in the pattern.
  const segments = pathname.replace(/\/+$/, '').split('/')
  const pattern = ['', ...page.path.split('/')]
  // "\" is a path separator to a browser's URL parser: never let one through.
  const twin = page.twin.split('/').map((part) => (part.startsWith(':') ? segments[pattern.indexOf(part)]!.replaceAll('\\', '%5C') : part))
  return `/${twin.join('/')}${search}`
}

/**
 * Spec §4: on a route that is neither protected nor skips the check, a fully signed-in user is
 * sent to /@ — to the page's signed-in twin when it has one, query and all (/programs/x →
 * /@/programs/x, /library?q=x → /@/programs?q=x).
 */
export function signedInHome(pathname: string, search = ''): string {
  return signedInTwin(pathname, search) ?? '/@'
}

/** A page rendered under the protected route group (client/routes.tsx 'signed-in'): /@, /streaming, /stripe/*. */
export function useSignedInPage(): boolean {
  return useRouteLoaderData('signed-in') !== undefined
}

/**
 * Where a link to a public page goes from a signed-in page: its twin, so a signed-in
 * user stays inside /@ without a detour through the guard's redirect; home is the signed-in home;
 * pages without a twin (legal pages, /streaming) stay as they are.
 */
export function signedInLink(to: string): string {
  const at = to.search(/[?#]/)
  const pathname = at === -1 ? to : to.slice(0, at)
  if (pathname === '/') return '/@'
  return signedInTwin(pathname, at === -1 ? '' : to.slice(at)) ?? to
}

/** The link builder of this page: public paths as given for a visitor, their twins on a signed-in page. */
export function useCatalogueHref(): (to: string) => string {
  return useSignedInPage() ? signedInLink : (to) => to
}
