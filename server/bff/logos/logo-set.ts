import { createHash } from 'node:crypto'
import { readSeed } from '../../api/catalogue/seed.ts'
import { BRAND_ICONS } from './brand-icons.ts'
import { brandDrawing, readBrandMarks, type BrandMarks } from './brand-tile.ts'
import { assignMarks, generatedDrawing, type GeneratedMark, type MarkProgram } from './generated-marks.ts'
import { ogCardSvg } from './og-card.ts'
import { LOGO_SIZE, svgDocument } from './svg.ts'

// Every program's logo, built once when the BFF starts (a few milliseconds for the whole
// catalogue), from the catalogue's seed, the brand mapping and the extracted brand marks. The set
// is the same on every BFF built from the same release, and so is its version, the hash of all
// its images: URLs carrying it may be cached for a year.

export type LogoKind = { kind: 'brand'; slug: string; hex: string } | ({ kind: 'generated' } & GeneratedMark)

export interface ProgramLogo {
  id: string
  /** What it shows: a brand's mark or a generated one. */
  mark: LogoKind
  /** The logo's drawing on the 64-unit grid. */
  drawing: string
  /** The SVG document served at /logos/<id>.svg, and its ETag. */
  svg: string
  etag: string
  /** The Open Graph card as SVG (rendered to PNG on request), and the PNG's ETag. */
  ogSvg: string
  ogEtag: string
}

export interface LogoSet {
  /** Content hash of every logo and card in the set. */
  version: string
  get(programId: string): ProgramLogo | undefined
  all(): ProgramLogo[]
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex')

export function buildLogoSet(
  programs: readonly MarkProgram[],
  brandIcons: Readonly<Record<string, string>> = BRAND_ICONS,
  brandMarks: BrandMarks = readBrandMarks(),
): LogoSet {
  const generated = assignMarks(
    programs.filter((program) => brandIcons[program.id] === undefined),
    programs,
  )
  const logos = new Map<string, ProgramLogo>()
  for (const program of programs) {
    const slug = brandIcons[program.id]
    let mark: LogoKind
    let drawing: string
    if (slug !== undefined) {
      const brand = brandMarks.marks[slug]
      if (!brand) throw new Error(`brand-marks.json has no "${slug}" for ${program.id}: run npm run brand-marks`)
      mark = { kind: 'brand', slug, hex: brand.hex }
      drawing = brandDrawing(brand)
    } else {
      const own = generated.get(program.id)!
      mark = { kind: 'generated', ...own }
      drawing = generatedDrawing(own)
    }
    const svg = svgDocument(LOGO_SIZE, LOGO_SIZE, program.name, drawing)
    const ogSvg = ogCardSvg(program.name, drawing)
    logos.set(program.id, {
      id: program.id,
      mark,
      drawing,
      svg,
      // Weak: compression changes the bytes on the way, not the picture.
      etag: `W/"${digest(svg).slice(0, 24)}"`,
      ogSvg,
      ogEtag: `"og-${digest(ogSvg).slice(0, 24)}"`,
    })
  }
  const all = [...logos.values()].sort((a, b) => (a.id < b.id ? -1 : 1))
  const version = digest(all.map((logo) => `${logo.id}\n${logo.etag}\n${logo.ogEtag}\n`).join('')).slice(0, 16)
  return { version, get: (id) => logos.get(id), all: () => all }
}

let built: { checksum: string; set: LogoSet } | undefined

/**
 * The logos of the catalogue: the programs of the API's seed (server/api/seed, shipped in the
 * same image), which is the whole catalogue. Built once per process; again only for another seed.
 */
export function catalogueLogos(): LogoSet {
  const seed = readSeed()
  if (built?.checksum !== seed.checksum) built = { checksum: seed.checksum, set: buildLogoSet(seed.programs) }
  return built.set
}

const EDITED_LOGOS_KEPT = 500
const edited = new Map<string, ProgramLogo>()

/**
 * The logo of a program editors added in the console, which the seed does not hold: a
 * generated mark drawn among the seed's programs, so it is distinct from theirs as theirs are from
 * each other. Kept per name, developer and publisher (the mark's inputs), the most recent few hundred.
 */
export function editedProgramLogo(program: MarkProgram): ProgramLogo {
  const key = JSON.stringify([program.id, program.name, program.developer, program.publisher])
  const kept = edited.get(key)
  if (kept) return kept
  const seed = readSeed()
  const logo = buildLogoSet([...seed.programs.filter((other) => other.id !== program.id), program], {}).get(program.id)!
  if (edited.size >= EDITED_LOGOS_KEPT) edited.delete(edited.keys().next().value!)
  edited.set(key, logo)
  return logo
}
