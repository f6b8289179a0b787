// The catalogue's licence types and platforms as values: what the API validates and
// the operator console's editor offers. Apart from shared/catalogue/catalogue.ts, which every catalogue page
// loads, so that these values stay out of a visitor's first JavaScript; the types are there too.

/** Licence types and whether each means free or paid. */
export const LICENSE_TYPES = {
  freeware: { free: true },
  'open-source': { free: true },
  freemium: { free: true },
  trial: { free: false },
  commercial: { free: false },
  subscription: { free: false },
} as const
export type LicenseType = keyof typeof LICENSE_TYPES
export const LICENSE_TYPE_IDS = Object.keys(LICENSE_TYPES) as LicenseType[]

export const PLATFORMS = ['windows', 'macos', 'linux', 'web'] as const
export type Platform = (typeof PLATFORMS)[number]
