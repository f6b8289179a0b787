// Extracts the brand marks the catalogue uses from the `simple-icons` package (a development
// dependency) into server/bff/logos/brand-marks.json, which the BFF reads and the image ships.
// Run after changing server/bff/logos/brand-icons.ts or updating simple-icons:
//   npm run brand-marks
// test/unit/server/logos.test.ts fails while the file and the package disagree.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { BRAND_ICONS } from '../server/bff/logos/brand-icons.ts'
import type { BrandMarks } from '../server/bff/logos/brand-tile.ts'

const require = createRequire(import.meta.url)

export const BRAND_MARKS_FILE = fileURLToPath(new URL('../server/bff/logos/brand-marks.json', import.meta.url))

/** One icon's entry in Simple Icons' data file. */
export interface SimpleIcon {
  title: string
  slug: string
  hex: string
  source: string
  license?: { type: string; url?: string }
}

/** Licences an icon may carry for us to use it without attribution or notices (decision 024). */
export const ACCEPTED_ICON_LICENSES = ['CC0-1.0']

export function simpleIconsData(): { version: string; icons: Map<string, SimpleIcon> } {
  const data = require.resolve('simple-icons/icons.json')
  // The package's exports leave out package.json: it sits one folder above data/simple-icons.json.
  const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(data), '..', 'package.json'), 'utf8')) as { version: string }
  const icons = JSON.parse(fs.readFileSync(data, 'utf8')) as SimpleIcon[]
  return { version, icons: new Map(icons.map((icon) => [icon.slug, icon])) }
}

/** The marks of `brandIcons`' slugs as they are in the installed package, in a stable order. */
export function extractBrandMarks(brandIcons: Readonly<Record<string, string>> = BRAND_ICONS): BrandMarks {
  const { version, icons } = simpleIconsData()
  const marks: BrandMarks['marks'] = {}
  for (const slug of [...new Set(Object.values(brandIcons))].sort()) {
    const icon = icons.get(slug)
    if (!icon) throw new Error(`simple-icons ${version} has no icon "${slug}"`)
    if (icon.license && !ACCEPTED_ICON_LICENSES.includes(icon.license.type)) {
      throw new Error(`the icon "${slug}" is under ${icon.license.type}, which needs attribution: leave it out`)
    }
    const svg = fs.readFileSync(require.resolve(`simple-icons/icons/${slug}.svg`), 'utf8')
    const paths = [...svg.matchAll(/<path d="([^"]+)"\s*\/>/g)].map((match) => match[1]!)
    // Every Simple Icons file is one path on a 24 × 24 view box; anything else is not what we draw.
    if (paths.length !== 1 || !svg.includes('viewBox="0 0 24 24"')) throw new Error(`the icon "${slug}" is not one path on 0 0 24 24`)
    marks[slug] = { title: icon.title, hex: icon.hex.toUpperCase(), source: icon.source, path: paths[0]! }
  }
  return { simpleIconsVersion: version, marks }
}

export function formatBrandMarks(marks: BrandMarks): string {
  return `${JSON.stringify(marks, null, 2)}\n`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const marks = extractBrandMarks()
  fs.writeFileSync(BRAND_MARKS_FILE, formatBrandMarks(marks))
  console.log(`${Object.keys(marks.marks).length} marks from simple-icons ${marks.simpleIconsVersion} → ${BRAND_MARKS_FILE}`)
}
