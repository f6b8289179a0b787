import fs from 'node:fs'
import t from 'tap'
import { fold } from '../../../server/api/catalogue/search-index.ts'
import { readSeed, TRANSLATED_LOCALES, validateSeed, validateTranslations, type SeedProgram } from '../../../server/api/catalogue/seed.ts'
import { PROGRAM_CATEGORIES } from '../../../shared/catalogue/catalogue.ts'
import { parsePartialDate } from '../../../shared/catalogue/partial-dates.ts'

// The catalogue's seed as data: what the pages show of it must be true and well-formed.

const seedDir = new URL('../../../server/api/seed/', import.meta.url)
const seed = readSeed(seedDir)

t.test('every category has at least 22 programs', async (t) => {
  for (const category of PROGRAM_CATEGORIES) {
    const count = seed.programs.filter((p) => p.categories.includes(category)).length
    t.ok(count >= 22, `${category}: ${count}`)
  }
})

t.test('presentation programs are Productivity, not Graphics (issue 15, item 10)', async (t) => {
  for (const id of ['microsoft-powerpoint', 'apple-keynote']) {
    const program = seed.programs.find((p) => p.id === id)!
    t.equal(program.categories[0], 'productivity', `${id} is filed under Productivity first`)
    t.notOk(program.categories.includes('graphics'), `${id} is not Graphics`)
  }
})

t.test('dates are well-formed and say only what is known', async (t) => {
  for (const p of seed.programs) {
    t.ok(parsePartialDate(p.released) && parsePartialDate(p.updated), `${p.id}: ${p.released}, ${p.updated}`)
  }
  // Made-up dates: "YYYY-01-01" where only the year was known. A real release on
  // 1 January is rare enough to be named here when there is one.
  const newYearReleases = seed.programs.filter((p) => /-01-01$/.test(p.released) || /-01-01$/.test(p.updated)).map((p) => p.id)
  t.same(newYearReleases, [], 'no program claims a release on 1 January')
  t.ok(seed.programs.filter((p) => p.released.length === 4).length >= 99, 'the 99 year-only releases say just the year')
})

t.test('the seed refuses dates that are not dates, or out of order', async (t) => {
  const blender = seed.programs.find((p) => p.id === 'blender')!
  const withDates = (released: string, updated: string): SeedProgram[] => [{ ...blender, released, updated }]
  t.doesNotThrow(() => validateSeed(withDates('1998', '2025-03-18')))
  t.doesNotThrow(() => validateSeed(withDates('2025-03-18', '2025-03')), 'the same month either way')
  t.throws(() => validateSeed(withDates('1998-01-01T00:00:00Z', '2025')), /released "1998-01-01T00:00:00Z" is not YYYY, YYYY-MM or YYYY-MM-DD/)
  t.throws(() => validateSeed(withDates('1998', '2025-02-30')), /updated "2025-02-30"/)
  t.throws(() => validateSeed(withDates('2026', '2025')), /updated before released/)
})

t.test('translations present so far are well-formed: known programs of their file, texts, the name kept', async (t) => {
  const translationsDir = new URL('translations/', seedDir)
  const fileOf = new Map<string, string>()
  for (const file of fs.readdirSync(seedDir).filter((f) => /^programs-.+\.json$/.test(f))) {
    for (const p of JSON.parse(fs.readFileSync(new URL(file, seedDir), 'utf8')) as SeedProgram[]) fileOf.set(p.id, file)
  }
  const english = new Map(seed.programs.map((p) => [p.id, p]))
  const present = fs.existsSync(translationsDir) ? fs.readdirSync(translationsDir) : []
  for (const locale of present) {
    t.ok((TRANSLATED_LOCALES as readonly string[]).includes(locale), `translations/${locale} is one of ${TRANSLATED_LOCALES.join(', ')}`)
    for (const file of fs.readdirSync(new URL(`${locale}/`, translationsDir))) {
      t.match(file, /^programs-\d+\.json$/, `${locale}/${file}`)
      const entries = JSON.parse(fs.readFileSync(new URL(`${locale}/${file}`, translationsDir), 'utf8')) as Record<string, { summary: string; description: string }>
      t.doesNotThrow(() => validateTranslations(seed.programs, locale, file, entries), `${locale}/${file} is well-formed`)
      for (const [id, text] of Object.entries(entries)) {
        t.equal(fileOf.get(id), file, `${locale}/${file}: ${id} is a program of ${file}`)
        const program = english.get(id)
        if (!program) continue
        // Names are not translated: where the English texts name the program, so does the translation,
        // somewhere in summary or description. Inflection may change the last vowel ("GB Studio" →
        // hu "GB Studióban", pl "Krity"): the name is compared without accents and that vowel.
        if (fold(`${program.summary} ${program.description}`).includes(fold(program.name))) {
          const stem = fold(program.name).replace(/[aeiouy]$/, '')
          t.ok(fold(`${text.summary} ${text.description}`).includes(stem), `${locale}/${file}: ${id} keeps the name "${program.name}"`)
        }
      }
    }
  }
  t.equal(seed.translations.length, present.reduce((sum, locale) => sum + fs.readdirSync(new URL(`${locale}/`, translationsDir)).reduce((n, file) => n + Object.keys(JSON.parse(fs.readFileSync(new URL(`${locale}/${file}`, translationsDir), 'utf8')) as object).length, 0), 0), 'the seed reads every translation present')
})

t.test('a malformed translation is refused with what is wrong', async (t) => {
  const ok = { summary: 'Freie 3D-Suite.', description: 'Blender ist frei.' }
  t.same(validateTranslations(seed.programs, 'de', 'programs-1.json', { blender: ok }), [{ programId: 'blender', locale: 'de', ...ok }])
  t.throws(() => validateTranslations(seed.programs, 'fr', 'programs-1.json', { blender: ok }), /"fr" is not a language to translate into/)
  t.throws(() => validateTranslations(seed.programs, 'en', 'programs-1.json', { blender: ok }), /"en" is not a language to translate into/)
  t.throws(() => validateTranslations(seed.programs, 'de', 'programs-1.json', [ok]), /not an object keyed by program id/)
  t.throws(() => validateTranslations(seed.programs, 'de', 'programs-1.json', { 'no-such-program': ok }), /no program "no-such-program" in the seed/)
  t.throws(() => validateTranslations(seed.programs, 'de', 'programs-1.json', { blender: { summary: ok.summary } }), /"blender" must be exactly \{ summary, description \}/)
  t.throws(() => validateTranslations(seed.programs, 'de', 'programs-1.json', { blender: { ...ok, name: 'Mixer' } }), /must be exactly/)
  t.throws(() => validateTranslations(seed.programs, 'de', 'programs-1.json', { blender: { ...ok, summary: '  ' } }), /empty or non-text/)
})

t.test('issue 29: the external ids of the seed are real ids, each of one program', async (t) => {
  const blender = seed.programs.find((p) => p.id === 'blender')!
  t.same(blender.externalIds, { flathub: 'org.blender.Blender', winget: 'BlenderFoundation.Blender', homebrew: 'blender' })
  t.ok(seed.programs.filter((p) => p.externalIds !== undefined).length >= 30, 'the open programs that are in Flathub, winget or Homebrew have them')
  t.notOk(seed.programs.some((p) => p.licenseType === 'subscription' && p.externalIds?.flathub), 'no made-up Flathub id for a subscription program')
  const gimp = seed.programs.find((p) => p.id === 'gimp')!
  t.throws(() => validateSeed([blender, { ...gimp, externalIds: { flathub: 'org.blender.Blender' } }]), /gimp.*externalIds\.flathub "org\.blender\.Blender" is also blender's/)
  t.throws(() => validateSeed([{ ...gimp, externalIds: { flathub: 'gimp' } }]), /externalIds\.flathub "gimp" is not such an id/)
  t.throws(() => validateSeed([{ ...gimp, externalIds: { snap: 'gimp' } as never }]), /externalIds\.snap is not a catalogue/)
})
