import type { Locale } from './locales.ts'

// Streaming (decision 017): the keyboard layouts of spec §3 and the wire shapes of the
// streaming calls, one list for the page and the API.

export interface KeyboardLayout {
  /** A BCP 47 tag of the layout's country: what a cluster sets its input to. */
  id: string
  /** The layout's language (ISO 639-1). */
  language: string
  /** The layout's name in English, as operating systems name it. */
  name: string
}

/** Spec §3: "a keyboard layout list exists for about 23 languages with layout names". */
export const KEYBOARD_LAYOUTS: readonly KeyboardLayout[] = [
  { id: 'en-US', language: 'en', name: 'English (US)' },
  { id: 'en-GB', language: 'en', name: 'English (UK)' },
  { id: 'de-DE', language: 'de', name: 'German (QWERTZ)' },
  { id: 'fr-FR', language: 'fr', name: 'French (AZERTY)' },
  { id: 'cs-CZ', language: 'cs', name: 'Czech (QWERTZ)' },
  { id: 'sk-SK', language: 'sk', name: 'Slovak (QWERTZ)' },
  { id: 'pl-PL', language: 'pl', name: 'Polish (Programmer)' },
  { id: 'hu-HU', language: 'hu', name: 'Hungarian' },
  { id: 'ro-RO', language: 'ro', name: 'Romanian (Standard)' },
  { id: 'es-ES', language: 'es', name: 'Spanish' },
  { id: 'pt-BR', language: 'pt', name: 'Portuguese (Brazil)' },
  { id: 'it-IT', language: 'it', name: 'Italian' },
  { id: 'nl-NL', language: 'nl', name: 'Dutch' },
  { id: 'sv-SE', language: 'sv', name: 'Swedish' },
  { id: 'nb-NO', language: 'nb', name: 'Norwegian' },
  { id: 'da-DK', language: 'da', name: 'Danish' },
  { id: 'fi-FI', language: 'fi', name: 'Finnish' },
  { id: 'ru-RU', language: 'ru', name: 'Russian' },
  { id: 'uk-UA', language: 'uk', name: 'Ukrainian' },
  { id: 'tr-TR', language: 'tr', name: 'Turkish (Q)' },
  { id: 'el-GR', language: 'el', name: 'Greek' },
  { id: 'ja-JP', language: 'ja', name: 'Japanese' },
  { id: 'ko-KR', language: 'ko', name: 'Korean' },
]

export function isKeyboardLayout(id: unknown): id is string {
  return typeof id === 'string' && KEYBOARD_LAYOUTS.some((layout) => layout.id === id)
}

/** The layout a user starts with: the one of their interface language. */
export const DEFAULT_LAYOUT_BY_LOCALE: Record<Locale, string> = {
  en: 'en-US',
  es: 'es-ES',
  sk: 'sk-SK',
  ro: 'ro-RO',
  pl: 'pl-PL',
  hu: 'hu-HU',
  de: 'de-DE',
  cs: 'cs-CZ',
}

export function defaultLayoutFor(language: string): string {
  return DEFAULT_LAYOUT_BY_LOCALE[language as Locale] ?? 'en-US'
}

/** POST /api/user/assign-cluster's answer (docs/API.md "Streaming"). */
export interface StreamingAssignment {
  clusterId: string
  region: string
  /** The cluster's public address; the page opens it with the grant in the fragment. */
  url: string
  /** The signed grant (a JWT) the cluster verifies against GET /api/streaming/jwks. */
  token: string
  expiresAt: string
  programId: string
  keyboardLayout: string
  /** True when no cluster of the asked region had room and another region's was chosen. */
  fallback: boolean
}

export interface StreamingRegion {
  id: string
  /** Places free right now across the region's clusters. */
  free: number
}

/** GET /api/user/streaming: what the page needs in one answer. */
export interface StreamingState {
  /** False when no cluster is configured: the page says so and offers nothing to start. */
  available: boolean
  regions: StreamingRegion[]
  /** The account's remembered layout, else the one of its language. */
  keyboardLayout: string
  /**
   * The programs of the library that run on a desktop system. `entitled: false`: a paid program
   * the user has not bought (or whose subscription has ended): it cannot be streamed until bought.
   */
  programs: Array<{ id: string; name: string; entitled: boolean }>
  assignment: StreamingAssignment | null
}

/** Desktop systems a cluster can run; a web-only program needs no streaming. */
export const STREAMABLE_PLATFORMS = ['windows', 'macos', 'linux'] as const

/**
 * Region ids are the operator's ("eu-central", "us-east", "ap-southeast"…). The nearest one is
 * guessed from the continent of the browser's time zone, else of the language's country, by the
 * id's usual prefixes; the user can always change it.
 */
const CONTINENT_PREFIXES: Record<string, readonly string[]> = {
  Europe: ['eu', 'europe', 'uk', 'de', 'fr', 'nl'],
  America: ['us', 'na', 'ca', 'america', 'sa', 'br', 'latam'],
  Asia: ['ap', 'asia', 'jp', 'in', 'sg', 'me'],
  Australia: ['au', 'oc', 'ap'],
  Pacific: ['au', 'oc', 'ap'],
  Africa: ['af', 'africa', 'eu'],
  Atlantic: ['eu', 'us'],
  Indian: ['ap', 'in', 'af'],
}

/** Countries of Accept-Language tags (de-AT, en-US) to the continent of CONTINENT_PREFIXES. */
const COUNTRY_CONTINENTS: Record<string, string> = {
  US: 'America', CA: 'America', MX: 'America', BR: 'America', AR: 'America', CL: 'America', CO: 'America',
  GB: 'Europe', IE: 'Europe', DE: 'Europe', AT: 'Europe', CH: 'Europe', FR: 'Europe', ES: 'Europe', PT: 'Europe', IT: 'Europe',
  NL: 'Europe', BE: 'Europe', CZ: 'Europe', SK: 'Europe', PL: 'Europe', HU: 'Europe', RO: 'Europe', SE: 'Europe', NO: 'Europe',
  DK: 'Europe', FI: 'Europe', GR: 'Europe', UA: 'Europe',
  JP: 'Asia', KR: 'Asia', CN: 'Asia', IN: 'Asia', SG: 'Asia', TR: 'Asia',
  AU: 'Australia', NZ: 'Australia', ZA: 'Africa',
}
/** Our interface languages without a country: where most of their speakers are. */
const LANGUAGE_CONTINENTS: Record<string, string> = { de: 'Europe', sk: 'Europe', cs: 'Europe', pl: 'Europe', hu: 'Europe', ro: 'Europe', es: 'Europe' }

export interface RegionHint {
  /** The browser's IANA time zone (Europe/Prague); only the browser knows it. */
  timeZone?: string | undefined
  /** Language tags, the most telling first: the page's language, then the browser's (de-AT). */
  languages?: ReadonlyArray<string | undefined>
}

function continentOf(hint: RegionHint): string | undefined {
  const zone = hint.timeZone?.split('/')[0]
  if (zone && CONTINENT_PREFIXES[zone]) return zone
  for (const tag of hint.languages ?? []) {
    const [language = '', country = ''] = (tag ?? '').split(/[-_]/)
    const continent = COUNTRY_CONTINENTS[country.toUpperCase()] ?? LANGUAGE_CONTINENTS[language.toLowerCase()]
    if (continent) return continent
  }
  return undefined
}

/** The region to preselect: the nearest one that has room, else the nearest, else the first. */
export function suggestRegion(regions: readonly StreamingRegion[], hint: RegionHint): string | undefined {
  const continent = continentOf(hint)
  const prefixes = continent ? CONTINENT_PREFIXES[continent]! : []
  const near = regions.filter((region) => prefixes.some((prefix) => region.id === prefix || region.id.startsWith(`${prefix}-`)))
  return (near.find((region) => region.free > 0) ?? near[0] ?? regions.find((region) => region.free > 0) ?? regions[0])?.id
}
