// Catalogue vocabulary of the spec (§2): category ids, licence types, library filter tabs and sort
// options. The shapes the catalogue API answers with are its schemas' (program-schemas.ts).

import type { LicenseType, Platform } from './vocabulary.ts'

export type { LicenseType, Platform }

/** The ten program categories; "all" is the filter value meaning no category. */
export const PROGRAM_CATEGORIES = [
  '3d',
  'graphics',
  'architecture-engineering',
  'video-motion',
  'game-development',
  'data-analytics',
  'audio-music',
  'productivity',
  'publishing',
  'simulation',
] as const
export type ProgramCategory = (typeof PROGRAM_CATEGORIES)[number]
export const ALL_CATEGORIES = 'all'

/**
 * English names for page titles, which the spec keeps in English (§1) whatever the visitor's
 * language. A test ties them to locales/en, the names the interface shows.
 */
export const CATEGORY_NAMES_EN: Record<ProgramCategory, string> = {
  '3d': '3D',
  graphics: 'Graphics',
  'architecture-engineering': 'Architecture & Engineering',
  'video-motion': 'Video & Motion',
  'game-development': 'Game Development',
  'data-analytics': 'Data Analytics',
  'audio-music': 'Audio & Music',
  productivity: 'Productivity',
  publishing: 'Publishing',
  simulation: 'Simulation',
}
export const LICENSE_TYPE_NAMES_EN: Record<LicenseType, string> = {
  freeware: 'Freeware',
  'open-source': 'Open source',
  freemium: 'Freemium',
  trial: 'Trial',
  commercial: 'Commercial',
  subscription: 'Subscription',
}


/**
 * The listings' platform filter, in the order of the vocabulary's PLATFORMS (a test ties
 * them). A record, so the type check keeps every platform in it; catalogue-vocabulary.ts itself
 * stays out of a visitor's first JavaScript.
 */
const PLATFORM_FILTER: Record<Platform, true> = { windows: true, macos: true, linux: true, web: true }
export const PLATFORM_FILTERS = Object.keys(PLATFORM_FILTER) as Platform[]

export const LIBRARY_FILTER_TABS = ['all', 'free', 'paid'] as const
export type PriceFilter = (typeof LIBRARY_FILTER_TABS)[number]
export const SORT_OPTIONS = ['namePopular', 'nameAsc', 'nameDesc'] as const
/** The API also sorts by most recent update (the home page's "recently updated"); listings offer the three above. */
export const API_SORT_OPTIONS = ['namePopular', 'nameAsc', 'nameDesc', 'updated'] as const satisfies readonly [...typeof SORT_OPTIONS, string]
export type ApiSortOption = (typeof API_SORT_OPTIONS)[number]
/**
 * The personal library also sorts by when the user added a program, newest first. Only
 * there: the public catalogue has no "added" date. Spec §2's three sorts stay, namePopular first.
 */
export const LIBRARY_SORT_OPTIONS = ['namePopular', 'nameAsc', 'nameDesc', 'recentlyAdded'] as const satisfies readonly [...typeof SORT_OPTIONS, string]
export type LibrarySortOption = (typeof LIBRARY_SORT_OPTIONS)[number]
/** GET /api/user/programs: the public listing's sorts and the library's own. (Literals, not spreads: a spread of an array stays in every page's JS, used or not.) */
export const USER_LIBRARY_API_SORT_OPTIONS = ['namePopular', 'nameAsc', 'nameDesc', 'updated', 'recentlyAdded'] as const satisfies readonly [...typeof API_SORT_OPTIONS, string]
export type UserLibraryApiSortOption = (typeof USER_LIBRARY_API_SORT_OPTIONS)[number]

/** My library's two views, the programs saved (the default) and those bought or subscribed to (?view=owned). */
export const LIBRARY_VIEWS = ['saved', 'owned'] as const
export type LibraryView = (typeof LIBRARY_VIEWS)[number]

export const DEFAULT_PAGE_SIZE = 24
export const MAX_PAGE_SIZE = 100

