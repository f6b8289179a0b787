import { canDraw, textPath, textWidth } from './letters.ts'
import { ACCENT, LOGO_RADIUS, LOGO_SIZE } from './svg.ts'

// The mark of a program without a brand mark: its initials in our monoline letters on a tile of
// one of the catalogue's icon colours, with one geometric motif. No two programs get the same
// mark: programs whose initials match get different colours and different motifs.

export interface MarkProgram {
  id: string
  name: string
  developer: string
  publisher: string
}

/** The program icons' colours; white letters keep ≥ 4.5:1 on each (tested). */
export const MARK_COLOURS = ['#1f3a5f', '#7a3e9d', '#1d6b3a', '#a4262c', '#0f6c81', '#8a5a00', '#3a4ea8', '#5b5f66'] as const

// Each motif keeps clear of the letters (the middle 40 × 20 units) or shades behind them, so the
// letters' contrast never drops: gold (the accent) only in corners and margins, shade only darkens.
const SHADE = 'fill="#000000" fill-opacity="0.2"'
const MOTIF_DRAWINGS = {
  quarter: `<circle cx="64" cy="64" r="21" fill="${ACCENT}"/>`,
  split: `<path d="M64 0V64H0Z" ${SHADE}/>`,
  dot: `<circle cx="51" cy="13" r="5" fill="${ACCENT}"/>`,
  underline: `<rect x="22" y="47" width="20" height="4" rx="2" fill="${ACCENT}"/>`,
  halo: `<circle cx="32" cy="31" r="22" ${SHADE}/>`,
  corner: `<path d="M0 0H19L0 19Z" fill="${ACCENT}"/>`,
  stripes: `<path d="M0 41L23 64M0 50L14 64M0 59L5 64" stroke="${ACCENT}" stroke-width="3" fill="none"/>`,
  arch: `<circle cx="32" cy="68" r="24" ${SHADE}/>`,
} as const
export type Motif = keyof typeof MOTIF_DRAWINGS
export const MOTIFS = Object.keys(MOTIF_DRAWINGS) as Motif[]

export interface GeneratedMark {
  initials: string
  colour: string
  motif: Motif
}

// "Adobe Inc." names the same maker as "Adobe".
const LEGAL_FORM = /[\s,]+(inc\.?|llc|ltd\.?|gmbh|ag|sa|b\.v\.|bv|corp\.?|corporation|co\.?)$/i

function makerName(name: string): string {
  return name.replace(LEGAL_FORM, '').trim()
}

/**
 * Makers whose name leads the names of several programs ("Adobe Photoshop", "Adobe Premiere
 * Elements"): what those programs share, so not what tells them apart.
 */
export function sharedMakerPrefixes(catalogue: readonly MarkProgram[]): Set<string> {
  const counts = new Map<string, number>()
  for (const program of catalogue) {
    for (const maker of new Set([makerName(program.developer), makerName(program.publisher)])) {
      if (program.name.startsWith(`${maker} `)) counts.set(maker, (counts.get(maker) ?? 0) + 1)
    }
  }
  return new Set([...counts].filter(([, count]) => count > 1).map(([maker]) => maker))
}

/**
 * The parts a program's initials come from: its words, or the humps of a one-word name
 * ("InDesign", "MeshLab"). A shared maker prefix is dropped first ("Adobe Photoshop Elements").
 */
function nameParts(program: Pick<MarkProgram, 'name' | 'developer' | 'publisher'>, sharedPrefixes: ReadonlySet<string>): string[] {
  let name = program.name
  for (const maker of [makerName(program.developer), makerName(program.publisher)]) {
    if (sharedPrefixes.has(maker) && name.startsWith(`${maker} `)) name = name.slice(maker.length + 1)
  }
  const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean)
  return words.length === 1 ? words[0]!.split(/(?<=\p{Ll})(?=\p{Lu})/u) : words
}

const first = (part: string) => [...part][0]!
const drawable = (letters: string) => (letters !== '' && canDraw(letters) ? letters : '#')

/** Two letters for a program: the first letters of its first two parts, or the first two of a one-part name. */
export function initialsOf(program: Pick<MarkProgram, 'name' | 'developer' | 'publisher'>, sharedPrefixes: ReadonlySet<string> = new Set()): string {
  const parts = nameParts(program, sharedPrefixes)
  return drawable((parts.length >= 2 ? first(parts[0]!) + first(parts[1]!) : [...(parts[0] ?? '')].slice(0, 2).join('')).toUpperCase())
}

/** Three letters, for a name of three parts or more whose two letters another program has too ("Substance 3D Painter"). */
function threeInitialsOf(program: MarkProgram, sharedPrefixes: ReadonlySet<string>): string | null {
  const parts = nameParts(program, sharedPrefixes)
  return parts.length >= 3 ? drawable(parts.slice(0, 3).map(first).join('').toUpperCase()) : null
}

/** FNV-1a: a program's preferred colour and motif, the same on every server and every run. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

/**
 * Every program's generated mark (`catalogue`: all programs, those with brand marks too, whose
 * names tell which maker prefixes are shared). Where two letters are shared, a name of three parts
 * or more takes three. Programs are taken in id order, so a mark changes only when a program with
 * the same initials and an earlier id joins or leaves the catalogue. Within a group of equal
 * initials each program takes the first colour and motif, from its preferred ones on, that no one
 * in the group has yet (while there are any), and at least a pair no one has.
 */
export function assignMarks(programs: readonly MarkProgram[], catalogue: readonly MarkProgram[] = programs): Map<string, GeneratedMark> {
  const shared = sharedMakerPrefixes(catalogue)
  const sorted = [...programs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const two = new Map(sorted.map((program) => [program.id, initialsOf(program, shared)]))
  const twoLetters = new Map<string, number>()
  for (const initials of two.values()) twoLetters.set(initials, (twoLetters.get(initials) ?? 0) + 1)
  const groups = new Map<string, MarkProgram[]>()
  for (const program of sorted) {
    const own = two.get(program.id)!
    const initials = (twoLetters.get(own)! > 1 ? threeInitialsOf(program, shared) : null) ?? own
    groups.set(initials, [...(groups.get(initials) ?? []), program])
  }
  const marks = new Map<string, GeneratedMark>()
  const colours = MARK_COLOURS.length
  const motifs = MOTIFS.length
  for (const [initials, group] of groups) {
    const usedColours = new Set<number>()
    const usedMotifs = new Set<number>()
    const usedPairs = new Set<number>()
    for (const program of group) {
      const h = hash(program.id)
      const candidates = Array.from({ length: colours * motifs }, (_, k) => ({
        colour: (h + k) % colours,
        motif: (Math.floor(h / colours) + Math.floor(k / colours)) % motifs,
      }))
      const free = (c: { colour: number; motif: number }) => !usedPairs.has(c.colour * motifs + c.motif)
      const pick = candidates.find((c) => !usedColours.has(c.colour) && !usedMotifs.has(c.motif)) ?? candidates.find(free)
      if (!pick) throw new Error(`more than ${colours * motifs} programs have the initials ${initials}`)
      usedColours.add(pick.colour)
      usedMotifs.add(pick.motif)
      usedPairs.add(pick.colour * motifs + pick.motif)
      marks.set(program.id, { initials, colour: MARK_COLOURS[pick.colour]!, motif: MOTIFS[pick.motif]! })
    }
  }
  return marks
}

/** The letters fill at most 40 × 20 of the 64 units; three letters (or wide ones) get smaller. */
const LETTERS_BOX = { width: 40, height: 20, middle: 31 }

/** The tile, its motif and the letters, drawn on the 64-unit logo grid. */
export function generatedDrawing(mark: GeneratedMark): string {
  const units = textWidth(mark.initials)
  const capHeight = Math.min(LETTERS_BOX.height, (LETTERS_BOX.width * 10) / Math.max(units, 1))
  const width = (units * capHeight) / 10
  const x = (LOGO_SIZE - width) / 2
  const baseline = LETTERS_BOX.middle + capHeight / 2
  const letters = textPath(mark.initials, x, baseline, capHeight)
  const stroke = Math.round(capHeight * 0.19 * 100) / 100
  return (
    `<clipPath id="tile"><rect width="${LOGO_SIZE}" height="${LOGO_SIZE}" rx="${LOGO_RADIUS}"/></clipPath>` +
      `<g clip-path="url(#tile)"><rect width="${LOGO_SIZE}" height="${LOGO_SIZE}" fill="${mark.colour}"/>${MOTIF_DRAWINGS[mark.motif]}</g>` +
      `<path d="${letters}" fill="none" stroke="#ffffff" stroke-width="${stroke}" stroke-linecap="round" stroke-linejoin="round"/>`
  )
}
