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
    t.match(body, /<h1>Catalogue<\/h1>/)
    t.match(body, /257 programs/)
    t.match(body, /<option value="namePopular" selected="">Most popular<\/option>/)
    t.match(body, /aria-current="page"[^>]*>All<\/a>|class="tab tab-active" aria-current="page"/)
    t.equal((body.match(/class="program-card card"/g) ?? []).length, 24, 'one page of 24')
    // Numbered pages, plain links, the current one marked.
    const pages = /<nav class="pagination"[^>]*>(.*?)<\/nav>/.exec(body)?.[1] ?? ''
    t.same([...pages.matchAll(/<a [^>]*href="([^"]+)"[^>]*>([^<]+)<\/a>/g)].map((m) => [m[1], m[2]]), [
      ['/library', '1'],
      ['/library?page=2', '2'],
      ['/library?page=11', '11'],
      ['/library?page=2', 'Next page'],
    ])
    t.match(pages, /<a aria-current="page" href="\/library"[^>]*>1<\/a>/)
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
    const second = await page('/library?page=2&sort=nameAsc')
    t.match(second.body, /<a aria-current="page" href="\/library\?sort=nameAsc&amp;page=2"[^>]*>2<\/a>/)
    t.match(second.body, /rel="prev"/)
    const odd = await page('/library?price=cheap&sort=random&page=-4')
    t.equal(odd.status, 200, 'odd values fall back to defaults')
  })

  t.test('a page past the last one is a redirect to the last page, the rest of the query kept (issue 15)', async (t) => {
    const cases: Array<[string, string]> = [
      ['/library?page=99', '/library?page=11'],
      ['/library?sort=nameAsc&page=12&utm_source=mail', '/library?sort=nameAsc&page=11&utm_source=mail'],
      ['/category/3d?page=40', '/category/3d?page=2'],
      // Nothing matches: page 1, which says so.
      ['/library?q=zzzzzzzz&page=3', '/library?q=zzzzzzzz&page=1'],
    ]
    for (const [url, location] of cases) {
      const response = await bff.inject(url)
      t.equal(response.statusCode, 302, url)
      t.equal(response.headers.location, location, url)
    }
    const last = await page('/library?page=11')
    t.equal(last.status, 200, 'the last page is a page')
    t.equal((last.body.match(/class="program-card card"/g) ?? []).length, 257 - 240)
    const empty = await page('/library?q=zzzzzzzz&page=1')
    t.equal(empty.status, 200)
    t.match(empty.body, /No program matches these filters\./)
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
    // Visitors are sent to sign in first; their library's twin of the page is where they return.
    t.match(body, /<a class="button"[^>]* href="\/login\?redirectToPath=%2F%40%2Fprograms%2Fblender&amp;action=add"[^>]*>Add to library<\/a>/)
  })

  t.test('the home page has the categories with counts, popular, recently updated and free programs, and a search box', async (t) => {
    const { status, body } = await page('/')
    t.equal(status, 200)
    t.match(body, /<form[^>]* action="\/library"[^>]*role="search"|<form[^>]*role="search"[^>]* action="\/library"/)
    t.match(body, /<input id="home-q" type="search"[^>]* name="q"/)
    const tiles = [...body.matchAll(/class="category-tile" href="\/category\/([a-z0-9-]+)"[^>]*><span class="category-name">[^<]+<\/span><span class="category-count">(\d+) programs<\/span>/g)]
    t.equal(tiles.length, 10, 'ten categories with counts')
    t.ok(tiles.every((tile) => Number(tile[2]) >= 12))
    const section = (id: string) => {
      const start = body.indexOf(`id="${id}-title"`)
      t.ok(start > 0, `${id} section`)
      const end = body.indexOf('</section>', start)
      return [...body.slice(start, end).matchAll(/<h3><a href="\/programs\/([^"]+)"/g)].map((m) => m[1]!)
    }
    const popular = section('popular')
    const recent = section('recent')
    const free = section('free')
    t.equal(popular.length, 6)
    t.equal(recent.length, 6)
    t.equal(free.length, 6)
    t.notOk(free.some((id) => popular.includes(id)), 'free picks do not repeat the popular row')
    t.match(body, /href="\/library\?price=free"/)
  })

  t.test('every page has its own title, description, canonical URL and Open Graph tags', async (t) => {
    const head = async (url: string, headers: Record<string, string> = {}) => {
      const response = await bff.inject({ url, headers })
      return response.body.slice(0, response.body.indexOf('</head>'))
    }
    const meta = (html: string, attribute: string, key: string) => new RegExp(`<meta ${attribute}="${key}" content="([^"]*)">`).exec(html)?.[1]
    const cases: Array<[string, string]> = [
      ['/', 'Softshelf — all must-have programs in one place'],
      ['/library', 'Software catalogue — Softshelf'],
      ['/category/audio-music', 'Audio &amp; Music software — Softshelf'],
      ['/developer/blender-foundation', 'Programs by Blender Foundation — Softshelf'],
      ['/publisher/adobe', 'Programs published by Adobe — Softshelf'],
      ['/license-type/open-source', 'Open source programs — Softshelf'],
      ['/programs/blender', 'Blender by Blender Foundation — Softshelf'],
      ['/terms', 'Terms of service — Softshelf'],
    ]
    const descriptions = new Set<string>()
    for (const [url, title] of cases) {
      const html = await head(url)
      t.match(html, `<title>${title}</title>`, url)
      t.equal(meta(html, 'property', 'og:title'), title, `${url} og:title`)
      t.equal(meta(html, 'property', 'og:url'), `http://localhost:3000${url === '/' ? '/' : url}`, `${url} og:url`)
      t.match(html, `<link rel="canonical" href="http://localhost:3000${url}">`)
      t.equal(meta(html, 'name', 'robots'), 'index, follow')
      const description = meta(html, 'name', 'description') ?? ''
      t.ok(description.length >= 40, `${url} has a description`)
      t.equal(meta(html, 'property', 'og:description'), description)
      if (url !== '/terms') descriptions.add(description)
    }
    t.equal(descriptions.size, cases.length - 1, 'each catalogue page describes itself')

    const german = await head('/category/graphics', { cookie: 'lang=de' })
    t.match(german, '<title>Graphics software — Softshelf</title>', 'titles stay English (spec §1)')
    t.match(meta(german, 'name', 'description') ?? '', /Grafik/, 'descriptions follow the language')
    t.equal(meta(german, 'property', 'og:locale'), 'de_DE')

    const missing = await head('/programs/no-such-thing')
    t.match(missing, '<title>Page not found — Softshelf</title>')
    t.equal(meta(missing, 'name', 'robots'), 'noindex')
  })

  t.test('program pages carry SoftwareApplication structured data; home a WebSite search action', async (t) => {
    const jsonLd = async (url: string) => {
      const response = await bff.inject(url)
      const match = /<script type="application\/ld\+json" nonce="[^"]+">(.*?)<\/script>/.exec(response.body)
      return match ? (JSON.parse(match[1]!) as Record<string, unknown>) : null
    }
    const blender = await jsonLd('/programs/blender')
    t.match(blender, {
      '@context': 'https://schema.org',
      '@type': 'SoftwareApplication',
      name: 'Blender',
      url: 'http://localhost:3000/programs/blender',
      applicationCategory: 'DesignApplication',
      operatingSystem: 'Windows, macOS, Linux',
      isAccessibleForFree: true,
      author: { '@type': 'Organization', name: 'Blender Foundation', url: 'http://localhost:3000/developer/blender-foundation' },
      offers: { '@type': 'Offer', price: '0' },
    })
    const photoshop = await jsonLd('/programs/adobe-photoshop')
    t.match(photoshop, { isAccessibleForFree: false, offers: { '@type': 'Offer', price: /^\d+\.\d{2}$/, priceCurrency: /^[A-Z]{3}$/ } })
    const home = await jsonLd('/')
    t.match(home, { '@type': 'WebSite', potentialAction: { '@type': 'SearchAction', target: { urlTemplate: 'http://localhost:3000/library?q={search_term_string}' } } })
    t.equal(await jsonLd('/library'), null)
  })

  t.test('unknown program, category, developer, publisher or licence type → 404 page', async (t) => {
    for (const url of ['/programs/no-such-thing', '/category/cooking', '/developer/nobody', '/publisher/nobody', '/license-type/stolen']) {
      const { status, body } = await page(url)
      t.equal(status, 404, url)
      t.match(body, /<h1>Page not found<\/h1>/, url)
    }
  })
})
