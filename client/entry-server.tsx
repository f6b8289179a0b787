import { renderToString } from 'react-dom/server'
import { I18nextProvider } from 'react-i18next'
import {
  createStaticHandler,
  createStaticRouter,
  isRouteErrorResponse,
  StaticRouterProvider,
  type StaticHandlerContext,
} from 'react-router'
import { BOOT_DATA_GLOBAL, serializeForScript, type BootData, type RenderInput, type RenderResult } from '../shared/web/ssr-contract.ts'
import { ConsentBanner } from './components/consent-banner.tsx'
import { ErrorPage } from './components/error-page.tsx'
import { ConsentBannerBody, ErrorPage as DeferredErrorPage, SignedInNav as DeferredSignedInNav, Toaster as DeferredToaster } from './components/shell-parts.tsx'
import { SignedInNav } from './components/signed-in-nav.tsx'
import { Toaster } from './components/toaster.tsx'
import { ClientConfigProvider } from './lib/client-config.tsx'
import { ConsentProvider } from './lib/consent/consent.tsx'
import { errorHead, headTags, resolveHead, routeHead } from './lib/head/head.ts'
import { createI18n } from './lib/i18n/i18n.ts'
import { headersOf, modulesOf, namespacesOf } from './lib/i18n/namespaces.ts'
import { pageHeads } from './page-heads.ts'
import { routes } from './routes.tsx'

const handler = createStaticHandler(routes)

// The shell's parts the browser loads after hydration are in the server's HTML from the start.
DeferredToaster.provide(Toaster)
ConsentBannerBody.provide(ConsentBanner)
DeferredErrorPage.provide(ErrorPage)
DeferredSignedInNav.provide(SignedInNav)

/**
 * One i18next instance per language resources and namespace set, reused across requests: on the
 * server an instance never changes language or loads anything after init, so sharing it cannot
 * leak one visitor's language into another's page, and it saves an init per request.
 */
const i18nCache = new WeakMap<object, Map<string, I18n>>()

function i18nFor(input: RenderInput, namespaces: string[]): I18n {
  let byKey = i18nCache.get(input.resources)
  if (!byKey) i18nCache.set(input.resources, (byKey = new Map()))
  const key = `${input.locale}|${namespaces.join(',')}`
  let i18n = byKey.get(key)
  if (!i18n) {
    const resources = Object.fromEntries(namespaces.map((ns) => [ns, input.resources[ns] ?? {}]))
    i18n = serverView(createI18n({ locale: input.locale, resources, namespaces }))
    byKey.set(key, i18n)
  }
  return i18n
}

type I18n = ReturnType<typeof createI18n>
/** A fixed `t` as i18next makes it: a function with its language, namespace and key prefix on it. */
type FixedT = ((...args: unknown[]) => unknown) & { lng?: unknown; lngs?: unknown; ns?: unknown; keyPrefix?: unknown }

/** Texts kept per `t`; past this many, the cache starts over (keys with interpolated values are many). */
const MAX_TEXTS_PER_T = 5_000

/** Options whose values are all strings, numbers or booleans: their text is a function of the key and them. */
function plainOptions(options: object): boolean {
  for (const [name, value] of Object.entries(options)) {
    if (name === 'returnObjects' || name === 'postProcess') return false
    const type = typeof value
    if (type !== 'string' && type !== 'number' && type !== 'boolean' && value !== undefined) return false
  }
  return true
}

/** A `t` that looks each text up once: on the server an instance's language and resources never change. */
function memoizedT(original: FixedT): FixedT {
  let texts = new Map<string, unknown>()
  const t = (key: unknown, options?: unknown, ...rest: unknown[]) => {
    let cacheKey: string | undefined
    if (typeof key === 'string' && rest.length === 0) {
      if (options === undefined) cacheKey = key
      else if (typeof options === 'string') cacheKey = `${key}\u0001${options}`
      else if (typeof options === 'object' && options !== null && plainOptions(options)) cacheKey = `${key}\u0000${JSON.stringify(options)}`
    }
    if (cacheKey === undefined) return original(key, options, ...rest)
    if (texts.has(cacheKey)) return texts.get(cacheKey)
    const text = original(key, options)
    if (texts.size >= MAX_TEXTS_PER_T) texts = new Map()
    texts.set(cacheKey, text)
    return text
  }
  // What react-i18next's Trans reads of a fixed t.
  return Object.assign(t, { lng: original.lng, lngs: original.lngs, ns: original.ns, keyPrefix: original.keyPrefix })
}

/**
 * What React renders with, on the server: the shared instance behind an object of its own with
 * three properties. react-i18next's useTranslation copies its instance's own properties into a
 * wrapper, asks whether each namespace is loaded and makes a fixed `t`, for every component on
 * every render (a third of a page's render time in the profile, docs/BENCHMARKS.md). Here the copy is of three
 * properties, the answers are kept, and each namespace's `t` is made once and remembers its texts.
 */
function serverView(instance: I18n): I18n {
  const fixed = new Map<string, FixedT>()
  const loaded = new Map<string, boolean>()
  const view = Object.create(instance) as I18n
  const getFixedT = instance.getFixedT.bind(instance) as unknown as (...args: unknown[]) => FixedT
  Object.defineProperties(view, {
    getFixedT: {
      value: (lng: string | readonly string[] | null, ns?: string | readonly string[] | null, keyPrefix?: string, options?: { scopeNs?: readonly string[] }) => {
        const key = `${String(lng)}|${String(ns)}|${keyPrefix ?? ''}|${options?.scopeNs?.join(',') ?? ''}`
        let t = fixed.get(key)
        if (!t) fixed.set(key, (t = memoizedT(getFixedT(lng, ns, keyPrefix, options))))
        return t
      },
    },
    hasLoadedNamespace: {
      value: (ns: string | readonly string[], options?: object) => {
        const key = String(ns)
        let answer = loaded.get(key)
        if (answer === undefined) loaded.set(key, (answer = instance.hasLoadedNamespace(ns, options as never)))
        return answer
      },
    },
  })
  return view
}

/** The boot data is the same for every page with one language and namespace set: serialised once. */
const bootCache = new WeakMap<object, Map<string, string>>()

function bootScript(input: RenderInput, namespaces: string[]): string {
  let byKey = bootCache.get(input.resources)
  if (!byKey) bootCache.set(input.resources, (byKey = new Map()))
  const key = `${input.locale}|${namespaces.join(',')}|${JSON.stringify(input.config)}`
  let script = byKey.get(key)
  if (script === undefined) {
    const resources = Object.fromEntries(namespaces.map((ns) => [ns, input.resources[ns] ?? {}]))
    const boot: BootData = { locale: input.locale, namespaces, resources, config: input.config }
    script = serializeForScript(boot)
    byKey.set(key, script)
  }
  return script
}

type StaticRouter = ReturnType<typeof createStaticRouter>

/**
 * The route tree React renders, converted once: createStaticRouter copies the whole table (every
 * route, its elements) on each call, the largest part of React Router's time per page. It is made
 * again only when a page's lazy route was loaded since (the handler resolves `lazy` into the route
 * in place, which the copy would not show); a request then gets its own state over the shared tree.
 */
let sharedRouter: StaticRouter | undefined

function staticRouter(context: StaticHandlerContext): StaticRouter {
  const stale = (router: StaticRouter) => context.matches.some((match) => router.manifest[match.route.id]?.lazy !== match.route.lazy)
  if (!sharedRouter || stale(sharedRouter)) sharedRouter = createStaticRouter(handler.dataRoutes, { ...context, matches: [] })
  const manifest = sharedRouter.manifest
  const matches = context.matches.map((match) => ({ ...match, route: manifest[match.route.id] ?? match.route }))
  // What createStaticRouter's own `state` getter makes on every read, made once per request.
  const state = { ...sharedRouter.state, location: context.location, matches, loaderData: context.loaderData, actionData: context.actionData, errors: context.errors }
  return Object.create(sharedRouter, {
    basename: { get: () => context.basename },
    state: { get: () => state },
  }) as StaticRouter
}

/** Route errors as the browser router reads them back; an Error keeps its message, never its stack. */
function serializeErrors(errors: StaticHandlerContext['errors']): Record<string, unknown> | null {
  if (!errors) return null
  const out: Record<string, unknown> = {}
  for (const [id, error] of Object.entries(errors)) {
    if (isRouteErrorResponse(error)) {
      out[id] = { ...error, __type: 'RouteErrorResponse' }
    } else {
      out[id] = { message: 'Unexpected Server Error', __type: 'Error' }
    }
  }
  return out
}

/** Renders one page request. Called by the BFF with the request's language, nonce and API transport. */
export async function render(input: RenderInput): Promise<RenderResult> {
  // A form the BFF answered is rendered as its route's action (routes.tsx formOutcome); the body
  // was the BFF's to read. Any other page's form goes to its route's action as it was posted.
  const { 'content-length': _length, 'content-type': _type, ...headers } = input.headers
  const request =
    input.formFields !== undefined
      ? new Request(input.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: input.formFields })
      : input.form
        ? new Request(input.url, { method: 'POST', headers })
        : new Request(input.url, { headers: input.headers })
  const context = await handler.query(request, { requestContext: { api: input.api, locale: input.locale, session: input.session, form: input.form } })
  if (context instanceof Response) {
    return { kind: 'redirect', status: context.status, location: context.headers.get('location') ?? '/' }
  }

  // The BFF lets a few pages make their markup per turn of its event loop.
  const turn = input.markupTurn?.()
  if (turn) await turn

  const namespaces = namespacesOf(context.matches)
  const i18n = i18nFor(input, namespaces)
  const router = staticRouter(context)

  const html = renderToString(
    <I18nextProvider i18n={i18n}>
      <ClientConfigProvider value={input.config}>
        <ConsentProvider initial={input.consent}>
          <StaticRouterProvider router={router} context={context} hydrate={false} nonce={input.nonce} />
        </ConsentProvider>
      </ClientConfigProvider>
    </I18nextProvider>,
  )

  const firstError = context.errors ? Object.values(context.errors)[0] : undefined
  const pageHead =
    firstError !== undefined
      ? errorHead(isRouteErrorResponse(firstError) ? firstError.status : 500)
      : routeHead(
          context.matches.map((match) => ({ handle: match.route.handle, data: context.loaderData[match.route.id], params: match.params })),
          pageHeads,
          i18n.t,
          input.config.appUrl,
          input.config.logosVersion,
        )
  const head = headTags(
    resolveHead(pageHead, { t: i18n.t, appUrl: input.config.appUrl, pathname: new URL(input.url).pathname, locale: input.locale }),
    input.nonce,
  )

  const boot = bootScript(input, namespaces)
  const hydration = { loaderData: context.loaderData, actionData: context.actionData, errors: serializeErrors(context.errors) }
  const scripts =
    `<script nonce="${input.nonce}">window.${BOOT_DATA_GLOBAL}=${boot};` +
    `window.__staticRouterHydrationData=${serializeForScript(hydration)};</script>`

  return { kind: 'page', status: context.statusCode, head, html, scripts, modules: modulesOf(context.matches), headers: headersOf(context.matches) }
}
