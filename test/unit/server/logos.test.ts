import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { ACCEPTED_ICON_LICENSES, extractBrandMarks, formatBrandMarks, simpleIconsData } from '../../../scripts/brand-marks.ts'
import { readSeed } from '../../../server/api/catalogue/seed.ts'
import { BRAND_ICONS } from '../../../server/bff/logos/brand-icons.ts'
import { brandTile, readBrandMarks } from '../../../server/bff/logos/brand-tile.ts'
import { contrastRatio, NON_TEXT_CONTRAST } from '../../../server/bff/logos/contrast.ts'
import { assignMarks, initialsOf, MARK_COLOURS, type MarkProgram } from '../../../server/bff/logos/generated-marks.ts'
import { canDraw, textWidth } from '../../../server/bff/logos/letters.ts'
import { buildLogoSet } from '../../../server/bff/logos/logo-set.ts'
import { nameLayout } from '../../../server/bff/logos/og-card.ts'

// Item 1: every program of the catalogue has a logo — its brand's mark from Simple
// Icons (CC0) where it has one, matched by hand, else a generated mark no other program shares.

const programs = readSeed().programs
const logos = buildLogoSet(programs)

t.test('the brand mapping: every program exists, every icon exists and may be used, no two programs share one', async (t) => {
  const ids = new Set(programs.map((program) => program.id))
  const { version, icons } = simpleIconsData()
  for (const [programId, slug] of Object.entries(BRAND_ICONS)) {
    t.ok(ids.has(programId), `${programId} is a program of the seed`)
    const icon = icons.get(slug)
    t.ok(icon, `simple-icons ${version} has "${slug}" (${programId})`)
    if (icon?.license) t.ok(ACCEPTED_ICON_LICENSES.includes(icon.license.type), `${slug}: licence ${icon.license.type} needs no attribution`)
  }
  const slugs = Object.values(BRAND_ICONS)
  t.equal(new Set(slugs).size, slugs.length, 'one program per mark: no two cards show the same brand')
  // "About a third of our programs are in it".
  t.ok(slugs.length >= programs.length / 4, `${slugs.length} of ${programs.length} programs show their brand's mark`)
})

t.test('brand-marks.json is what the installed simple-icons holds for the mapping (npm run brand-marks)', async (t) => {
  const file = fileURLToPath(new URL('../../../server/bff/logos/brand-marks.json', import.meta.url))
  t.equal(fs.readFileSync(file, 'utf8'), formatBrandMarks(extractBrandMarks()))
  for (const [slug, mark] of Object.entries(readBrandMarks().marks)) {
    t.match(mark.hex, /^[0-9A-F]{6}$/, `${slug} colour`)
    // Path data and nothing else: it is written into the SVG as it is.
    t.match(mark.path, /^[MmLlHhVvCcSsQqTtAaZz0-9.,\s-]+$/, `${slug} path`)
  }
})

t.test('every program of the seed has a logo, and no two logos are the same picture', async (t) => {
  t.equal(logos.all().length, programs.length)
  for (const program of programs) t.ok(logos.get(program.id), program.id)
  const pictures = new Set(logos.all().map((logo) => logo.drawing))
  t.equal(pictures.size, programs.length, 'every drawing differs')
  const generated = logos.all().flatMap((logo) => (logo.mark.kind === 'generated' ? [logo.mark] : []))
  const tuples = generated.map((mark) => `${mark.initials}|${mark.colour}|${mark.motif}`)
  t.equal(new Set(tuples).size, tuples.length, 'no two generated marks share initials, colour and motif')
  // Equal initials are told apart by both colour and motif (there are 8 of each; no group is larger).
  const groups = new Map<string, typeof generated>()
  for (const mark of generated) groups.set(mark.initials, [...(groups.get(mark.initials) ?? []), mark])
  for (const [initials, group] of groups) {
    t.equal(new Set(group.map((mark) => mark.colour)).size, group.length, `${initials}: a colour each`)
    t.equal(new Set(group.map((mark) => mark.motif)).size, group.length, `${initials}: a motif each`)
  }
})

t.test('the monograms that collided are told apart (Photoshop, Photoshop Elements, Premiere Elements were all "AP")', async (t) => {
  const marks = ['adobe-photoshop', 'adobe-photoshop-elements', 'adobe-premiere-elements', 'adobe-premiere-pro', 'affinity-photo'].map((id) => logos.get(id)!.mark)
  const looks = marks.map((mark) => (mark.kind === 'generated' ? `${mark.initials}|${mark.colour}` : mark.slug))
  t.equal(new Set(looks).size, looks.length, looks.join(', '))
  const byId = (id: string) => logos.get(id)!.mark as { initials: string }
  t.equal(byId('adobe-photoshop').initials, 'PH', 'a maker prefix several programs share is dropped')
  t.equal(byId('substance-3d-painter').initials, 'S3P', 'a third letter where two are shared')
  t.equal(byId('substance-3d-designer').initials, 'S3D')
  t.equal(byId('minitab').initials !== 'SS', true, 'a maker with one program keeps its name')
})

t.test('initials', async (t) => {
  const of = (name: string, developer = 'Someone', shared: string[] = []) => initialsOf({ name, developer, publisher: developer }, new Set(shared))
  t.equal(of('Adobe Photoshop Elements', 'Adobe Inc.', ['Adobe']), 'PE')
  t.equal(of('Adobe Photoshop Elements', 'Adobe Inc.'), 'AP', 'a maker prefix only when shared')
  t.equal(of('InDesign'), 'ID', 'humps of one word')
  t.equal(of('darktable'), 'DA')
  t.equal(of('LÖVE'), 'LÖ')
  t.equal(of('7-Zip'), '7Z')
  t.equal(of('日本'), '#', 'letters we cannot draw')
})

t.test('contrast: brand marks against their tile, letters against every colour (WCAG 1.4.11, 1.4.3)', async (t) => {
  for (const logo of logos.all()) {
    if (logo.mark.kind !== 'brand') continue
    const ratio = contrastRatio(`#${logo.mark.hex}`, brandTile(logo.mark.hex).fill)
    t.ok(ratio >= NON_TEXT_CONTRAST, `${logo.id}: #${logo.mark.hex} on ${brandTile(logo.mark.hex).fill} is ${ratio.toFixed(2)}:1`)
  }
  t.equal(brandTile('FFFFFF').light, false, 'a white mark goes on ink')
  t.equal(brandTile('000000').light, true, 'a black mark on white')
  for (const colour of MARK_COLOURS) t.ok(contrastRatio('#ffffff', colour) >= 4.5, `white letters on ${colour}`)
  t.equal(Math.round(contrastRatio('#777777', '#ffffff') * 100) / 100, 4.48, 'the WCAG formula')
})

t.test('the images cannot run or load anything', async (t) => {
  for (const logo of logos.all()) {
    for (const [kind, svg] of [['logo', logo.svg], ['card', logo.ogSvg]] as const) {
      t.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" [^>]*><title>[^<]*<\/title>/, `${logo.id} ${kind}`)
      t.notMatch(svg, /<script|<style|<foreignObject|<image|<a[\s>]|href=|\son[a-z]+=|javascript:|url\((?!#tile\))/i, `${logo.id} ${kind}: nothing active or outside`)
    }
  }
  const named = buildLogoSet([{ id: 'x', name: 'A <b onload="x">&</b>', developer: 'D', publisher: 'D' }])
  t.match(named.get('x')!.svg, /<title>A &lt;b onload=&quot;x&quot;&gt;&amp;&lt;\/b&gt;<\/title>/, 'names are escaped')
})

t.test('our letters draw every program name and every set of initials; names fit the card', async (t) => {
  for (const program of programs) {
    t.ok(canDraw(program.name), program.name)
    const { lines, capHeight } = nameLayout(program.name)
    t.ok(lines.length >= 1 && lines.length <= 3, `${program.name}: ${lines.length} lines`)
    for (const line of lines) t.ok((textWidth(line) * capHeight) / 10 <= 672, `${program.name}: "${line}" fits`)
  }
  t.notOk(canDraw('日本'))
  t.ok(canDraw('Čeština, Ő, Ł, Ø'))
})

t.test('a generated mark stays put when unrelated programs come and go', async (t) => {
  const base: MarkProgram[] = [
    { id: 'a-prog', name: 'Alpha Program', developer: 'One', publisher: 'One' },
    { id: 'b-prog', name: 'Beta Program', developer: 'Two', publisher: 'Two' },
  ]
  const before = assignMarks(base).get('b-prog')
  const after = assignMarks([...base, { id: 'c-prog', name: 'Gamma Tool', developer: 'Three', publisher: 'Three' }]).get('b-prog')
  t.same(after, before)
  t.equal(buildLogoSet(programs).version, logos.version, 'the set and its version are the same on every build')
})

t.test('the servers never load simple-icons: it is a development dependency, not in the image', async (t) => {
  const files = fs.readdirSync(fileURLToPath(new URL('../../../server/', import.meta.url)), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))
  t.ok(files.length > 50)
  for (const file of files) {
    const text = fs.readFileSync(fileURLToPath(new URL(`../../../server/${file}`, import.meta.url)), 'utf8')
    t.notMatch(text, /from\s+['"]simple-icons|import\(\s*['"]simple-icons|require\(\s*['"]simple-icons/, file)
  }
})
