// The eight interface languages (spec §1). The language is never part of the route (spec §9).
export const LOCALES = ['en', 'es', 'sk', 'ro', 'pl', 'hu', 'de', 'cs'] as const
export type Locale = (typeof LOCALES)[number]
export const DEFAULT_LOCALE: Locale = 'en'

/** Each language's own name, shown in the language switcher. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  es: 'Español',
  sk: 'Slovenčina',
  ro: 'Română',
  pl: 'Polski',
  hu: 'Magyar',
  de: 'Deutsch',
  cs: 'Čeština',
}

/** Translation namespaces: locales/<lng>/<ns>.json. `common` is on every page. */
export const NAMESPACES = ['common', 'home', 'legal', 'catalogue', 'auth', 'profile', 'files', 'streaming', 'sentry', 'checkout', 'operator', 'compare', 'notifications', 'saved-searches'] as const
export type Namespace = (typeof NAMESPACES)[number]

/** Namespaces only the server reads (locales/<lng>/<ns>.json), never sent to the browser. */
export const SERVER_NAMESPACES = ['email'] as const

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value)
}

/**
 * Picks the language for a request: a valid `lang` cookie wins, then the best match of
 * Accept-Language (q-values honoured, "de-AT" matches "de"), then English.
 */
export function negotiateLocale(cookieValue: string | undefined, acceptLanguage: string | undefined): Locale {
  if (isLocale(cookieValue)) return cookieValue
  if (!acceptLanguage) return DEFAULT_LOCALE
  // Browsers send a handful of distinct values: each is parsed once, in a bounded memo.
  const known = ACCEPTED.get(acceptLanguage)
  if (known) return known
  if (ACCEPTED.size >= ACCEPTED_MAX) ACCEPTED.clear()
  const locale = bestOf(acceptLanguage)
  ACCEPTED.set(acceptLanguage, locale)
  return locale
}

/** Accept-Language values already negotiated; emptied when full, so no sender can grow it. */
const ACCEPTED = new Map<string, Locale>()
const ACCEPTED_MAX = 256

function bestOf(acceptLanguage: string): Locale {
  const ranges = acceptLanguage
    .split(',')
    .slice(0, 32)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';')
      let q = 1
      for (const param of params) {
        const [key, value] = param.trim().split('=')
        if (key === 'q' && value !== undefined) {
          const parsed = Number(value)
          q = Number.isFinite(parsed) ? parsed : 0
        }
      }
      return { tag: tag.trim().toLowerCase(), q, index }
    })
    .filter((range) => range.tag !== '' && range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
  for (const { tag } of ranges) {
    const primary = tag.split('-')[0]
    if (isLocale(primary)) return primary
  }
  return DEFAULT_LOCALE
}
