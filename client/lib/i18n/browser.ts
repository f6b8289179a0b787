import type { NamespaceResources } from '../../../shared/web/ssr-contract.ts'

/**
 * The browser's translations (decision 031): the same i18next JSON resources, looked up
 * the way i18next looks them up with the options `createI18n` (client/lib/i18n/i18n.ts) gives it, in a
 * few hundred bytes instead of i18next's 15 kB gzip. The server renders with i18next; hydration
 * needs the browser to write the very same text, which test/unit/client/i18n-browser.test.ts
 * proves for every key of every namespace of every language (values, plural counts, contexts,
 * default values, objects). What it covers: `ns:key` and `ns` (the first namespace wins, as
 * react-i18next's `t` has it), nested keys, `{{value}}` (never escaped, as `escapeValue: false`;
 * one the call lacks stays as written), `count` (Intl.PluralRules, `_zero` when the count is 0),
 * `context`, `defaultValue` (and its plural forms), `returnObjects`, `replace`. Not covered, and
 * refused by that test if the resources or the code ever use them: keys with a dot in their own
 * name, `{{-value}}`, nesting (`$t(…)`), formats (`{{value, number}}`) and ordinal plurals.
 */

type Tree = Record<string, unknown>
export interface TOptions {
  ns?: string | readonly string[]
  lng?: string
  count?: number
  context?: string | number
  defaultValue?: unknown
  returnObjects?: boolean
  replace?: Record<string, unknown>
  [value: string]: unknown
}
export type TFunction = (key: string, options?: TOptions | string) => any // eslint-disable-line @typescript-eslint/no-explicit-any -- i18next's t gives what the key holds

const own = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key)
const isString = (value: unknown): value is string => typeof value === 'string'

/** i18next's getPath: down the `.`-separated path, own properties only, strings end the way. */
function getPath(object: unknown, path: string[]): unknown {
  for (let i = 0; i < path.length - 1; i++) {
    if (!object || isString(object)) return undefined
    object = own(object as object, path[i]!) ? (object as Tree)[path[i]!] : {}
  }
  return object && !isString(object) && own(object as object, path.at(-1)!) ? (object as Tree)[path.at(-1)!] : undefined
}

const lookup = (object: unknown, key: string) => getPath(object, key.split('.'))

const makeString = (value: unknown) => (value == null ? '' : String(value))

/** i18next's interpolation with `escapeValue: false`: a value it lacks leaves its placeholder as written. */
function interpolate(text: string, data: Tree, options: TOptions): string {
  return text.replace(/\{\{(.+?)\}\}/g, (placeholder, name: string) => {
    const value = getPath(data, name.trim().split('.'))
    return value !== undefined ? makeString(value) : own(options, name.trim()) ? '' : placeholder
  })
}

const pluralRules = new Map<string, Intl.PluralRules>()
function pluralSuffix(language: string, count: number): string {
  let rules = pluralRules.get(language)
  if (!rules) pluralRules.set(language, (rules = new Intl.PluralRules(language.replace(/_/g, '-'))))
  return `_${rules.select(count)}`
}

/** i18next's looksLikeObjectPath with `:` and `.` as separators: `ns:key`, not a sentence. */
function looksLikeObjectPath(key: string): boolean {
  const sentence = /( |,|\?|!|;)/
  if (!sentence.test(key)) return true
  const dot = key.indexOf('.')
  return dot > 0 && !sentence.test(key.substring(0, dot))
}

function splitKey(key: string, options: TOptions): { key: string; namespaces: string[] } {
  let namespaces: string | readonly string[] = options.ns || 'common'
  if (key.includes(':') && looksLikeObjectPath(key) && !/\$t\(/.test(key)) {
    const parts = key.split(':')
    namespaces = parts.shift()!
    key = parts.join('.')
  }
  return { key, namespaces: isString(namespaces) ? [namespaces] : [...namespaces] }
}

const isValid = (value: unknown) => value !== undefined && value !== null

export type Store = Record<string, NamespaceResources>

/** i18next's `t`, over `store` (language → namespace → keys) for `language` unless `options.lng`. */
export function translate(store: Store, language: string, keyIn: string, optionsIn: TOptions | string = {}): unknown {
  const options: TOptions = isString(optionsIn) ? { defaultValue: optionsIn } : { ...optionsIn }
  const { key, namespaces } = splitKey(String(keyIn), options)
  const lng = options.lng || language
  const plural = options.count !== undefined && !isString(options.count)
  const suffix = plural ? pluralSuffix(lng, options.count!) : ''
  const zero = plural && options.count === 0
  const context = options.context !== undefined && (isString(options.context) || typeof options.context === 'number') && options.context !== ''

  // Resolve: per namespace, the most specific key first.
  let found: unknown
  let usedKey = key
  const candidates = (base: string) => [base, ...(plural ? [base + suffix, ...(zero ? [`${base}_zero`] : [])] : [])]
  const keys = [...candidates(key), ...(context ? candidates(`${key}_${options.context}`) : [])]
  for (const ns of namespaces) {
    for (let i = keys.length - 1; i >= 0 && !isValid(found); i--) {
      usedKey = keys[i]!
      found = lookup(store[lng]?.[ns], usedKey)
    }
    if (isValid(found)) break
  }

  const hasDefault = Object.keys(options).some((option) => option.startsWith('defaultValue') && options[option] !== undefined)
  const defaultValue = (zero && options.defaultValue_zero) || options[`defaultValue${suffix}`] || options.defaultValue
  const forObject = !found && hasDefault ? defaultValue : found
  if (forObject && typeof forObject === 'object') {
    if (!options.returnObjects) return `key '${key} (${language})' returned an object instead of string.`
    const copy: Tree = Array.isArray(forObject) ? ([] as unknown as Tree) : {}
    const base = Array.isArray(forObject) ? usedKey : key
    for (const part of Object.keys(forObject)) {
      const deepKey = `${base}.${part}`
      const sub: TOptions = { ...options, joinArrays: false, ns: namespaces }
      if (hasDefault && !found) sub.defaultValue = defaultValue && typeof defaultValue === 'object' ? (defaultValue as Tree)[part] : undefined
      const value = translate(store, language, deepKey, sub)
      copy[part] = value === deepKey ? (forObject as Tree)[part] : value
    }
    return copy
  }
  let text = found
  if (!isValid(text) && hasDefault) text = defaultValue
  if (!isValid(text)) text = key
  if (!isString(text)) return text
  return interpolate(text, options.replace && !isString(options.replace) ? options.replace : options, options)
}

type Listener = (language: string) => void

/**
 * The tab's translations: the page's namespaces from the server's HTML, more fetched from the
 * hashed locale path as pages need them, and the language switched once every namespace the tab
 * has is there in the new one (as i18next's `changeLanguage`). The parts of i18next's instance the
 * app uses: `language`, `t`, `getFixedT`, `changeLanguage`, `loadNamespaces`, `hasLoadedNamespace`,
 * `on`/`off('languageChanged')`. Without `localesHash` nothing is fetched: every namespace is there.
 */
export class BrowserI18n {
  declare language: string
  declare readonly store: Store
  declare private namespaces: string[]
  declare private changingTo: string | undefined
  declare private fetchJson: ((lng: string, ns: string) => Promise<unknown>) | null
  readonly options = { defaultNS: 'common' }
  private listeners = new Set<Listener>()
  private loading = new Map<string, Promise<void>>()

  constructor(options: { locale: string; resources: NamespaceResources; namespaces: readonly string[]; localesHash?: string; fetchJson?: (url: string) => Promise<unknown> }) {
    const { locale, localesHash, fetchJson = fetchLocale } = options
    this.language = locale
    this.store = { [locale]: { ...options.resources } }
    this.namespaces = [...options.namespaces]
    this.fetchJson = localesHash ? (lng, ns) => fetchJson(`/locales/${localesHash}/${encodeURIComponent(lng)}/${encodeURIComponent(ns)}.json`) : null
  }

  t = (key: string, options?: TOptions | string): any => this.getFixedT(this.language, 'common')(key, options) // eslint-disable-line @typescript-eslint/no-explicit-any

  /** A `t` for one language and namespace (react-i18next's `useTranslation` makes one per render). */
  getFixedT(language: string, ns?: string | readonly string[]): TFunction {
    return (key, options) => {
      const own: TOptions = isString(options) ? { defaultValue: options } : { ...options }
      own.lng ||= language
      own.ns ||= ns
      return translate(this.store, this.language, key, own)
    }
  }

  hasLoadedNamespace(ns: string): boolean {
    return !this.fetchJson || !!this.store[this.language]?.[ns]
  }

  loadNamespaces(ns: string | readonly string[]): Promise<void> {
    const list = isString(ns) ? [ns] : ns
    for (const n of list) if (!this.namespaces.includes(n)) this.namespaces.push(n)
    return this.load([this.language, this.changingTo ?? this.language], list)
  }

  async changeLanguage(language: string): Promise<TFunction> {
    this.changingTo = language
    await this.load([language], this.namespaces)
    if (this.changingTo === language) {
      this.language = language
      this.changingTo = undefined
      for (const listener of [...this.listeners]) listener(language)
    }
    return this.t
  }

  on(_event: 'languageChanged', listener: Listener): void {
    this.listeners.add(listener)
  }

  off(_event: 'languageChanged', listener: Listener): void {
    this.listeners.delete(listener)
  }

  /** Fetches what `languages` lack of `namespaces`; one that fails stays missing (its keys show). */
  private async load(languages: string[], namespaces: readonly string[]): Promise<void> {
    const fetchJson = this.fetchJson
    if (!fetchJson) return
    await Promise.all(
      languages.flatMap((lng) =>
        namespaces.map((ns) => {
          const name = `${lng}/${ns}`
          let pending = this.loading.get(name)
          if (!pending && !this.store[lng]?.[ns]) {
            pending = fetchJson(lng, ns)
              .then((tree) => void ((this.store[lng] ??= {})[ns] = tree as Tree))
              .catch(() => void this.loading.delete(name))
            this.loading.set(name, pending)
          }
          return pending
        }),
      ),
    )
  }
}

async function fetchLocale(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: { accept: 'application/json' } })
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`)
  return response.json()
}
