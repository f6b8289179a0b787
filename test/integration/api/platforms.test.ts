import t from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import type { ProgramPage, ProgramSummary } from '../../../shared/catalogue/program-schemas.ts'
import { PLATFORMS } from '../../../shared/catalogue/vocabulary.ts'
import { openTestDatabase, testBuildInfo, testConfig } from '../../helpers.ts'

// `platform=windows|macos|linux|web` on the program listing, with every other filter.
// (The personal library's GET /api/user/programs takes the same query: test/integration/bff/compare-pages.test.ts.)

const db = await openTestDatabase(t)
const api = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
t.teardown(() => api.close())

async function all(query = ''): Promise<ProgramSummary[]> {
  const items: ProgramSummary[] = []
  for (let page = 1; ; page++) {
    const response = await api.inject(`/api/programs?pageSize=100&page=${page}${query}`)
    if (response.statusCode !== 200) throw new Error(`${query}: ${response.body}`)
    const body = response.json() as ProgramPage
    items.push(...body.items)
    if (items.length >= body.total || body.items.length === 0) return items
  }
}

t.test('platform=… lists exactly the programs that run there', async (t) => {
  const everything = await all()
  for (const platform of PLATFORMS) {
    const listed = await all(`&platform=${platform}`)
    const expected = everything.filter((p) => p.platforms.includes(platform)).map((p) => p.id).sort()
    t.ok(listed.length > 0, `${platform}: some programs`)
    t.ok(listed.length < everything.length, `${platform}: not every program`)
    t.same(listed.map((p) => p.id).sort(), expected, `${platform}: every program that runs there, and no other`)
    const first = (await api.inject(`/api/programs?platform=${platform}`)).json() as ProgramPage
    t.equal(first.total, expected.length, `${platform}: the total counts them`)
  }
  const web = (await all('&platform=web')).map((p) => p.id)
  t.ok(web.includes('penpot') && web.includes('figma'), 'Penpot and Figma run in a browser')
  t.notOk(web.includes('blender'), 'Blender does not')
})

t.test('platform combines with every other filter, the search and the sorts', async (t) => {
  const linux = await all('&platform=linux')
  const check = async (query: string, also: (p: ProgramSummary) => boolean) => {
    const listed = await all(`&platform=linux${query}`)
    const expected = linux.filter(also).map((p) => p.id).sort()
    t.ok(expected.length > 0, `${query}: the case is not empty`)
    t.same(listed.map((p) => p.id).sort(), expected, query)
  }
  await check('&category=graphics', (p) => p.categories.includes('graphics'))
  await check('&price=free', (p) => p.isFree)
  await check('&price=paid', (p) => !p.isFree)
  await check('&licenseType=open-source', (p) => p.licenseType === 'open-source')
  await check('&developer=blender-foundation', (p) => p.developer.id === 'blender-foundation')
  await check('&language=sk', (p) => p.languages.includes('sk'))
  await check('&category=3d&price=free&language=de', (p) => p.categories.includes('3d') && p.isFree && p.languages.includes('de'))
  const searched = (await api.inject('/api/programs?platform=web&q=pen')).json() as ProgramPage
  t.ok(searched.items.some((p) => p.id === 'penpot'), 'with a search')
  t.ok(searched.items.every((p) => p.platforms.includes('web')))
  const sorted = (await all('&platform=macos&sort=nameAsc')).map((p) => p.name.toLowerCase())
  t.same(sorted, [...sorted].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'sorted by name')
})

t.test('an unknown platform is a 400 naming the parameter and the values allowed, like the other filters', async (t) => {
  for (const value of ['android', 'Windows', 'mac', '', 'windows,linux']) {
    const response = await api.inject(`/api/programs?platform=${encodeURIComponent(value)}`)
    t.equal(response.statusCode, 400, value)
    t.match(response.json(), { statusCode: 400, code: 'API_VALIDATION_FAILED', message: 'platform must be one of: windows, macos, linux, web' }, value)
  }
  const twice = await api.inject('/api/programs?platform=windows&platform=linux')
  t.equal(twice.statusCode, 400, 'one platform at a time')
  t.equal(twice.json().code, 'API_VALIDATION_FAILED')
})
