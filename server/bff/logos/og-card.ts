import sharp from 'sharp'
import { OG_IMAGE_HEIGHT, OG_IMAGE_WIDTH } from '../../../shared/catalogue/logos.ts'
import { PRODUCT_NAME } from '../../../shared/constants.ts'
import { textPath, textWidth } from './letters.ts'
import { ACCENT, BRAND, nestedLogo, svgDocument } from './svg.ts'

// A program's Open Graph image: what a link to its page shows on social sites and in
// chat apps, which take PNG or JPEG but not SVG. A 1200 × 630 card on our brand colour: the logo on
// the left, the product's name as a kicker and the program's name in our letters on the right.

const LOGO = { x: 96, size: 288 }
const TEXT = { x: 448, right: OG_IMAGE_WIDTH - 80 }
const KICKER_CAP = 24
/** The largest capitals the name is set in that fit (2 lines from 60 up, 3 below). */
const NAME_CAPS = [76, 68, 60, 52, 44, 38]

function wrap(words: string[], capHeight: number, width: number): string[] {
  const fits = (line: string) => (textWidth(line) * capHeight) / 10 <= width
  const lines: string[] = []
  for (const word of words) {
    const last = lines[lines.length - 1]
    if (last !== undefined && fits(`${last} ${word}`)) lines[lines.length - 1] = `${last} ${word}`
    else lines.push(word)
  }
  return lines
}

/** The name's lines and their size: the biggest size at which it fits, each line within the column. */
export function nameLayout(name: string): { lines: string[]; capHeight: number } {
  const width = TEXT.right - TEXT.x
  const words = name.split(/\s+/).filter(Boolean)
  for (const capHeight of NAME_CAPS) {
    const lines = wrap(words, capHeight, width)
    const fitsWidth = lines.every((line) => (textWidth(line) * capHeight) / 10 <= width)
    if (fitsWidth && lines.length <= (capHeight >= 60 ? 2 : 3)) return { lines, capHeight }
  }
  // A very long word: the smallest size, shrunk further until its widest line fits.
  const smallest = NAME_CAPS[NAME_CAPS.length - 1]!
  const lines = wrap(words, smallest, width).slice(0, 3)
  const widest = Math.max(...lines.map(textWidth), 1)
  return { lines, capHeight: Math.min(smallest, (width * 10) / widest) }
}

/** The card as SVG: the logo's drawing (64-unit grid) and the program's name. */
export function ogCardSvg(name: string, logoDrawing: string): string {
  const { lines, capHeight } = nameLayout(name)
  const lineHeight = capHeight * 1.45
  const gap = 30
  const blockHeight = KICKER_CAP + gap + capHeight + (lines.length - 1) * lineHeight
  const top = (OG_IMAGE_HEIGHT - blockHeight) / 2
  const kicker = textPath(PRODUCT_NAME, TEXT.x, top + KICKER_CAP, KICKER_CAP)
  const nameBaseline = top + KICKER_CAP + gap + capHeight
  const namePath = lines.map((line, i) => textPath(line, TEXT.x, nameBaseline + i * lineHeight, capHeight)).join('')
  const strokeAttributes = 'stroke-linecap="round" stroke-linejoin="round"'
  return svgDocument(
    OG_IMAGE_WIDTH,
    OG_IMAGE_HEIGHT,
    `${name} — ${PRODUCT_NAME}`,
    `<rect width="${OG_IMAGE_WIDTH}" height="${OG_IMAGE_HEIGHT}" fill="${BRAND}"/>` +
      `<rect y="${OG_IMAGE_HEIGHT - 14}" width="${OG_IMAGE_WIDTH}" height="14" fill="${ACCENT}"/>` +
      nestedLogo(logoDrawing, LOGO.x, (OG_IMAGE_HEIGHT - LOGO.size) / 2, LOGO.size) +
      `<path d="${kicker}" fill="none" stroke="${ACCENT}" stroke-width="${(KICKER_CAP * 0.14).toFixed(2)}" ${strokeAttributes}/>` +
      `<path d="${namePath}" fill="none" stroke="#ffffff" stroke-width="${(capHeight * 0.12).toFixed(2)}" ${strokeAttributes}/>`,
  )
}

// Rendering takes tens of milliseconds of CPU: one at a time per process, each card once, and
// concurrent requests for one card share its render. Only the catalogue's programs have cards and
// each PNG is about 10 kB, so the cache holds them all (a few MB) and asking for every card over
// and over costs no CPU; the bound is there for a catalogue many times today's.
const CACHED_CARDS = 1024
let queue: Promise<unknown> = Promise.resolve()

export class OgCardRenderer {
  private readonly cards = new Map<string, Promise<Buffer>>()

  /** The PNG of `svg`, kept under `key` (the card's ETag): the same key is the same picture. */
  png(key: string, svg: string): Promise<Buffer> {
    const cached = this.cards.get(key)
    if (cached) {
      // Most recently used last: Map keeps insertion order, so the first key is the oldest.
      this.cards.delete(key)
      this.cards.set(key, cached)
      return cached
    }
    const rendering = queue.then(() => sharp(Buffer.from(svg)).png({ compressionLevel: 9, palette: true, quality: 90 }).toBuffer())
    queue = rendering.catch(() => undefined)
    this.cards.set(key, rendering)
    rendering.catch(() => this.cards.delete(key))
    if (this.cards.size > CACHED_CARDS) this.cards.delete(this.cards.keys().next().value!)
    return rendering
  }
}
