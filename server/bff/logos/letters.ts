// A small monoline alphabet of our own, drawn as strokes: the letters of the generated marks and
// the program's name on its Open Graph card. Drawn rather than set in a font because the image
// must look the same everywhere it is rendered — in a browser (the SVG as an <img>) and by sharp
// (librsvg) in a container image that has no fonts installed at all.
//
// Glyphs sit on a grid whose capitals are 10 units tall: y = 0 is the cap line, y = 10 the
// baseline, x = 0 the glyph's left edge and `width` its right edge (stroke not counted). Paths use
// absolute commands only (M L H V C A Z), so a run of text is one path, moved and scaled by number.

interface Glyph {
  width: number
  d: string
}

const GLYPHS: Record<string, Glyph> = {
  A: { width: 8, d: 'M0 10L4 0L8 10M1.6 6.4H6.4' },
  B: { width: 6.6, d: 'M0 10V0H3.6A2.4 2.4 0 0 1 3.6 4.8H0M3.6 4.8H4.1A2.6 2.6 0 0 1 4.1 10H0' },
  C: { width: 8.6, d: 'M8.54 1.46A5 5 0 1 0 8.54 8.54' },
  D: { width: 7.6, d: 'M0 0V10H2.6A5 5 0 0 0 2.6 0Z' },
  E: { width: 6, d: 'M6 0H0V10H6M0 5H5' },
  F: { width: 6, d: 'M6 0H0V10M0 5H5' },
  G: { width: 10, d: 'M8.54 1.46A5 5 0 1 0 10 5H6' },
  H: { width: 7, d: 'M0 0V10M7 0V10M0 5H7' },
  I: { width: 0, d: 'M0 0V10' },
  J: { width: 6, d: 'M6 0V7A3 3 0 0 1 0 7' },
  K: { width: 7, d: 'M0 0V10M7 0L0 6.4M2.4 4.4L7 10' },
  L: { width: 6, d: 'M0 0V10H6' },
  M: { width: 9, d: 'M0 10V0L4.5 7L9 0V10' },
  N: { width: 7.4, d: 'M0 10V0L7.4 10V0' },
  O: { width: 10, d: 'M0 5A5 5 0 1 0 10 5A5 5 0 1 0 0 5Z' },
  P: { width: 6.6, d: 'M0 10V0H3.8A2.8 2.8 0 0 1 3.8 5.6H0' },
  Q: { width: 10, d: 'M0 5A5 5 0 1 0 10 5A5 5 0 1 0 0 5ZM6.6 6.6L10 10' },
  R: { width: 6.8, d: 'M0 10V0H3.8A2.8 2.8 0 0 1 3.8 5.6H0M3.6 5.6L6.8 10' },
  S: { width: 6.8, d: 'M6.3 1.3C5.5 0.4 4.5 0 3.4 0C1.6 0 0.3 1 0.3 2.6C0.3 6.1 6.8 4.2 6.8 7.3C6.8 9 5.4 10 3.4 10C2.1 10 0.9 9.5 0 8.6' },
  T: { width: 8, d: 'M0 0H8M4 0V10' },
  U: { width: 7.4, d: 'M0 0V6.3A3.7 3.7 0 0 0 7.4 6.3V0' },
  V: { width: 8, d: 'M0 0L4 10L8 0' },
  W: { width: 11, d: 'M0 0L2.75 10L5.5 2.2L8.25 10L11 0' },
  X: { width: 7.4, d: 'M0 0L7.4 10M7.4 0L0 10' },
  Y: { width: 8, d: 'M0 0L4 5L8 0M4 5V10' },
  Z: { width: 7, d: 'M0 0H7L0 10H7' },
  '0': { width: 7, d: 'M3.5 0A3.5 5 0 0 1 3.5 10A3.5 5 0 0 1 3.5 0Z' },
  '1': { width: 3.2, d: 'M0 2.2L3.2 0V10' },
  '2': { width: 7, d: 'M0.2 3.3A3.3 3.3 0 0 1 6.8 3.3C6.8 5.2 5.2 6.3 0 10H7' },
  '3': { width: 6.4, d: 'M0.4 0H6L3 3.9A3.1 3.1 0 1 1 0.4 8.6' },
  '4': { width: 7.4, d: 'M5.4 10V0L0 7H7.4' },
  '5': { width: 6.8, d: 'M6.3 0H1L0.5 4.4C1.3 3.9 2.3 3.6 3.3 3.6C5.3 3.6 6.8 5 6.8 6.8C6.8 8.7 5.3 10 3.3 10C2 10 0.9 9.5 0.1 8.7' },
  '6': { width: 6.8, d: 'M5.6 0L1 5.3M0 6.6A3.4 3.4 0 1 0 6.8 6.6A3.4 3.4 0 1 0 0 6.6Z' },
  '7': { width: 7, d: 'M0 0H7L2.4 10' },
  '8': { width: 6.6, d: 'M3.3 4.8A2.4 2.4 0 1 1 3.3 0A2.4 2.4 0 1 1 3.3 4.8ZM3.3 4.8A2.6 2.6 0 1 1 3.3 10A2.6 2.6 0 1 1 3.3 4.8Z' },
  '9': { width: 6.8, d: 'M1.2 10L5.8 4.7M6.8 3.4A3.4 3.4 0 1 0 0 3.4A3.4 3.4 0 1 0 6.8 3.4Z' },
  '.': { width: 0, d: 'M0 9.8V10' },
  ',': { width: 0.6, d: 'M0.6 9.6L0 11.6' },
  ':': { width: 0, d: 'M0 3.6V3.8M0 9.8V10' },
  ';': { width: 0.6, d: 'M0.6 3.6V3.8M0.6 9.6L0 11.6' },
  '!': { width: 0, d: 'M0 0V6.6M0 9.8V10' },
  '?': { width: 6, d: 'M0 2.9A3 2.9 0 1 1 4.2 5.6C3.4 6 3 6.6 3 7.2M3 9.8V10' },
  "'": { width: 0, d: 'M0 0V3' },
  '’': { width: 0.6, d: 'M0.6 0L0 3' },
  '-': { width: 4, d: 'M0 6H4' },
  '–': { width: 6, d: 'M0 6H6' },
  '+': { width: 6, d: 'M0 5.6H6M3 2.6V8.6' },
  '&': { width: 8, d: 'M8 10L2.1 3.6C1.1 2.5 1.5 0 3.5 0C5.3 0 5.9 2.2 4.6 3.3L1.4 6C-0.6 7.6 0.5 10 3 10C4.6 10 6 9 7.4 6.6' },
  '/': { width: 5, d: 'M0 10.6L5 -0.6' },
  '(': { width: 2.4, d: 'M2.4 -0.6A7 8 0 0 0 2.4 10.6' },
  ')': { width: 2.4, d: 'M0 -0.6A7 8 0 0 1 0 10.6' },
  '#': { width: 7, d: 'M2.4 0.5L1.4 9.5M5.6 0.5L4.6 9.5M0.3 3.4H7M0 6.6H6.7' },
}

/** Marks above (or under) a capital, by combining character: what NFD leaves after the letter. */
const MARKS: Record<string, (c: number) => string> = {
  '\u0300': (c) => `M${c - 1} -3.2L${c + 0.6} -1.4`, // grave
  '\u0301': (c) => `M${c - 0.6} -1.4L${c + 1} -3.2`, // acute
  '\u0302': (c) => `M${c - 1.8} -1.3L${c} -3.1L${c + 1.8} -1.3`, // circumflex
  '\u0303': (c) => `M${c - 2} -1.6C${c - 1} -3.2 ${c + 1} -1 ${c + 2} -2.6`, // tilde
  '\u0306': (c) => `M${c - 1.8} -3.1A1.8 1.6 0 0 0 ${c + 1.8} -3.1`, // breve
  '\u0307': (c) => `M${c} -2.3V-2.1`, // dot above
  '\u0308': (c) => `M${c - 1.6} -2.3V-2.1M${c + 1.6} -2.3V-2.1`, // diaeresis
  '\u030A': (c) => `M${c - 1.1} -2.4A1.1 1.1 0 1 0 ${c + 1.1} -2.4A1.1 1.1 0 1 0 ${c - 1.1} -2.4Z`, // ring
  '\u030B': (c) => `M${c - 1.8} -1.4L${c - 0.6} -3.2M${c + 0.6} -1.4L${c + 1.8} -3.2`, // double acute (ő, ű)
  '\u030C': (c) => `M${c - 1.8} -3.1L${c} -1.3L${c + 1.8} -3.1`, // caron
  '\u0327': (c) => `M${c} 10V11.2C${c + 1.6} 11.4 ${c + 1.4} 13 ${c - 0.6} 12.8`, // cedilla
  '\u0328': (c) => `M${c + 1} 10C${c - 0.6} 11 ${c - 0.2} 12.8 ${c + 1.6} 12.4`, // ogonek
}

/** Letters with no decomposition in Unicode that we draw as another letter plus a stroke. */
const STROKED: Record<string, { base: string; d: (width: number) => string }> = {
  Ø: { base: 'O', d: () => 'M0.6 10.4L9.4 -0.4' },
  Ł: { base: 'L', d: () => 'M-1 6.4L2.6 3.6' },
  Đ: { base: 'D', d: () => 'M-1.4 5H2.4' },
}

/** Space between glyphs and the width of a space, in units. */
const TRACKING = 2.6
const SPACE = 4.4

/** Letters as drawn: capitals, ß as SS, and accents split from their letters. */
function prepare(text: string): string[] {
  const characters: string[] = []
  for (const character of text.toUpperCase().normalize('NFD')) {
    if (character in MARKS && characters.length > 0) characters[characters.length - 1] += character
    else characters.push(character)
  }
  return characters
}

/** Whether every character of `text` can be drawn (spaces count as drawable). */
export function canDraw(text: string): boolean {
  return prepare(text).every((cluster) => {
    const [base] = [...cluster]
    return base === ' ' || base! in GLYPHS || base! in STROKED
  })
}

// One path's numbers moved and scaled: each command's parameters, by what they mean.
const PARAMETERS: Record<string, string> = { M: 'xy', L: 'xy', H: 'x', V: 'y', C: 'xyxyxy', A: 'rr-ffxy', Z: '' }

function transform(d: string, dx: number, dy: number, scale: number): string {
  const round = (value: number) => String(Math.round(value * 100) / 100)
  const out: string[] = []
  for (const [, command, args] of d.matchAll(/([MLHVCAZ])([^MLHVCAZ]*)/g)) {
    const kinds = PARAMETERS[command!]!
    const numbers = (args!.match(/-?\d*\.?\d+/g) ?? []).map(Number)
    const mapped = numbers.map((value, i) => {
      const kind = kinds[i % Math.max(kinds.length, 1)]
      if (kind === 'x') return round(dx + value * scale)
      if (kind === 'y') return round(dy + value * scale)
      if (kind === 'r') return round(value * scale)
      return String(value)
    })
    out.push(`${command}${mapped.join(' ')}`)
  }
  return out.join('')
}

interface DrawnGlyph {
  width: number
  parts: Array<(width: number) => string>
}

function glyphOf(cluster: string): DrawnGlyph | null {
  const [base, ...marks] = [...cluster]
  if (base === undefined) return null
  const stroked = STROKED[base]
  const glyph = GLYPHS[stroked?.base ?? base]
  if (!glyph) return null
  const parts: DrawnGlyph['parts'] = [() => glyph.d]
  if (stroked) parts.push(stroked.d)
  for (const mark of marks) parts.push((width) => MARKS[mark]!(width / 2))
  return { width: glyph.width, parts }
}

/**
 * The glyphs of `text` and where each one's left edge sits, in units (capitals 10 units tall), and
 * the run's width without the stroke's overhang. Characters we have no glyph for are left out.
 */
function layout(text: string): { placed: Array<{ glyph: DrawnGlyph; at: number }>; width: number } {
  const placed: Array<{ glyph: DrawnGlyph; at: number }> = []
  let cursor = 0
  let first = true
  for (const cluster of prepare(text)) {
    if (cluster === ' ') {
      cursor += SPACE
      first = true
      continue
    }
    const glyph = glyphOf(cluster)
    if (!glyph) continue
    const gap = first ? 0 : TRACKING
    placed.push({ glyph, at: cursor + gap })
    cursor += gap + glyph.width
    first = false
  }
  return { placed, width: cursor }
}

/** Width of `text` in units (capitals 10 units tall), without the stroke's overhang. */
export function textWidth(text: string): number {
  return layout(text).width
}

/**
 * The path data of `text` in capitals `capHeight` tall, its left edge at `x` and its baseline at
 * `baseline`. Characters we have no glyph for are left out (canDraw says whether there are any).
 */
export function textPath(text: string, x: number, baseline: number, capHeight: number): string {
  const scale = capHeight / 10
  const top = baseline - capHeight
  return layout(text)
    .placed.flatMap(({ glyph, at }) => glyph.parts.map((part) => transform(part(glyph.width), x + at * scale, top, scale)))
    .join('')
}
