import type { LazyRouteFunction, NonIndexRouteObject } from 'react-router'
import type { Namespace } from '../../../shared/locales.ts'
import type { RouteHeadSpec } from '../head/head.ts'

// A page declares the translation namespaces it needs once, in its route. The server embeds
// exactly those in the HTML; in the browser they load together with the page's code.

type Loader = (namespaces: readonly Namespace[]) => Promise<unknown>
let loadNamespaces: Loader | null = null

/** Set by the browser entry; on the server every namespace is already in memory. */
export function setNamespaceLoader(loader: Loader): void {
  loadNamespaces = loader
}

export interface RouteHandle {
  ns?: readonly Namespace[]
  /**
   * The page module's source path; the server preloads its built chunk so hydration need not
   * wait. Server only: the browser's bundle leaves it out (vite.config.ts).
   */
  module?: string
  /** The default layout shows its footer unless a page turns it off. */
  footer?: boolean
  /** Title, description and structured data of the page (client/lib/head/head.ts). */
  head?: RouteHeadSpec
  /** Response headers of the page's server render (share links are neither referred nor indexed). */
  headers?: Record<string, string>
}

type Lazy = LazyRouteFunction<NonIndexRouteObject>

/** Route fields for a lazily loaded page that needs `ns`; `module` is the file `load` imports. */
export function page(ns: readonly Namespace[], module: string, load: Lazy, head?: RouteHeadSpec): { handle: RouteHandle; lazy: Lazy } {
  return {
    handle: head === undefined ? { ns, module } : { ns, module, head },
    lazy: async () => {
      const [module] = await Promise.all([load(), loadNamespaces?.(ns)])
      return module
    },
  }
}

/** The page modules of a set of matched routes. */
export function modulesOf(matches: ReadonlyArray<{ route: { handle?: unknown } }>): string[] {
  return matches.flatMap((match) => (match.route.handle as RouteHandle | undefined)?.module ?? [])
}

/** The response headers a set of matched routes asks for; a deeper route wins. */
export function headersOf(matches: ReadonlyArray<{ route: { handle?: unknown } }>): Record<string, string> {
  return Object.assign({}, ...matches.map((match) => (match.route.handle as RouteHandle | undefined)?.headers ?? {})) as Record<string, string>
}

/** The namespaces a set of matched routes needs, `common` first. */
export function namespacesOf(matches: ReadonlyArray<{ route: { handle?: unknown } }>): Namespace[] {
  const set = new Set<Namespace>(['common'])
  for (const match of matches) {
    for (const ns of (match.route.handle as RouteHandle | undefined)?.ns ?? []) set.add(ns)
  }
  return [...set]
}
