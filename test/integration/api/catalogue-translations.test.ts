import t from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { applySeed, readSeed, type SeedTranslation } from '../../../server/api/catalogue/seed.ts'
import { migrate, readMigrations } from '../../../server/db/migrate.ts'
import type { ProgramDetail, ProgramPage } from '../../../shared/catalogue/program-schemas.ts'
import { openTestDatabase, testBuildInfo, testConfig } from '../../helpers.ts'

// A program's summary and description in the visitor's language, English where there is
// no translation. The tests apply a seed of their own, so they do not depend on the
// seed's translation texts: the real programs with translations made here.

const GERMAN_BLENDER: SeedTranslation = {
  programId: 'blender',
  locale: 'de',
  summary: 'Testfassung: freie 3D-Suite für Modellierung und Flüsterfarben.',
  description: 'Blender auf Deutsch, wie es dieser Test verlangt: eine Beschreibung, die sonst nirgends steht.',
}
const CZECH_BLENDER: SeedTranslation = { programId: 'blender', locale: 'cs', summary: 'Svobodný 3D balík pro modelování a úpravy scén.', description: 'Blender česky, pro tento test.' }

t.test('program texts follow Accept-Language, English where not translated', async (t) => {
  const db = await openTestDatabase(t)
  const api = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
  t.teardown(() => api.close())
  const seed = readSeed()
  const english = new Map(seed.programs.map((p) => [p.id, p]))
  t.equal(await applySeed(db, { programs: seed.programs, translations: [GERMAN_BLENDER, CZECH_BLENDER], checksum: 'translations-test' }), true)
  const get = async (url: string, language?: string) => {
    const response = await api.inject({ url, headers: language ? { 'accept-language': language } : {} })
    t.equal(response.statusCode, 200, `${url} (${language ?? 'no language'})`)
    return response
  }

  t.test('a program page: the translation in its language, with Content-Language and Vary', async (t) => {
    const german = await get('/api/programs/blender', 'de-DE,de;q=0.9,en;q=0.5')
    t.match(german.json<ProgramDetail>(), { summary: GERMAN_BLENDER.summary, description: GERMAN_BLENDER.description, textLanguage: 'de' })
    t.equal(german.headers['content-language'], 'de')
    t.match(german.headers.vary, /accept-language/i)
    const fromEnglish = await get('/api/programs/blender', 'en-GB')
    t.match(fromEnglish.json<ProgramDetail>(), { summary: english.get('blender')!.summary, description: english.get('blender')!.description, textLanguage: 'en' })
    t.equal(fromEnglish.headers['content-language'], 'en')
    t.not(fromEnglish.headers.etag, german.headers.etag, 'each language has its own ETag')
    const revalidated = await api.inject({ url: '/api/programs/blender', headers: { 'accept-language': 'en', 'if-none-match': String(german.headers.etag) } })
    t.equal(revalidated.statusCode, 200, "the German answer's ETag does not stand for the English one")
    t.match((await get('/api/programs/blender')).json<ProgramDetail>(), { summary: english.get('blender')!.summary, textLanguage: 'en' }, 'no Accept-Language: English')
    t.match((await get('/api/programs/blender', 'fr')).json<ProgramDetail>(), { textLanguage: 'en' }, 'a language we do not have: English')
  })

  t.test('no translation into the language asked for: English, and the answer says so', async (t) => {
    const gimp = await get('/api/programs/gimp', 'hu')
    t.match(gimp.json<ProgramDetail>(), { summary: english.get('gimp')!.summary, description: english.get('gimp')!.description, textLanguage: 'en' })
    t.equal(gimp.headers['content-language'], 'hu', 'the answer was made for Hungarian')
    const slovak = await get('/api/programs/blender', 'sk')
    t.match(slovak.json<ProgramDetail>(), { summary: english.get('blender')!.summary, textLanguage: 'en' }, 'blender has German and Czech, not Slovak')
  })

  t.test('listings and related programs carry the texts of the language too', async (t) => {
    const listing = (await get('/api/programs?category=3d&pageSize=100', 'de')).json<ProgramPage>()
    t.match(listing.items.find((p) => p.id === 'blender'), { summary: GERMAN_BLENDER.summary, textLanguage: 'de' })
    t.ok(listing.items.filter((p) => p.id !== 'blender').every((p) => p.textLanguage === 'en' && p.summary === english.get(p.id)!.summary))
    const listingHeaders = (await get('/api/programs?category=3d', 'de')).headers
    t.equal(listingHeaders['content-language'], 'de')
    t.match(listingHeaders.vary, /accept-language/i)
    const maya = (await get('/api/programs/autodesk-maya', 'cs')).json<ProgramDetail>()
    const related = maya.related.find((p) => p.id === 'blender')
    t.ok(related, 'blender is related to Maya')
    t.match(related, { summary: CZECH_BLENDER.summary, textLanguage: 'cs' })
  })

  t.test('search finds a program by the words of its summary in the visitor\'s language, accents or not', async (t) => {
    const ids = async (q: string, language: string) => (await get(`/api/programs?q=${encodeURIComponent(q)}`, language)).json<ProgramPage>().items.map((p) => p.id)
    t.same(await ids('flüsterfarben', 'de'), ['blender'])
    t.same(await ids('flusterfarben', 'de'), ['blender'], 'without the umlaut')
    t.same(await ids('flüsterfarbn', 'de'), ['blender'], 'with a typo')
    t.same(await ids('flüsterfarben', 'en'), [], 'not in another language\'s search')
    t.same(await ids('úpravy scén', 'cs'), ['blender'])
    t.same(await ids('upravy scen', 'cs'), ['blender'], 'Czech without its accents')
    t.ok((await ids('systemes', 'en')).includes('solidworks'), 'English text without accents: Dassault Systèmes')
  })

  t.test('the seed replaces the translations: one it no longer has is gone', async (t) => {
    t.equal(await applySeed(db, { programs: seed.programs, translations: [CZECH_BLENDER], checksum: 'translations-test-2' }), true)
    t.match((await get('/api/programs/blender', 'de')).json<ProgramDetail>(), { summary: english.get('blender')!.summary, textLanguage: 'en' })
    t.match((await get('/api/programs/blender', 'cs')).json<ProgramDetail>(), { summary: CZECH_BLENDER.summary, textLanguage: 'cs' })
  })
})

t.test('a database from before issue 15 ends up with the dates and translations of the seed', async (t) => {
  const db = await openTestDatabase(t, { empty: true })
  const migrations = await readMigrations(new URL('../../../server/api/migrations/', import.meta.url))
  await migrate(db, 'api', migrations.filter((m) => m.version <= 14))
  // What the previous release left: Blender "released on 1 January 1998", and the seed recorded as
  // applied with the very checksum of today's files — nothing would make the seed run again.
  await db.query(`INSERT INTO api.developers (id, name, website) VALUES ('blender-foundation', 'Blender Foundation', 'https://www.blender.org')`)
  await db.query(`INSERT INTO api.publishers (id, name, website) VALUES ('blender-foundation', 'Blender Foundation', 'https://www.blender.org')`)
  await db.query(
    `INSERT INTO api.programs (id, name, summary, description, developer_id, publisher_id, license_type, platforms, languages, homepage, version, released_on, updated_on, popularity, search_text)
     VALUES ('blender', 'Blender', 'Old.', 'Old.', 'blender-foundation', 'blender-foundation', 'open-source', '{linux}', '{en}', 'https://www.blender.org', '4.3', '1998-01-01', '2024-11-19', 95, 'blender old')`,
  )
  await db.query('INSERT INTO api.seed_state (id, checksum) VALUES (true, $1)', [readSeed().checksum])
  const api = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
  t.teardown(() => api.close())
  const blender = (await api.inject('/api/programs/blender')).json<ProgramDetail>()
  t.match(blender, { released: '1998', releasedPrecision: 'year', updated: '2025-03-18', updatedPrecision: 'day', version: '4.4' })
  const { rows } = await db.query<{ count: string | number }>('SELECT count(*) AS count FROM api.program_translations')
  t.equal(Number(rows[0]!.count), readSeed().translations.length, 'the translations of the seed files are there')
})
