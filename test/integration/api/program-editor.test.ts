import t from 'tap'
import { CatalogueIndex } from '../../../server/api/catalogue/search-index.ts'
import { applySeed, readSeed } from '../../../server/api/catalogue/seed.ts'
import { createProgram, readProgram, retireProgram, updateProgram } from '../../../server/api/catalogue/program-editor.ts'
import { migrateApiSchema } from '../../../server/api/schema.ts'
import type { ProgramAsWritten } from '../../../shared/catalogue/program-editor.ts'
import { openTestDatabase } from '../../helpers.ts'

// Below the HTTP routes: the seed never overwrites an editor's work, and every API
// instance's listing index sees an editor's change once its version check comes round (500 ms).

const context = { actor: { id: 'u-ed', email: 'ed@example.com' }, requestId: 'req-test' }

const PROGRAM: ProgramAsWritten = {
  name: 'Zeichenbrett',
  developer: { name: 'Brett und Stift' },
  publisher: { name: 'Brett und Stift' },
  licenseType: 'freeware',
  price: null,
  categories: ['graphics'],
  platforms: ['linux'],
  languages: ['de'],
  version: '1.0',
  updated: '2026-12-01',
  released: '2026',
  homepage: 'https://zeichenbrett.example/',
  texts: { en: { summary: 'A drawing board for the desktop.', description: 'Zeichenbrett draws lines.' } },
}

t.test('the seed adds what it does not hold and never changes a program an editor wrote, nor brings a retired one back', async (t) => {
  const db = await openTestDatabase(t)
  await migrateApiSchema(db)
  const seed = readSeed()
  await applySeed(db, seed)
  const blender = (await readProgram(db, 'blender'))!
  t.equal(blender.revision, 0, 'as the seed wrote it')
  const de = { summary: 'Die 3D-Suite, von einer Redakteurin beschrieben.', description: 'Von Hand geschrieben, nicht aus dem Seed.' }
  await updateProgram(db, 'blender', 0, { version: '99.0', texts: { de } }, context)
  await retireProgram(db, 'gimp', context, new Date('2026-12-06T10:00:00Z'))
  const gimpBefore = (await readProgram(db, 'gimp'))!

  // A new seed that changes blender, gimp and inkscape, and adds a program.
  const changed = seed.programs.map((p) => (['blender', 'gimp', 'inkscape'].includes(p.id) ? { ...p, version: 'from-the-new-seed' } : p))
  const added = { ...seed.programs.find((p) => p.id === 'inkscape')!, id: 'inkscape-next', name: 'Inkscape Next' }
  const translations = seed.translations.map((tr) => (tr.programId === 'blender' && tr.locale === 'de' ? { ...tr, summary: 'Aus dem neuen Seed.' } : tr))
  t.equal(await applySeed(db, { programs: [...changed, added], translations, checksum: 'after-editors' }), true)

  const after = (await readProgram(db, 'blender'))!
  t.match(after, { version: '99.0', revision: 1, texts: { de } }, "blender keeps the editor's version and German text")
  t.same(await readProgram(db, 'gimp'), gimpBefore, 'gimp stays retired, as it was')
  t.equal((await readProgram(db, 'inkscape'))!.version, 'from-the-new-seed', 'a program no editor touched follows the seed')
  t.equal((await readProgram(db, 'inkscape-next'))!.name, 'Inkscape Next', 'a new seed program is added')
})

t.test("every instance's index lists an editor's change once its 500 ms version check comes round, and no sooner", async (t) => {
  const db = await openTestDatabase(t)
  await migrateApiSchema(db)
  await applySeed(db)
  let now = 1_000_000
  const clock = () => now
  const one = new CatalogueIndex(db, 500, clock)
  const other = new CatalogueIndex(db, 500, clock)
  const query = { q: 'zeichenbrett', price: 'all' as const, sort: 'nameAsc' as const, page: 1, pageSize: 24 }
  t.equal((await one.list(query)).total, 0)
  t.equal((await other.list(query)).total, 0)

  const { id } = await createProgram(db, PROGRAM as unknown as Record<string, unknown>, context)
  now += 499
  t.equal((await one.list(query)).total, 0, 'before the check: the index as loaded')
  now += 1
  t.same((await one.list(query)).items.map((p) => p.id), [id], 'at the check: reloaded')
  t.same((await other.list(query)).items.map((p) => p.id), [id], 'the other instance too')

  await retireProgram(db, id, context, new Date())
  now += 500
  t.equal((await one.list(query)).total, 0, 'retired: out of the public listing')
  const library = await one.list({ ...query, q: '' }, [id, 'blender'])
  t.same(library.items.map((p) => [p.id, p.retired ?? false]), [['blender', false], [id, true]], 'still in a library that holds it, marked')
})
