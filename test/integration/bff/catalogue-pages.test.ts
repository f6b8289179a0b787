import t from 'tap'
import { buildStack } from '../../helpers.ts'

t.test('catalogue pages are server-rendered with their data', async (t) => {
  const { bff } = await buildStack(t)
  const page = async (url: string, headers: Record<string, string> = {}) => {
    const response = await bff.inject({ url, headers })
    return { status: response.statusCode, body: response.body.slice(0, response.body.indexOf('<script nonce')) }
  }

  t.test('/library lists programs, most popular first, with tabs, sort and category filter', async (t) => {
    const { status, body } = await page('/library')
    t.equal(status, 200)
    t.match(body, /<h1>Library<\/h1>/)
    t.match(body, /257 programs/)
    t.match(body, /<option value="namePopular" selected="">Most popular<\/option>/)
    t.match(body, /aria-current="page"[^>]*>All<\/a>|class="tab tab-active" aria-current="page"/)
    t.equal((body.match(/class="program-card card"/g) ?? []).length, 24, 'one page of 24')
    t.match(body, /Page 1 of 11/)
  })

  t.test('the URL query is the state: tab, sort, category, search, page', async (t) => {
    const paid = await page('/library?price=paid&sort=nameAsc&category=graphics')
    t.match(paid.body, /<option value="nameAsc" selected="">Name A–Z<\/option>/)
    t.match(paid.body, /<option value="graphics" selected="">Graphics<\/option>/)
    t.notMatch(paid.body, />Free<\/span><\/p>/, 'no free program on the paid tab')
    const names = [...paid.body.matchAll(/<h3><a href="\/programs\/[^"]+"[^>]*>([^<]+)<\/a><\/h3>/g)].map((m) => m[1]!.toLowerCase())
    t.same(names, [...names].sort(), 'sorted by name')
    const search = await page('/library?q=blendr')
    t.match(search.body, /href="\/programs\/blender"/, 'typo-tolerant search')
    const second = await page('/library?page=2')
    t.match(second.body, /Page 2 of 11/)
    t.match(second.body, /rel="prev"/)
    const odd = await page('/library?price=cheap&sort=random&page=-4')
    t.equal(odd.status, 200, 'odd values fall back to defaults')
  })

  t.test('category, developer, publisher and licence-type pages', async (t) => {
    const category = await page('/category/3d')
    t.match(category.body, /<h1>3D<\/h1>/)
    t.match(category.body, /href="\/programs\/blender"/)
    const developer = await page('/developer/blender-foundation')
    t.match(developer.body, /<h1>Blender Foundation<\/h1>/)
    t.match(developer.body, /href="https:\/\/www\.blender\.org[^"]*" rel="noopener noreferrer external"/)
    const publisher = await page('/publisher/adobe')
    t.match(publisher.body, /<p class="listing-kicker">Publisher<\/p>/)
    const license = await page('/license-type/open-source')
    t.match(license.body, /<h1>Open source<\/h1>/)
    const german = await page('/category/graphics', { cookie: 'lang=de' })
    t.match(german.body, /<h1>Grafik<\/h1>|<html lang="de">/)
  })

  t.test('a program page has everything known about it', async (t) => {
    const { status, body } = await page('/programs/blender')
    t.equal(status, 200)
    t.match(body, /<h1>Blender<\/h1>/)
    t.match(body, /href="\/developer\/blender-foundation"/)
    t.match(body, /href="\/publisher\/blender-foundation"/)
    t.match(body, /href="\/license-type\/open-source"/)
    t.match(body, /href="\/category\/3d"/)
    t.match(body, /Related programs/)
    t.match(body, /Windows, macOS, Linux/)
  })

  t.test('unknown program, category, developer, publisher or licence type → 404 page', async (t) => {
    for (const url of ['/programs/no-such-thing', '/category/cooking', '/developer/nobody', '/publisher/nobody', '/license-type/stolen']) {
      const { status, body } = await page(url)
      t.equal(status, 404, url)
      t.match(body, /<h1>Page not found<\/h1>/, url)
    }
  })
})
