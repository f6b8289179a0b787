import t from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { CatalogueIndex } from '../../../server/api/catalogue/search-index.ts'
import { applySeed, readSeed, validateSeed } from '../../../server/api/catalogue/seed.ts'
import { PROGRAM_CATEGORIES } from '../../../shared/catalogue/catalogue.ts'
import type { ProgramDetail, ProgramPage, ProgramSummary } from '../../../shared/catalogue/program-schemas.ts'
import { LICENSE_TYPES } from '../../../shared/catalogue/vocabulary.ts'
import { parsePartialDate } from '../../../shared/catalogue/partial-dates.ts'
import { openTestDatabase, testBuildInfo, testConfig } from '../../helpers.ts'

t.test('catalogue API on the seed', async (t) => {
  const db = await openTestDatabase(t)
  const api = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
  t.teardown(() => api.close())
  const seed = readSeed()
  const get = async <T>(url: string): Promise<T> => {
    const response = await api.inject(url)
    t.equal(response.statusCode, 200, url)
    return response.json() as T
  }
  const all = async (query = ''): Promise<ProgramSummary[]> => {
    const items: ProgramSummary[] = []
    for (let page = 1; ; page++) {
      const body = await get<ProgramPage>(`/api/programs?pageSize=100&page=${page}${query}`)
      items.push(...body.items)
      if (items.length >= body.total || body.items.length === 0) return items
    }
  }

  t.test('the seed is real-sized: ≥ 200 programs, every category ≥ 12', async (t) => {
    const first = await get<ProgramPage>('/api/programs')
    t.equal(first.total, seed.programs.length)
    t.ok(first.total >= 200)
    t.equal(first.items.length, 24, 'default page size')
    const categories = await get<Array<{ id: string; count: number }>>('/api/categories')
    t.same(categories.map((c) => c.id), [...PROGRAM_CATEGORIES], 'in the spec\'s order')
    for (const category of categories) t.ok(category.count >= 12, `${category.id} has ${category.count}`)
  })

  t.test('sort orders', async (t) => {
    const popular = await all('&sort=namePopular')
    for (let i = 1; i < popular.length; i++) {
      const [a, b] = [popular[i - 1]!, popular[i]!]
      t.ok(a.popularity > b.popularity || (a.popularity === b.popularity && a.name.toLowerCase() <= b.name.toLowerCase()), `${a.id} before ${b.id}`)
    }
    const asc = (await all('&sort=nameAsc')).map((p) => p.name.toLowerCase())
    t.same(asc, [...asc].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
    const desc = (await all('&sort=nameDesc')).map((p) => p.name.toLowerCase())
    t.same(desc, [...asc].reverse())
    // A date known to the year or month sorts as the first day of it ("2024" as 2024-01-01).
    const updated = (await all('&sort=updated')).map((p) => ({ ...p, start: parsePartialDate(p.updated)!.start }))
    for (let i = 1; i < updated.length; i++) {
      const [a, b] = [updated[i - 1]!, updated[i]!]
      t.ok(a.start > b.start || (a.start === b.start && a.popularity >= b.popularity), `${a.id} (${a.updated}) before ${b.id} (${b.updated})`)
    }
  })

  t.test('free and paid split the catalogue exactly, by licence type', async (t) => {
    const free = await all('&price=free')
    const paid = await all('&price=paid')
    t.equal(free.length + paid.length, seed.programs.length)
    t.ok(free.every((p) => p.isFree && LICENSE_TYPES[p.licenseType].free && p.price === null))
    t.ok(paid.every((p) => !p.isFree && !LICENSE_TYPES[p.licenseType].free && p.price !== null && p.price.amount > 0))
    const types = await get<Array<{ id: string; count: number }>>('/api/license-types')
    t.equal(types.reduce((sum, type) => sum + type.count, 0), seed.programs.length)
  })

  t.test('pagination is stable: pages together are the whole list, once each', async (t) => {
    const pages: string[] = []
    for (let page = 1; page <= 12; page++) pages.push(...(await get<ProgramPage>(`/api/programs?pageSize=25&page=${page}`)).items.map((p) => p.id))
    t.equal(new Set(pages).size, pages.length)
    t.equal(pages.length, seed.programs.length)
    const beyond = await get<ProgramPage>('/api/programs?page=999&pageSize=50')
    t.same(beyond.items, [])
    t.equal(beyond.total, seed.programs.length)
  })

  t.test('filters: category, developer, publisher, licence type, language, combined', async (t) => {
    const threeD = await all('&category=3d')
    t.ok(threeD.length >= 12 && threeD.every((p) => p.categories.includes('3d')))
    t.ok(threeD.some((p) => p.id === 'blender'))
    const adobe = await all('&developer=adobe')
    t.ok(adobe.length >= 3 && adobe.every((p) => p.developer.id === 'adobe'))
    const openSource = await all('&licenseType=open-source')
    t.ok(openSource.length > 0 && openSource.every((p) => p.licenseType === 'open-source'))
    const slovak = await all('&language=sk')
    t.ok(slovak.length > 0 && slovak.every((p) => p.languages.includes('sk')))
    const combined = await all('&category=graphics&price=free&sort=nameAsc')
    t.ok(combined.length > 0 && combined.every((p) => p.categories.includes('graphics') && p.isFree))
    const everything = await all('&category=all')
    t.equal(everything.length, seed.programs.length, 'category=all means no category filter')
  })

  t.test('search finds by prefix, by word inside the text, and despite a typo', async (t) => {
    const ids = async (q: string) => (await get<ProgramPage>(`/api/programs?q=${encodeURIComponent(q)}`)).items.map((p) => p.id)
    t.equal((await ids('blend'))[0], 'blender', 'prefix: the name match comes first')
    t.ok((await ids('blendr')).includes('blender'), 'typo')
    t.ok((await ids('photshop')).includes('adobe-photoshop') || (await ids('photshop')).some((id) => id.includes('photoshop')), 'typo in a longer name')
    t.ok((await ids('kden')).includes('kdenlive'), 'prefix')
    t.ok((await ids('Blender Foundation')).includes('blender'), 'developer name')
    t.same(await ids('%_%'), [], 'LIKE wildcards are literal characters')
    t.same(await ids('zzzxqv'), [])
  })

  t.test('a program in full, with more from its developer and related programs', async (t) => {
    const blender = await get<ProgramDetail>('/api/programs/blender')
    t.equal(blender.name, 'Blender')
    t.equal(blender.developer.id, 'blender-foundation')
    t.equal(blender.categories[0], '3d')
    t.match(blender.homepage, /^https:\/\//)
    t.ok(blender.description.length > 40)
    t.ok(blender.related.length > 0 && blender.related.every((p) => p.id !== 'blender' && p.categories.includes('3d')))
    const adobeProgram = (await all('&developer=adobe'))[0]!
    const detail = await get<ProgramDetail>(`/api/programs/${adobeProgram.id}`)
    t.ok(detail.moreFromDeveloper.length > 0 && detail.moreFromDeveloper.every((p) => p.developer.id === 'adobe' && p.id !== adobeProgram.id))
  })

  t.test('dates say only what is known: released and updated with their precision, as the seed has them', async (t) => {
    const precisionOf = (value: string) => (value.length === 4 ? 'year' : value.length === 7 ? 'month' : 'day')
    // Blender was first released in 1998 — not on 1 January 1998.
    t.match(await get<ProgramDetail>('/api/programs/blender'), { released: '1998', releasedPrecision: 'year' })
    t.match(await get<ProgramDetail>('/api/programs/autodesk-maya'), { released: '1998-02', releasedPrecision: 'month', updated: '2024-03', updatedPrecision: 'month' })
    t.match(await get<ProgramDetail>('/api/programs/adobe-photoshop'), { released: '1990-02-19', releasedPrecision: 'day', updated: '2024-10-14', updatedPrecision: 'day' })
    const listed = await all()
    const seeded = new Map(seed.programs.map((p) => [p.id, p]))
    for (const program of listed) {
      t.equal(program.updated, seeded.get(program.id)!.updated, `${program.id} updated`)
      t.equal(program.updatedPrecision, precisionOf(program.updated), `${program.id} updated precision`)
    }
    for (const { id, released } of seed.programs) {
      const detail = await get<ProgramDetail>(`/api/programs/${id}`)
      t.same([detail.released, detail.releasedPrecision], [released, precisionOf(released)], `${id} released`)
    }
  })

  t.test('developers, publishers, categories and licence types by id', async (t) => {
    t.match(await get('/api/developers/blender-foundation'), { id: 'blender-foundation', name: 'Blender Foundation' })
    t.match(await get('/api/publishers/adobe'), { id: 'adobe' })
    t.match(await get('/api/categories/simulation'), { id: 'simulation' })
    t.match(await get('/api/license-types/subscription'), { id: 'subscription', isFree: false })
  })

  t.test('unknown ids are 404 JSON; bad parameters are 400 naming the parameter and what is allowed', async (t) => {
    for (const url of ['/api/programs/no-such-program', '/api/categories/cooking', '/api/developers/nobody', '/api/publishers/nobody', '/api/license-types/stolen']) {
      const response = await api.inject(url)
      t.equal(response.statusCode, 404, url)
      t.equal(response.json().code, 'API_CATALOGUE_NOT_FOUND', url)
    }
    const sort = await api.inject('/api/programs?sort=random')
    t.equal(sort.statusCode, 400)
    t.equal(sort.json().code, 'API_VALIDATION_FAILED')
    t.equal(sort.json().message, 'sort must be one of: namePopular, nameAsc, nameDesc, updated')
    // "recently added" is the personal library's own sort; the catalogue has no "added" date.
    const added = await api.inject('/api/programs?sort=recentlyAdded')
    t.equal(added.statusCode, 400)
    t.equal(added.json().code, 'API_VALIDATION_FAILED')
    const price = await api.inject('/api/programs?price=cheap')
    t.equal(price.json().message, 'price must be one of: all, free, paid')
    const category = await api.inject('/api/programs?category=cooking')
    t.match(category.json().message, /^category must be one of: all, 3d, graphics/)
    const pageSize = await api.inject('/api/programs?pageSize=101')
    t.equal(pageSize.statusCode, 400)
    t.match(pageSize.json().message, /^pageSize must be <= 100/)
    const page = await api.inject('/api/programs?page=abc')
    t.match(page.json().message, /^page must be integer/)
  })

  t.test('answers are cacheable and revalidate by ETag', async (t) => {
    const first = await api.inject('/api/programs?category=3d')
    t.equal(first.headers['cache-control'], 'public, max-age=1')
    const tag = first.headers.etag as string
    t.ok(tag)
    const again = await api.inject({ url: '/api/programs?category=3d', headers: { 'if-none-match': tag } })
    t.equal(again.statusCode, 304)
  })

  t.test('applying the seed again changes nothing', async (t) => {
    t.equal(await applySeed(db), false, 'the same seed is recognised and skipped')
    const before = (await get<ProgramPage>('/api/programs?pageSize=1')).total
    await db.query('UPDATE api.seed_state SET checksum = $1', ['older'])
    t.equal(await applySeed(db), true, 'a different seed is applied')
    t.equal((await get<ProgramPage>('/api/programs?pageSize=1')).total, before, 'upserted, not duplicated')
  })

  t.test('an organisation the seed no longer names disappears with its last program; one named two ways is refused', async (t) => {
    await db.query(`INSERT INTO api.developers (id, name, website) VALUES ('adobe-inc', 'Adobe Inc.', 'https://www.adobe.com')`)
    await db.query('UPDATE api.seed_state SET checksum = $1', ['older'])
    await applySeed(db)
    t.equal((await api.inject('/api/developers/adobe-inc')).statusCode, 404)
    t.equal((await api.inject('/api/developers/adobe')).statusCode, 200)

    const programs = readSeed().programs
    const renamed = programs.map((p, i) => (i === 1 ? { ...p, developer: `${programs[0]!.developer} Inc.` } : p))
    t.throws(() => validateSeed(renamed), { message: `Seed program "${programs[1]!.id}": organisation "${programs[0]!.developer} Inc." is also named "${programs[0]!.developer}"` })
    t.doesNotThrow(() => validateSeed(programs))
  })
})

t.test('the in-memory listing index follows the catalogue version', async (t) => {
  const db = await openTestDatabase(t)
  await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
  const index = new CatalogueIndex(db, 0)
  const before = await index.list({ price: 'all', sort: 'nameAsc', page: 1, pageSize: 5, q: 'qxw' })
  t.equal(before.total, 0)
  await db.query(
    `INSERT INTO api.programs (id, name, summary, description, developer_id, publisher_id, license_type, platforms, languages, homepage, version, released_on, updated_on, popularity, search_text)
     SELECT 'qxw-paint', 'Qxw Paint', 'Stripes.', 'Stripes.', developer_id, publisher_id, license_type, platforms, languages, homepage, '1.0', released_on, updated_on, 1, 'qxw paint stripes'
       FROM api.programs WHERE id = 'blender'`,
  )
  await db.query(`INSERT INTO api.program_categories (program_id, category_id, is_primary) VALUES ('qxw-paint', 'graphics', true)`)
  t.equal((await index.list({ price: 'all', sort: 'nameAsc', page: 1, pageSize: 5, q: 'qxw' })).total, 0, 'the same version: the index is what it was')
  await db.query("UPDATE api.seed_state SET checksum = 'catalogue-changed'")
  const after = await index.list({ price: 'all', sort: 'nameAsc', page: 1, pageSize: 5, q: 'qxw', category: 'graphics' })
  t.equal(after.total, 1, 'a new version is loaded')
  t.equal(after.items[0]?.name, 'Qxw Paint')
})

t.test('a listing index that could not reload tries again on the next request', async (t) => {
  const db = await openTestDatabase(t)
  await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
  // The database answers everything but the index's load while `failLoad` is set.
  let failLoad = false
  const flaky = {
    ...db,
    query: (async (text: string, params?: unknown[]) =>
      failLoad && text.includes('p.search_text, p.developer_id') ? Promise.reject(new Error('database away')) : db.query(text, params)) as typeof db.query,
  }
  const index = new CatalogueIndex(flaky, 0)
  const query = { price: 'all' as const, sort: 'nameAsc' as const, page: 1, pageSize: 3 }
  t.equal((await index.list(query)).items.length, 3)
  await db.query("UPDATE api.seed_state SET checksum = 'new-version'")
  failLoad = true
  await t.rejects(index.list(query), /database away/, 'the reload fails')
  failLoad = false
  t.equal((await index.list(query)).items.length, 3, 'and is tried again, not remembered as failed')
})
