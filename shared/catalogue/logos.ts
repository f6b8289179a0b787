// Where a program's logo and Open Graph image are served (decision 024). The BFF
// serves them; pages and head tags build their URLs here. `version` is the content hash of the
// whole set (ClientConfig.logosVersion): a URL carrying the current one may be cached for a year.

/** The Open Graph card's size: the 1.91:1 image social sites show large. */
export const OG_IMAGE_WIDTH = 1200
export const OG_IMAGE_HEIGHT = 630

export function logoPath(programId: string, version: string): string {
  return `/logos/${encodeURIComponent(programId)}.svg?v=${encodeURIComponent(version)}`
}

export function ogImagePath(programId: string, version: string): string {
  return `/og/programs/${encodeURIComponent(programId)}.png?v=${encodeURIComponent(version)}`
}
