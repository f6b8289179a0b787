import type { i18n as I18n } from 'i18next'
import type { Params } from 'react-router'
import { PAGE_TITLE, PRODUCT_NAME } from '../../../shared/constants.ts'
import { escapeHtml } from '../../../shared/web/html.ts'
import type { Locale } from '../../../shared/locales.ts'
import { serializeForScript } from '../../../shared/web/ssr-contract.ts'

// What a page puts in <head> for search engines and link previews: title, description,
// canonical URL, Open Graph, and structured data. The server writes it into the HTML; in the
// browser the same code updates the document after each navigation. The browser loads this file
// and the builders (client/page-heads.ts) only then (client/lib/head/route-head.ts): the first head is
// the server's, and they stay out of every page's initial JS (1.1–1.5 kB gzip of the first-load budget, then 130 kB).

export interface PageHead {
  /** English, like every page title (spec §1); the product name is appended. */
  title: string
  /** In the visitor's language; the product description when left out. */
  description?: string
  /** schema.org structured data, written as JSON-LD. */
  jsonLd?: Record<string, unknown>
  /** Error pages and other pages that should not be indexed. */
  noindex?: boolean
  /** The picture a link to the page shows on social sites (Open Graph); absolute URL. */
  image?: PageImage
  /** The Atom feed of the page (`<link rel="alternate" type="application/atom+xml">`); its path on the app. */
  feed?: { title: string; path: string }
}

export interface PageImage {
  url: string
  width: number
  height: number
  /** What the picture shows, for people who cannot see it. */
  alt: string
}

export interface HeadInput {
  data: unknown
  params: Params
  t: I18n['t']
  appUrl: string
  /** Version of the logo set (ClientConfig.logosVersion), for image URLs. */
  logosVersion: string
}

/** A route's head from its loader data; null while there is no data (the page errored). */
export type HeadBuilder = (input: HeadInput) => PageHead | null

/** The pages whose head is built from their data, by the builder of that name (client/page-heads.ts). */
export type HeadBuilderName = 'home' | 'listing' | 'program' | 'files' | 'compare'

/**
 * What a route declares (`handle.head`): a builder's name, a head that never changes (account and
 * legal pages), or null for a route that always errors, whose error page sets the head.
 */
export type RouteHeadSpec = HeadBuilderName | PageHead | null

export interface ResolvedHead {
  title: string
  description: string
  canonical: string
  locale: Locale | string
  jsonLd: string | null
  noindex: boolean
  image: PageImage | null
  /** The page's Atom feed, its URL absolute. */
  feed: { title: string; href: string } | null
}

/** Open Graph locale names of our languages. */
const OG_LOCALES: Record<string, string> = {
  en: 'en_US',
  es: 'es_ES',
  sk: 'sk_SK',
  ro: 'ro_RO',
  pl: 'pl_PL',
  hu: 'hu_HU',
  de: 'de_DE',
  cs: 'cs_CZ',
}

interface MatchLike {
  handle?: unknown
  data?: unknown
  params: Params
}

/** The deepest matched route that declares a head gives the page's head. */
export function routeHead(
  matches: readonly MatchLike[],
  builders: Readonly<Record<HeadBuilderName, HeadBuilder>>,
  t: I18n['t'],
  appUrl: string,
  logosVersion: string,
): PageHead | null | undefined {
  for (let i = matches.length - 1; i >= 0; i--) {
    const match = matches[i]!
    const spec = (match.handle as { head?: RouteHeadSpec } | undefined)?.head
    if (spec === undefined) continue
    if (typeof spec !== 'string') return spec
    return builders[spec]({ data: match.data, params: match.params, t, appUrl, logosVersion })
  }
  return undefined
}

/** Error pages: English titles (spec §1), never indexed. */
export function errorHead(status: number): PageHead {
  const title = status === 404 ? 'Page not found' : status === 502 || status === 503 || status === 504 ? 'Service unavailable' : status >= 500 ? 'Something went wrong' : `Error ${status}`
  return { title, noindex: true }
}

export function resolveHead(head: PageHead | null | undefined, input: { t: I18n['t']; appUrl: string; pathname: string; locale: string }): ResolvedHead {
  return {
    title: head && head.title !== PAGE_TITLE ? `${head.title} — ${PRODUCT_NAME}` : PAGE_TITLE,
    description: head?.description ?? input.t('meta.description', { ns: 'common' }),
    // Appended, not resolved: "//other.host/x" is a path here, never another origin.
    canonical: `${input.appUrl}${input.pathname}`,
    locale: input.locale,
    jsonLd: head?.jsonLd ? serializeForScript(head.jsonLd) : null,
    noindex: head?.noindex ?? false,
    image: head?.image ?? null,
    feed: head?.feed ? { title: head.feed.title, href: `${input.appUrl}${head.feed.path}` } : null,
  }
}

function metaEntries(head: ResolvedHead): MetaEntry[] {
  return [
    ['name', 'description', head.description],
    ['name', 'robots', head.noindex ? 'noindex' : 'index, follow'],
    ['property', 'og:site_name', PRODUCT_NAME],
    ['property', 'og:type', 'website'],
    ['property', 'og:title', head.title],
    ['property', 'og:description', head.description],
    ['property', 'og:url', head.canonical],
    ['property', 'og:locale', OG_LOCALES[head.locale] ?? 'en_US'],
    ...imageEntries(head.image),
    // A page with its own picture shows it large in link previews.
    ['name', 'twitter:card', head.image ? 'summary_large_image' : 'summary'],
  ]
}

type MetaEntry = [attribute: 'name' | 'property', key: string, content: string]

/** The Open Graph image tags; a page without a picture has none (IMAGE_KEYS, removed in the browser). */
const IMAGE_KEYS = ['og:image', 'og:image:type', 'og:image:width', 'og:image:height', 'og:image:alt'] as const

function imageEntries(image: PageImage | null): MetaEntry[] {
  if (!image) return []
  const values = [image.url, 'image/png', String(image.width), String(image.height), image.alt]
  return IMAGE_KEYS.map((key, i) => ['property', key, values[i]!])
}

/** The tags for <head> on the server. */
export function headTags(head: ResolvedHead, nonce: string): string {
  const tags = [`<title>${escapeHtml(head.title)}</title>`]
  for (const [attribute, key, content] of metaEntries(head)) tags.push(`<meta ${attribute}="${key}" content="${escapeHtml(content)}">`)
  tags.push(`<link rel="canonical" href="${escapeHtml(head.canonical)}">`)
  if (head.feed) tags.push(`<link rel="alternate" type="application/atom+xml" title="${escapeHtml(head.feed.title)}" href="${escapeHtml(head.feed.href)}">`)
  // A data block is never executed; the nonce only keeps strict CSP reports quiet.
  if (head.jsonLd) tags.push(`<script type="application/ld+json" nonce="${nonce}">${head.jsonLd}</script>`)
  return tags.join('')
}

/** The same tags, updated in place after a navigation in the browser. */
export function applyHead(head: ResolvedHead): void {
  document.title = head.title
  if (!head.image) for (const key of IMAGE_KEYS) document.head.querySelector(`meta[property="${key}"]`)?.remove()
  for (const [attribute, key, content] of metaEntries(head)) {
    let element = document.head.querySelector<HTMLMetaElement>(`meta[${attribute}="${key}"]`)
    if (!element) {
      element = document.createElement('meta')
      element.setAttribute(attribute, key)
      document.head.append(element)
    }
    element.content = content
  }
  document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]')?.setAttribute('href', head.canonical)
  let feed = document.head.querySelector<HTMLLinkElement>('link[rel="alternate"][type="application/atom+xml"]')
  if (!head.feed) {
    feed?.remove()
  } else {
    if (!feed) {
      feed = document.createElement('link')
      feed.rel = 'alternate'
      feed.type = 'application/atom+xml'
      document.head.append(feed)
    }
    feed.title = head.feed.title
    feed.href = head.feed.href
  }
  const script = document.head.querySelector('script[type="application/ld+json"]')
  if (!head.jsonLd) {
    script?.remove()
  } else if (script) {
    script.textContent = head.jsonLd
  } else {
    const element = document.createElement('script')
    element.type = 'application/ld+json'
    element.textContent = head.jsonLd
    document.head.append(element)
  }
}
