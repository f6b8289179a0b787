import { renderToString } from 'react-dom/server'
import { I18nextProvider } from 'react-i18next'
import {
  createStaticHandler,
  createStaticRouter,
  isRouteErrorResponse,
  StaticRouterProvider,
  type StaticHandlerContext,
} from 'react-router'
import { BOOT_DATA_GLOBAL, serializeForScript, type BootData, type RenderInput, type RenderResult } from '../shared/ssr-contract.ts'
import { ConsentBanner } from './components/consent-banner.tsx'
import { ErrorPage } from './components/error-page.tsx'
import { ConsentBannerBody, ErrorPage as DeferredErrorPage, SignedInNav as DeferredSignedInNav, Toaster as DeferredToaster } from './components/shell-parts.tsx'
import { SignedInNav } from './components/signed-in-nav.tsx'
import { Toaster } from './components/toaster.tsx'
import { ClientConfigProvider } from './lib/client-config.tsx'
import { ConsentProvider } from './lib/consent/consent.tsx'
import { errorHead, headTags, resolveHead, routeHead } from './lib/head.ts'
import { createI18n } from './lib/i18n.ts'
import { headersOf, modulesOf, namespacesOf } from './lib/namespaces.ts'
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
const i18nCache = new WeakMap<object, Map<string, ReturnType<typeof createI18n>>>()

function i18nFor(input: RenderInput, namespaces: string[]): ReturnType<typeof createI18n> {
  let byKey = i18nCache.get(input.resources)
  if (!byKey) i18nCache.set(input.resources, (byKey = new Map()))
  const key = `${input.locale}|${namespaces.join(',')}`
  let i18n = byKey.get(key)
  if (!i18n) {
    const resources = Object.fromEntries(namespaces.map((ns) => [ns, input.resources[ns] ?? {}]))
    i18n = createI18n({ locale: input.locale, resources, namespaces })
    byKey.set(key, i18n)
  }
  return i18n
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
  // was the BFF's to read.
  const { 'content-length': _length, 'content-type': _type, ...headers } = input.headers
  const request = input.form ? new Request(input.url, { method: 'POST', headers }) : new Request(input.url, { headers: input.headers })
  const context = await handler.query(request, { requestContext: { api: input.api, locale: input.locale, session: input.session, form: input.form } })
  if (context instanceof Response) {
    return { kind: 'redirect', status: context.status, location: context.headers.get('location') ?? '/' }
  }

  const namespaces = namespacesOf(context.matches)
  const i18n = i18nFor(input, namespaces)
  const router = createStaticRouter(handler.dataRoutes, context)

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
