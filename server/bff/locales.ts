import { createHash } from 'node:crypto'
import fs from 'node:fs'
import type { IncomingMessage } from 'node:http'
import path from 'node:path'
import { escapeHtml } from '../../shared/web/html.ts'
import { safeReturnPath } from '../../shared/auth/return-path.ts'
import { DEFAULT_LOCALE, LOCALES, NAMESPACES, negotiateLocale, type Locale } from '../../shared/locales.ts'
import type { NamespaceResources } from '../../shared/web/ssr-contract.ts'
import { simplePage } from './html-page.ts'

export interface LocaleCatalog {
  /** Content hash of every locale file; part of the URL the browser fetches them from. */
  hash: string
  resources: Record<Locale, NamespaceResources>
  /** Serialised JSON per `<lng>/<ns>`, ready to send. */
  files: Map<string, string>
}

type Tree = Record<string, unknown>

/** English fills keys a translation lacks (DESIGN.md §4.7), so no fallback is fetched later. */
function fillMissing(target: Tree, fallback: Tree): Tree {
  const out: Tree = { ...target }
  for (const [key, value] of Object.entries(fallback)) {
    const own = out[key]
    if (own === undefined) out[key] = value
    else if (own && value && typeof own === 'object' && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = fillMissing(own as Tree, value as Tree)
    }
  }
  return out
}

/** Reads locales/<lng>/<ns>.json once at boot. A missing English file stops the start. */
export function loadLocaleCatalog(root: string): LocaleCatalog {
  const hash = createHash('sha256')
  const read = (lng: string, ns: string): Tree | undefined => {
    const file = path.join(root, 'locales', lng, `${ns}.json`)
    if (!fs.existsSync(file)) return undefined
    const text = fs.readFileSync(file, 'utf8')
    hash.update(`${lng}/${ns}\n${text}`)
    return JSON.parse(text) as Tree
  }
  const english: NamespaceResources = {}
  for (const ns of NAMESPACES) {
    const tree = read(DEFAULT_LOCALE, ns)
    if (!tree) throw new Error(`locales/${DEFAULT_LOCALE}/${ns}.json is missing`)
    english[ns] = tree
  }
  const resources = {} as Record<Locale, NamespaceResources>
  const files = new Map<string, string>()
  for (const lng of LOCALES) {
    const bundle: NamespaceResources = {}
    for (const ns of NAMESPACES) {
      const base = english[ns] ?? {}
      bundle[ns] = lng === DEFAULT_LOCALE ? base : fillMissing(read(lng, ns) ?? {}, base)
      files.set(`${lng}/${ns}`, JSON.stringify(bundle[ns]))
    }
    resources[lng] = bundle
  }
  return { hash: hash.digest('hex').slice(0, 16), resources, files }
}

/** The `lang` cookie of a raw request's Cookie header (the page's language choice), if any. */
function langCookie(header: string | undefined): string | undefined {
  return header ? /(?:^|;\s*)lang=([^;]*)/.exec(header)?.[1]?.trim() : undefined
}

/**
 * The page a browser gets when the BFF sheds a page request or refuses it while it
 * shuts down (`restarting`): in the visitor's language (the `lang` cookie, then
 * Accept-Language), saying it is busy or restarting, and reloading itself once Retry-After has
 * passed. Made once per language at boot: refusing must cost next to nothing.
 */
export function busyPages(catalog: LocaleCatalog, retryAfterSeconds = 2, text: 'busy' | 'restarting' = 'busy'): (request: IncomingMessage) => string {
  const pages = new Map<Locale, string>()
  for (const lng of LOCALES) {
    const busy = (catalog.resources[lng].common as { errors?: Record<string, { title?: string; cause?: string } | undefined> }).errors?.[text]
    const title = busy?.title ?? 'Softshelf is busy'
    pages.set(
      lng,
      simplePage({ lang: lng, title, noindex: true, refreshSeconds: retryAfterSeconds, body: `<main><p>503</p><h1>${escapeHtml(title)}</h1><p>${escapeHtml(busy?.cause ?? '')}</p></main>` }),
    )
  }
  return (request) => pages.get(negotiateLocale(langCookie(request.headers.cookie), request.headers['accept-language']))!
}

/**
 * The page a browser gets when a page load is over the rate limit (decision 027): in the visitor's
 * language, saying when it will try again, and doing so by itself once Retry-After has passed (a
 * meta refresh: no script; the strict CSP of every answer, plus its one style by hash). Cheap: a template per language,
 * made at boot; only the seconds and the address to reload are filled in.
 */
const RATE_LIMITED_STYLE =
  'body{margin:0;padding:3rem 1.25rem;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937;background:#f8fafc}' +
  'main{max-width:34rem;margin:0 auto}p:first-child{margin:0;color:#64748b;font-weight:600}h1{margin:.25rem 0 1rem;font-size:1.6rem;line-height:1.25}' +
  'a{display:inline-block;margin-top:.5rem;padding:.6rem 1rem;border-radius:.5rem;background:#2563eb;color:#fff;text-decoration:none;font-weight:600}a:focus-visible{outline:3px solid #93c5fd;outline-offset:2px}'

/** The rate-limit page's CSP: the strict one of every answer, and its one inline style by hash. */
export const RATE_LIMITED_PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(RATE_LIMITED_STYLE).digest('base64')}'; frame-ancestors 'none'; base-uri 'none'`

export function rateLimitedPages(catalog: LocaleCatalog): (request: { headers: IncomingMessage['headers']; url: string }, retryAfterSeconds: number) => string {
  const pages = new Map<Locale, (seconds: number, url: string) => string>()
  for (const lng of LOCALES) {
    const texts = (catalog.resources[lng].common as { errors?: Record<string, { title?: string; cause?: string; retry?: string } | undefined> }).errors?.rateLimited
    const title = texts?.title ?? 'Please wait a moment'
    const cause = escapeHtml(texts?.cause ?? '')
    const retry = escapeHtml(texts?.retry ?? '')
    pages.set(lng, (seconds, url) =>
      simplePage({
        lang: lng,
        title,
        noindex: true,
        refreshSeconds: seconds,
        head: `<style>${RATE_LIMITED_STYLE}</style>`,
        body: `<main><p>429</p><h1>${escapeHtml(title)}</h1><p>${cause.replace('{{seconds}}', String(seconds))}</p><p><a href="${escapeHtml(url)}">${retry}</a></p></main>`,
      }),
    )
  }
  return (request, retryAfterSeconds) => {
    // The link goes back to the page asked for; a request line's "//host" is no page of ours.
    const url = safeReturnPath(request.url) ?? '/'
    return pages.get(negotiateLocale(langCookie(request.headers.cookie), request.headers['accept-language']))!(retryAfterSeconds, url)
  }
}
