import fs from 'node:fs'
import { contrastRatio, NON_TEXT_CONTRAST } from './contrast.ts'
import { LOGO_INK, LOGO_LINE, LOGO_RADIUS, LOGO_SIZE } from './svg.ts'

// A brand's mark on our tile. The mark keeps the colour its designers gave it. One rule for the
// tile: white, with a hairline so it reads as a tile on a white card; when the brand colour has
// less than 3:1 against white (WCAG 1.4.11, non-text contrast) — yellows, light greens, white
// itself — the tile is our ink instead, where every such colour has more than 4:1.

/** brand-marks.json: what scripts/brand-marks.ts extracted from the simple-icons package. */
export interface BrandMarks {
  simpleIconsVersion: string
  marks: Record<string, BrandMark>
}

export interface BrandMark {
  title: string
  /** Six hex digits, without "#". */
  hex: string
  /** Where Simple Icons took the mark from. */
  source: string
  /** One path on a 24 × 24 view box. */
  path: string
}

export function readBrandMarks(file: URL = new URL('./brand-marks.json', import.meta.url)): BrandMarks {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as BrandMarks
}

/** The tile a brand colour goes on: white when the colour stands out enough from white, else ink. */
export function brandTile(hex: string): { fill: string; light: boolean } {
  const light = contrastRatio(`#${hex}`, '#ffffff') >= NON_TEXT_CONTRAST
  return { fill: light ? '#ffffff' : LOGO_INK, light }
}

/** The mark fills the middle 36 of 64 units, like the letters of a generated mark. */
const MARK_BOX = 36

/** The tile and the mark, drawn on the 64-unit logo grid (svg.ts wraps it into a document). */
export function brandDrawing(mark: BrandMark): string {
  const tile = brandTile(mark.hex)
  const inset = (LOGO_SIZE - MARK_BOX) / 2
  const background = tile.light
    ? `<rect x="0.75" y="0.75" width="${LOGO_SIZE - 1.5}" height="${LOGO_SIZE - 1.5}" rx="${LOGO_RADIUS - 0.75}" fill="#ffffff" stroke="${LOGO_LINE}" stroke-width="1.5"/>`
    : `<rect width="${LOGO_SIZE}" height="${LOGO_SIZE}" rx="${LOGO_RADIUS}" fill="${LOGO_INK}"/>`
  const glyph = `<path transform="translate(${inset} ${inset}) scale(${MARK_BOX / 24})" fill="#${mark.hex}" d="${mark.path}"/>`
  return `${background}${glyph}`
}
