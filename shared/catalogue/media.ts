// Programs' uploaded logos and screenshots: the limits and the URLs, shared by the
// product API (which checks, encodes and serves), the BFF (which proxies uploads within the same
// limits and serves logos) and the program page's gallery.

/** A program has at most this many screenshots. */
export const MAX_SCREENSHOTS = 8

/**
 * The widths a screenshot is encoded at, for `srcset` (the specification's constant list; none
 * wider than the upload: a narrower upload gets the widths up to its own, or its own alone).
 */
export const SCREENSHOT_WIDTHS = [280, 560, 840, 1120, 1400, 1680] as const

/** An uploaded screenshot's bytes, at most. */
export const SCREENSHOT_MAX_BYTES = 10 * 1024 * 1024
/** An uploaded logo's bytes, at most (SVG, PNG or WebP). */
export const LOGO_MAX_BYTES = 1024 * 1024
/** Pixels an uploaded image may have before it is decoded (a decompression bomb is refused). */
export const MEDIA_MAX_PIXELS = 50_000_000
/** A PNG or WebP logo is kept within a square of this many pixels a side. */
export const LOGO_MAX_PX = 512

/** Alternative text of a screenshot, per language, at most this many characters. */
export const SCREENSHOT_ALT_MAX = 300

/** The declared types a logo upload may carry (the bytes must agree). */
export const LOGO_CONTENT_TYPES = ['image/svg+xml', 'image/png', 'image/webp'] as const
/** The declared types a screenshot upload may carry (the bytes decide among them). */
export const SCREENSHOT_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'application/octet-stream'] as const

export const SCREENSHOT_FILE_PATTERN = '^[0-9a-f]{32}\\.webp$'
export const PROGRAM_LOGO_FILE_PATTERN = '^[0-9a-f]{32}\\.(svg|webp)$'

export function screenshotPath(hash: string): string {
  return `/api/screenshots/${hash}.webp`
}

export function programLogoFilePath(hash: string, contentType: string): string {
  return `/api/program-logos/${hash}.${contentType === 'image/svg+xml' ? 'svg' : 'webp'}`
}

/** A screenshot as the public program carries it (derived from its schema). */
export type { ProgramScreenshot } from './program-schemas.ts'

/** The media type of a Content-Type header, lower case, parameters aside. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType?.split(';')[0] ?? '').trim().toLowerCase()
}
