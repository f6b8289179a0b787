import fp from 'fastify-plugin'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CONSENT_COOKIE_NAME, parseConsent } from '../../../shared/consent.ts'
import { LOCALE_COOKIE_NAME } from '../../../shared/constants.ts'
import { negotiateLocale, type Locale } from '../../../shared/locales.ts'
import { isCrossSite, isLogoutPath, SEC_FETCH_SITE } from '../../../shared/web/fetch-metadata.ts'
import { escapeHtml } from '../../../shared/web/html.ts'
import type { ClientConfig, RenderInput, RenderResult, ServerApi } from '../../../shared/web/ssr-contract.ts'
import type { MarkupTurns } from '../markup-turns.ts'
import { DATABASE_RETRY_AFTER_SECONDS, ERROR_EVENT_HEADER, errorBody, isDeliberateServerError, isOutageAnswer } from '../../http/errors.ts'
import { safeReturnPath } from '../../../shared/auth/return-path.ts'
import { returnQuery } from '../../../shared/auth/return-path.ts'
import { BffNotFound, BffUpstreamBadResponse } from '../errors.ts'
import { MicroCache } from '../micro-cache.ts'
import { upstreamStatusError } from '../upstream-client.ts'
import type { LocaleCatalog } from '../locales.ts'
import type { FormWrites, PageForms } from '../auth/page-forms.ts'
import { mirrorFrontToken, pageSession, type PageSessionResult } from '../auth/page-session.ts'
import { isAuthCoreOutage } from '../auth/core-outage.ts'
import { refreshPage } from '../auth/refresh-page.ts'
import { sharingLinkOf, shareTokenFor } from '../share-access.ts'
import { simplePage } from '../html-page.ts'

// Pages (DESIGN.md §5): every GET that is no other route's is rendered here — the page session and
// its refresh, the language, the React app's server entry with a transport to the API, the status,
// redirect or error page it decides, the HTML with its nonce, preloads and hydration data — and a
// page's own <form method="post"> is answered before its script has loaded. One file over 500
// lines: the render, its cache of public pages and the form answers share the page session and the
// headers every page answer carries.

type Render = (input: RenderInput) => Promise<RenderResult>

interface Renderer {
  template(url: string, nonce: string): Promise<string>
  render: Render
  /** `<link rel="modulepreload">` tags for page modules (production builds only). */
  preloadLinks(modules: string[]): string
  fixStack?(error: Error): void
}

interface ManifestChunk {
  file: string
  imports?: string[]
}

/**
 * Maps page modules to preload tags for their chunk and its imports, skipping chunks the page
 * template already loads. Without them the browser would fetch the page chunk only after the
 * entry script ran, and hydration would wait one more round trip.
 */
export function preloadLinksFromManifest(manifest: Record<string, ManifestChunk>, template: string): (modules: string[]) => string {
  const cache = new Map<string, string>()
  return (modules) => {
    const key = modules.join('|')
    const cached = cache.get(key)
    if (cached !== undefined) return cached
    const files = new Set<string>()
    const visit = (id: string) => {
      const chunk = manifest[id]
      if (!chunk || files.has(chunk.file)) return
      files.add(chunk.file)
      for (const imported of chunk.imports ?? []) visit(imported)
    }
    for (const module of modules) visit(module)
    const links = [...files]
      .filter((file) => file.endsWith('.js') && !template.includes(`/${file}"`))
      .map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`)
      .join('')
    cache.set(key, links)
    return links
  }
}

export interface SsrOptions {
  /** The turns pages make their markup in (the load shedding reads their backlog). */
  markupTurns: MarkupTurns
  root: string
  dev: boolean
  /** Cookies the BFF writes for the browser SDK get Secure under https. */
  https: boolean
  catalog: LocaleCatalog
  config: Omit<ClientConfig, 'localesHash'>
  /** The logos' version now (it changes with an uploaded logo); `config.logosVersion` without it. */
  logosVersion?: () => Promise<string>
  /**
   * The forms a page sends before its script ran (decision 025): the account forms the BFF answers
   * itself, and the calls of the route action any other same-origin form runs in the render.
   */
  pageForms?: PageForms
  /** Per IP and minute, as for /auth writes. */
  formRateLimitMax: number
  /** The page cache's clock; tests move it. Date.now by default. */
  now?: (() => number) | undefined
}

/** A page's form for its route's action: the fields as posted, and the calls the action makes. */
interface RouteActionInput {
  fields: string
  writes: FormWrites
}

/** Where the route guard sends a visitor who owes a step (client/lib/session/guards.ts, the /mfa page's loader). */
const ACCOUNT_STEPS = new Set(['/login', '/mfa', '/email-not-verified', '/tos'])

/**
 * The guard's redirect to an account step, with the page the visitor was going to as its target
 * (decision 025): `/@/programs/x` → `/login?redirectToPath=%2F%40%2Fprograms%2Fx`.
 * Added here, for page loads, so the guard in every page's bundle stays as small as it was; after
 * each account step the pages carry the target on themselves (client/lib/account/continue.ts).
 */
export function withGuardReturn(location: string, requestUrl: string): string {
  return ACCOUNT_STEPS.has(location) ? `${location}${returnQuery(requestUrl)}` : location
}

/** An account form is a few fields; more is not one of ours. */
const PAGE_FORM_BODY_LIMIT = 16 * 1024

/** What a page's own <form method="post"> sends. */
function isFormPost(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded'
}

type FormPageTexts = { errors?: { formNotReady?: { title?: string; cause?: string; back?: string }; other?: { title?: string } } }

/** A small page about a form post, with the way back to the page the form was on. */
function formAnswerPage(catalog: LocaleCatalog, locale: Locale, url: string, title: string, cause: string): string {
  const back = (catalog.resources[locale].common as FormPageTexts).errors?.formNotReady?.back ?? ''
  // A request line's "//host" is no page of ours.
  const page = safeReturnPath(url) ?? '/'
  return simplePage({
    lang: locale,
    title: 'Softshelf',
    noindex: true,
    body: `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(cause)}</p><p><a href="${escapeHtml(page)}">${escapeHtml(back)}</a></p></main>`,
  })
}

/** A form of a page that only works with its script, sent before the script ran: nothing was done; say so. */
function formNotReadyPage(catalog: LocaleCatalog, locale: Locale, url: string): string {
  const texts = (catalog.resources[locale].common as FormPageTexts).errors?.formNotReady
  return formAnswerPage(catalog, locale, url, texts?.title ?? '', texts?.cause ?? '')
}

/** Past the per-IP limit for form posts: said in a page, cheaply (no render), like every form's answer. */
function formLimitPage(catalog: LocaleCatalog, locale: Locale, url: string): string {
  const title = ((catalog.resources[locale].common as FormPageTexts).errors?.other?.title ?? '').replace('{{status}}', '429')
  const cause = (catalog.resources[locale].auth as { errors?: { tooManyRequests?: string } }).errors?.tooManyRequests ?? ''
  return formAnswerPage(catalog, locale, url, title, cause)
}

/** Vite writes this into dev HTML; each request swaps in its own nonce. */
const DEV_NONCE_PLACEHOLDER = 'softshelf-dev-nonce'

async function productionRenderer(root: string): Promise<Renderer> {
  const templatePath = path.join(root, 'dist', 'client', 'index.html')
  const entryPath = path.join(root, 'dist', 'ssr', 'entry-server.js')
  if (!fs.existsSync(templatePath) || !fs.existsSync(entryPath)) {
    throw new Error('The client is not built: run "npm run build" (npm start does it for you).')
  }
  const template = fs.readFileSync(templatePath, 'utf8')
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'client', '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>
  const entry = (await import(pathToFileURL(entryPath).href)) as { render: Render }
  return { template: async () => template, render: entry.render, preloadLinks: preloadLinksFromManifest(manifest, template) }
}

async function developmentRenderer(app: FastifyInstance, root: string): Promise<Renderer> {
  const { createServer } = await import('vite')
  const { default: middie } = await import('@fastify/middie')
  const vite = await createServer({
    root,
    configFile: path.join(root, 'vite.config.ts'),
    server: { middlewareMode: true, hmr: { server: app.server } },
    appType: 'custom',
    html: { cspNonce: DEV_NONCE_PLACEHOLDER },
  })
  await app.register(middie)
  app.use(vite.middlewares)
  app.addHook('onClose', () => vite.close())
  const templatePath = path.join(root, 'index.html')
  return {
    async template(url, nonce) {
      const html = await vite.transformIndexHtml(url, fs.readFileSync(templatePath, 'utf8'))
      return html.replaceAll(DEV_NONCE_PLACEHOLDER, nonce)
    },
    async render(input) {
      const entry = (await vite.ssrLoadModule('/client/entry-server.tsx')) as { render: Render }
      return entry.render(input)
    },
    // Vite serves modules on demand in development.
    preloadLinks: () => '',
    fixStack: (error) => vite.ssrFixStacktrace(error),
  }
}

/**
 * When the page cannot be rendered at all: a page in the visitor's language, saying nothing
 * internal — "unavailable" (503) while the auth core cannot be reached, "something
 * went wrong" for a fault of ours. It has the app's error page's markup and, when the page
 * template can be had, its stylesheets, so it looks like the error page the router renders.
 */
function renderFailurePage(catalog: LocaleCatalog, locale: Locale, requestId: string, status: 500 | 503, kind: 'server' | 'unavailable', template = ''): string {
  const common = catalog.resources[locale].common as { errors?: Record<'server' | 'unavailable', { title?: string; cause?: string } | undefined> & { backHome?: string } }
  const title = common.errors?.[kind]?.title ?? 'Something went wrong'
  const cause = common.errors?.[kind]?.cause ?? ''
  const back = common.errors?.backHome ?? 'Back to home'
  const stylesheets = (template.match(/<link\b[^>]*\brel="stylesheet"[^>]*>/g) ?? []).join('')
  return simplePage({
    lang: locale,
    title: 'Softshelf',
    head: stylesheets,
    body:
      `<main id="content" class="error-page" data-status="${status}"><p class="error-status" aria-hidden="true">${status}</p><h1>${escapeHtml(title)}</h1>` +
      `<p class="error-cause">${escapeHtml(cause)}</p><a class="button" href="/">${escapeHtml(back)}</a><p><small>${escapeHtml(requestId)}</small></p></main>`,
  })
}

/** The longest Retry-After the API gave this page's loaders (a 503 page passes it on). */
const retryAfterOf = new WeakMap<FastifyRequest, number>()

function noteRetryAfter(request: FastifyRequest, header: string | string[] | undefined): void {
  const seconds = Number(header)
  if (Number.isInteger(seconds) && seconds > 0) retryAfterOf.set(request, Math.max(seconds, retryAfterOf.get(request) ?? 0))
}

/**
 * The headers of one loader call: the session's access token, and for a share link's path that
 * link's unlock token (the proxy's rule, share-access.ts) — never another link's, never a cookie.
 */
export function serverApiHeaders(request: FastifyRequest, locale: Locale, accessToken: string | undefined, apiPath: string): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', 'accept-language': locale, 'x-request-id': request.id }
  // The API authorises by the session's access token alone (DESIGN.md §4.5).
  if (accessToken) headers.authorization = `Bearer ${accessToken}`
  const link = sharingLinkOf(apiPath)
  const shareToken = link === null ? undefined : shareTokenFor(request, link)
  if (shareToken) headers['x-share-token'] = shareToken
  return headers
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return null
  }
}

/**
 * The loaders' transport to the product API while rendering: direct, through the BFF's pool; and a
 * route action's writes, when it runs for a form (through the BFF's own routes, `writes`).
 */
function serverApi(app: FastifyInstance, request: FastifyRequest, locale: Locale, accessToken: string | undefined, writes?: FormWrites): ServerApi {
  return {
    ...(writes ? { send: (method, apiPath, body) => writes.send(method, apiPath, body) } : {}),
    async get(apiPath, init) {
      // The BFF's own /auth reads (the reset link's check): answered here, as the browser's GET would be.
      if (apiPath.startsWith('/auth/')) {
        const answer = await app.inject({
          method: 'GET',
          url: apiPath,
          // Counted for the visitor (address and forwarded-for), as the browser's own GET would be, not for the BFF's loopback.
          headers: { accept: 'application/json', 'accept-language': locale, ...(typeof request.headers['x-forwarded-for'] === 'string' ? { 'x-forwarded-for': request.headers['x-forwarded-for'] } : {}) },
          ...(request.socket.remoteAddress ? { remoteAddress: request.socket.remoteAddress } : {}),
        })
        const type = String(answer.headers['content-type'] ?? '')
        return { status: answer.statusCode, body: type.includes('json') ? answer.json() : null }
      }
      try {
        const response = await app.upstreamApi.request({
          method: 'GET',
          path: apiPath,
          headers: serverApiHeaders(request, locale, accessToken, apiPath),
          ...(init?.signal ? { signal: init.signal } : {}),
        })
        if (response.status >= 500) {
          const type = String(response.headers['content-type'] ?? '')
          // A deliberate answer (card payments not set up, streaming off) reaches the page as the
          // API gave it, as the browser's calls get it through the proxy.
          if (response.status === 503 && type.includes('json')) {
            const body = parseJson(response.body.toString('utf8'))
            if (isDeliberateServerError((body as { code?: unknown } | null)?.code)) return { status: 503, body }
          }
          // A 503 is the API's own outage answer, logged once there.
          if (response.status !== 503) request.log.warn({ upstreamStatus: response.status, path: apiPath }, 'upstream API failed during render')
          const error = upstreamStatusError(response.status)
          noteRetryAfter(request, response.headers['retry-after'])
          return { status: error.statusCode, body: errorBody(error.statusCode, error.code, error.message, request.id) }
        }
        const type = String(response.headers['content-type'] ?? '')
        return { status: response.status, body: type.includes('json') ? JSON.parse(response.body.toString('utf8')) : null }
      } catch (error) {
        // Our catalogued upstream errors speak for themselves; anything else (an unparsable body)
        // is a bad response, and its own message stays in the log.
        const known = (error as { code?: string }).code?.startsWith('BFF_UPSTREAM_') ? (error as Error & { statusCode: number; code: string }) : null
        const mapped = known ?? new BffUpstreamBadResponse()
        // An API that cannot be reached is the upstream's outage log's to tell, once.
        if (!isOutageAnswer(mapped.code)) request.log.warn({ err: error, path: apiPath }, 'upstream API failed during render')
        return { status: mapped.statusCode ?? 502, body: errorBody(mapped.statusCode ?? 502, mapped.code, mapped.message, request.id) }
      }
    },
  }
}

/**
 * Server rendering of every page (DESIGN.md §2 "A page, visitor"): language → React Router's
 * static handler with the API transport → HTML with nonce'd hydration data. Status codes and
 * redirects come from the router.
 */
/**
 * Anonymous visitors of one language see the same page at one URL: a rendered page is kept for a
 * second and served again with a fresh nonce. Only requests without cookies other than the
 * language and the analytics choice (both part of the key) qualify, so nothing personal is ever
 * shared; only 200 pages are kept.
 */
const PAGE_CACHE_TTL_MS = 1_000

/** What every page answer says, from the cache or rendered: it varies by cookie and language, and is checked again each time. */
function pageHeaders(reply: FastifyReply, locale: Locale): void {
  reply.header('vary', 'Cookie, Accept-Language')
  reply.header('content-language', locale)
  reply.header('cache-control', 'no-cache')
}

const LOGGED_OUT_PAGE: PageSessionResult = { kind: 'session', session: { state: 'LOGGED_OUT' } }

/**
 * A page whose address carries a token (a reset, verification or email-change link) shows that
 * token's state, which the next load may find changed (a used reset link says so at once).
 */
function carriesToken(url: string): boolean {
  return /[?&]token=/.test(url)
}

function isAnonymous(request: FastifyRequest): boolean {
  return Object.keys(request.cookies).every((name) => name === LOCALE_COOKIE_NAME || name === CONSENT_COOKIE_NAME) && request.headers.authorization === undefined
}

interface RenderedPage {
  status: number
  /**
   * The page's UTF-8 bytes cut where its nonce was: each answer is these with its own nonce
   * between them. Kept as bytes, an answer is a copy — not a string to replace in, measure and
   * encode again (that was a third of a cached page's time).
   */
  parts: Buffer[]
  /** The answer's length less the nonces'. */
  bytes: number
  headers: Record<string, string>
}

/** The page with `nonce` wherever the rendered one was. */
function withNonce(page: RenderedPage, nonce: string): Buffer {
  const nonceBytes = Buffer.from(nonce, 'latin1')
  const answer = Buffer.allocUnsafe(page.bytes + nonceBytes.length * (page.parts.length - 1))
  let at = 0
  page.parts.forEach((part, index) => {
    if (index > 0) at += nonceBytes.copy(answer, at)
    at += part.copy(answer, at)
  })
  return answer
}

async function ssrPages(app: FastifyInstance, opts: SsrOptions): Promise<void> {
  const renderer = opts.dev ? await developmentRenderer(app, opts.root) : await productionRenderer(opts.root)
  const clientConfig: ClientConfig = { ...opts.config, localesHash: opts.catalog.hash }
  const pageCache = new MicroCache<RenderedPage>(PAGE_CACHE_TTL_MS, opts.now ?? Date.now, 500)
  /** Pages being rendered for the page cache, by key: a request for the same page waits for it. */
  const rendering = new Map<string, Promise<FastifyReply>>()

  /**
   * A page; with `form`, as the answer to a form the BFF has just handled (decision 025); with
   * `action`, as the answer of its route's action to the form's fields, its calls made by `writes`.
   */
  const renderPage = async (request: FastifyRequest, reply: FastifyReply, form?: { outcome: unknown; status: number }, action?: RouteActionInput) => {
    const locale = negotiateLocale(request.cookies[LOCALE_COOKIE_NAME], request.headers['accept-language'])
    const nonce = reply.pageCsp()
    // Pages may answer another site's arrival differently (the sign-out asks first),
    // so it is part of the cache key.
    const crossSite = isCrossSite(request.headers[SEC_FETCH_SITE] as string | undefined)
    // The consent banner shows until the visitor chooses: the choice is part of the page.
    const consent = parseConsent(request.cookies[CONSENT_COOKIE_NAME])
    // A form's answer is that visitor's own: never from the page cache, never into it.
    const cacheable = !opts.dev && form === undefined && action === undefined && isAnonymous(request) && !carriesToken(request.url)
    // Pages show the catalogue: one of an older catalogue version is never served.
    const cacheKey = cacheable ? `${await app.upstreamApi.catalogueVersion()}|${locale}|${consent ?? 'unset'}|${crossSite ? 'cross-site|' : ''}${request.url}` : ''
    if (cacheable) {
      let cached = pageCache.peek(cacheKey)
      // The page is being rendered for another visitor (the second it was kept for has just
      // passed): wait for that one rather than render it again. Under load every connection would
      // otherwise render it at once, each second (a sixth of a cached page's time).
      const pending = cached ? undefined : rendering.get(cacheKey)
      if (pending) {
        // Its failure is its own: this request renders the page itself if it was not kept.
        await pending.then(() => undefined, () => undefined)
        cached = pageCache.peek(cacheKey)
        if (cached) app.metrics.pageCache.inc({ outcome: 'waited' })
      } else if (cached) app.metrics.pageCache.inc({ outcome: 'hit' })
      if (cached) {
        pageHeaders(reply, locale)
        reply.headers(cached.headers)
        return reply.code(cached.status).type('text/html; charset=utf-8').send(withNonce(cached, nonce))
      }
      // Not kept (an error page, a redirect) or not yet: this request renders it, and is the one
      // others wait for when no one else is rendering it already.
      if (!rendering.has(cacheKey)) {
        const rendered = renderFresh(request, reply, { locale, nonce, crossSite, consent, cacheable, cacheKey }, form).finally(() => rendering.delete(cacheKey))
        rendering.set(cacheKey, rendered)
        return rendered
      }
    }
    return renderFresh(request, reply, { locale, nonce, crossSite, consent, cacheable, cacheKey }, form, action)
  }

  /**
   * The session cannot be checked (the core's keys or its revocation list cannot be had): an error
   * page in the visitor's language, not a guess. An outage of the core is logged once, by the
   * revocation list's reader and by the core itself; anything else here.
   */
  const sessionUnreadable = async (request: FastifyRequest, reply: FastifyReply, locale: Locale, nonce: string, error: unknown) => {
    const outage = isAuthCoreOutage(error)
    if (!outage) request.log.error({ err: error }, 'the page session could not be read')
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).header('cache-control', 'no-store')
    const page = renderFailurePage(opts.catalog, locale, request.id, 503, outage ? 'unavailable' : 'server', await renderer.template(request.url, nonce).catch(() => ''))
    return reply.code(503).type('text/html; charset=utf-8').send(page)
  }

  /** The page that refreshes an expired access token by script, then loads the page again. */
  const refreshAnswer = (reply: FastifyReply, locale: Locale, nonce: string) => {
    const common = opts.catalog.resources[locale].common as { session?: { refreshing: string; refreshFailed: string; signIn: string }; errors?: { unavailable?: { title?: string } } }
    const texts = common.session
    reply.header('cache-control', 'no-store')
    return reply
      .code(200)
      .type('text/html; charset=utf-8')
      .send(
        refreshPage(locale, nonce, {
          title: texts?.refreshing ?? '…',
          failed: texts?.refreshFailed ?? '',
          signIn: texts?.signIn ?? 'Sign in',
          unavailable: common.errors?.unavailable?.title ?? 'Service unavailable',
        }),
      )
  }

  /** The page rendered now (not from the page cache); kept in it when `page.cacheable` and it may be. */
  const renderFresh = async (
    request: FastifyRequest,
    reply: FastifyReply,
    page: { locale: Locale; nonce: string; crossSite: boolean; consent: ReturnType<typeof parseConsent>; cacheable: boolean; cacheKey: string },
    form?: { outcome: unknown; status: number },
    action?: RouteActionInput,
  ) => {
    const { locale, nonce, crossSite, consent, cacheable, cacheKey } = page
    if (cacheable) app.metrics.pageCache.inc({ outcome: 'rendered' })
    pageHeaders(reply, locale)
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && name !== 'cookie' && name !== 'authorization') headers[name] = value
    }
    let result: RenderResult
    let template: string | undefined
    let session: PageSessionResult
    try {
      session = await pageSession(request, reply)
    } catch (error) {
      return sessionUnreadable(request, reply, locale, nonce, error)
    }
    if (session.kind === 'refresh' && crossSite && isLogoutPath(request.url)) {
      // The refresh page reloads by script, and that reload arrives same-origin: the sign-out
      // would no longer ask. It needs no fresh access token (the browser SDK refreshes when the
      // visitor confirms), so the question is rendered at once.
      session = LOGGED_OUT_PAGE
    }
    if (session.kind === 'refresh') return refreshAnswer(reply, locale, nonce)
    mirrorFrontToken(reply, opts.https)
    // A signed-in page is the user's own: no shared cache keeps it.
    if (session.session.state !== 'LOGGED_OUT' || form || action) reply.header('cache-control', 'no-store')
    try {
      // Appended, not resolved: a path like "//other.host/x" must stay a path on our origin.
      const url = new URL(`${opts.config.appUrl}${request.url}`).href
      template = await renderer.template(request.url, nonce)
      result = await renderer.render({
        url,
        headers,
        locale,
        resources: opts.catalog.resources[locale],
        nonce,
        api: serverApi(app, request, locale, session.accessToken, action?.writes),
        config: opts.logosVersion ? { ...clientConfig, logosVersion: await opts.logosVersion() } : clientConfig,
        session: session.session,
        consent,
        ...(form ? { form } : {}),
        ...(action ? { formFields: action.fields } : {}),
        markupTurn: () => opts.markupTurns.take(),
      })
    } catch (error) {
      if (error instanceof Error) renderer.fixStack?.(error)
      request.log.error({ err: error }, 'page render failed')
      if (app.errorReporter) reply.header(ERROR_EVENT_HEADER, app.errorReporter.captureRequestError(error, request))
      // The template, when it was had: a failure to get it is what may have brought us here.
      return reply.code(500).type('text/html; charset=utf-8').send(renderFailurePage(opts.catalog, locale, request.id, 500, 'server', template ?? ''))
    }
    action?.writes.passOn(reply)
    // A form of a page whose route has no action: nothing was done (its loaders ran, nothing more).
    if (action && result.kind === 'page' && result.status === 405) {
      return reply.code(405).header('allow', 'GET, HEAD').type('text/html; charset=utf-8').send(formNotReadyPage(opts.catalog, locale, request.url))
    }
    // After a form's action, a redirect is a 303 the browser follows with a GET, and goes where the
    // action said (the form's page is no target to come back to: what was sent is not sent again).
    if (result.kind === 'redirect') return action ? reply.redirect(result.location, 303) : reply.redirect(withGuardReturn(result.location, request.url), result.status)
    // The error page of an outage (the API's 503): when to try again, as the API said.
    if (result.status === 503) reply.header('retry-after', String(retryAfterOf.get(request) ?? DATABASE_RETRY_AFTER_SECONDS))
    // The routes' own headers (a share link's page) replace the defaults of the same name;
    // a page that asks for no-store is not kept by the page cache either.
    reply.headers(result.headers)
    const html = template
      // Function replacements: a "$&" in page content must stay literal.
      .replace('<!--app-lang-->', () => locale)
      .replace('<!--app-head-->', () => result.head + renderer.preloadLinks(result.modules))
      .replace('<!--app-html-->', () => result.html)
      .replace('<!--app-scripts-->', () => result.scripts)
    if (cacheable && result.status === 200 && !result.headers['cache-control']?.includes('no-store')) {
      // Cut at the nonce: 128 random bits, which nothing else in the page can contain.
      const parts = html.split(nonce).map((part) => Buffer.from(part, 'utf8'))
      pageCache.put(cacheKey, { status: 200, parts, bytes: parts.reduce((sum, part) => sum + part.length, 0), headers: result.headers })
    }
    return reply.code(result.status).type('text/html; charset=utf-8').send(html)
  }

  const handler = (request: FastifyRequest, reply: FastifyReply) => renderPage(request, reply)
  app.get('/*', handler)
  app.get('/', handler)

  // A form a page sent before its script ran posts to the page's own address (decision 025).
  // The account forms are answered like their script would (opts.pageForms); a page whose route
  // has an action runs it, as the script would; any other is told, in a page, that nothing was
  // done — never a JSON body.
  await app.register(async (scope) => {
    // The limiter's refusal is a page here too, not the API routes' JSON error.
    scope.setErrorHandler((error, request, reply) => {
      if ((error as { statusCode?: number }).statusCode !== 429) throw error
      const locale = negotiateLocale(request.cookies[LOCALE_COOKIE_NAME], request.headers['accept-language'])
      return reply.code(429).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(formLimitPage(opts.catalog, locale, request.url))
    })
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: PAGE_FORM_BODY_LIMIT }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)))
    })
    const post = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!isFormPost(request)) throw new BffNotFound(request.method, request.url.split('?')[0] ?? '/')
      reply.header('cache-control', 'no-store')
      const answer = opts.pageForms ? await opts.pageForms(request, reply) : null
      if (answer === null) {
        const locale = negotiateLocale(request.cookies[LOCALE_COOKIE_NAME], request.headers['accept-language'])
        return reply.code(405).header('allow', 'GET, HEAD').type('text/html; charset=utf-8').send(formNotReadyPage(opts.catalog, locale, request.url))
      }
      if ('redirect' in answer) {
        mirrorFrontToken(reply, opts.https)
        return reply.redirect(answer.redirect, 303)
      }
      if ('routeAction' in answer) {
        const fields = new URLSearchParams(request.body as Record<string, string>).toString()
        return renderPage(request, reply, undefined, { fields, writes: answer.routeAction })
      }
      return renderPage(request, reply, answer)
    }
    const limited = { config: { rateLimit: { max: opts.formRateLimitMax, timeWindow: 60_000 } } }
    scope.post('/*', limited, post)
    scope.post('/', limited, post)
  })
}

export const ssrRoutes = fp(ssrPages, { name: 'ssr', encapsulate: true, dependencies: ['@fastify/cookie', 'rate-limit', 'upstream-api', 'auth'] })
