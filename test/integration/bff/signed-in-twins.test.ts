import t from 'tap'
import { buildStack, signedInTab } from '../../helpers.ts'

// A signed-in user keeps the whole catalogue. Every public catalogue page sends
// them to its twin under /@ with the query, for every spelling the router takes and never off this
// origin; the twins render, and every link on them stays inside /@.

/** Public catalogue paths a signed-in page must never link to (the twins exist for all of them). */
const PUBLIC_CATALOGUE = /^\/(library|programs|category|developer|publisher|license-type|files)(\/|\?|$)/i

function hrefs(html: string): string[] {
  return [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'))
}

t.test('signed-in twins of the public catalogue', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = await signedInTab(stack, 'twins@example.com')
  const page = async (url: string) => {
    const response = await tab.get(url, { accept: 'text/html' })
    return { status: response.statusCode, location: response.headers.location, body: response.body }
  }

  await t.test('every public catalogue page sends a signed-in user to its twin, path and query', async (t) => {
    const cases: Array<[string, string]> = [
      ['/library?q=gimp&sort=nameAsc', '/@/programs?q=gimp&sort=nameAsc'],
      ['/library/?q=gimp', '/@/programs?q=gimp'],
      ['/LIBRARY?q=gimp', '/@/programs?q=gimp'],
      ['/Library//?page=2', '/@/programs?page=2'],
      ['/programs/blender', '/@/programs/blender'],
      ['/Programs/blender/', '/@/programs/blender'],
      ['/category/3d?page=2', '/@/category/3d?page=2'],
      ['/developer/blender-foundation', '/@/developer/blender-foundation'],
      ['/publisher/blender-foundation?price=free', '/@/publisher/blender-foundation?price=free'],
      ['/PUBLISHER/blender-foundation/', '/@/publisher/blender-foundation'],
      ['/license-type/open-source?sort=nameDesc', '/@/license-type/open-source?sort=nameDesc'],
      ['/license-type/open-source/', '/@/license-type/open-source'],
      ['/developer/blender%20foundation', '/@/developer/blender%20foundation'],
      ['/developer/a%2Fb', '/@/developer/a%2Fb'],
      ['/files', '/@/files'],
    ]
    for (const [from, to] of cases) t.match(await page(from), { status: 302, location: to }, from)
  })

  await t.test('no spelling leads off this origin', async (t) => {
    for (const url of ['//evil.com', '//evil.com/library', '/\\evil.com', '/\\/evil.com/library', '/library/..%2F..', '/library/..%2F..%2F%2Fevil.com', '/%2F%2Fevil.com/library', '/programs/%2F%2Fevil.com', '/developer/%5Cevil.com']) {
      const answer = await page(url)
      if (answer.status >= 300 && answer.status < 400) {
        const target = new URL(answer.location!, 'http://localhost:3000')
        t.equal(target.origin, 'http://localhost:3000', `${url} → ${answer.location}`)
        t.match(answer.location, /^\/@(\/|$|\?)/, `${url}: only ever to /@`)
      } else {
        t.equal(answer.status, 404, `${url}: not a page`)
      }
    }
  })

  await t.test('the new twins render, and every link on a signed-in page stays inside /@', async (t) => {
    for (const url of ['/@/programs?q=blender', '/@/programs/blender', '/@/publisher/blender-foundation', '/@/license-type/open-source', '/@/category/3d', '/@/developer/blender-foundation', '/@/library']) {
      const answer = await page(url)
      t.equal(answer.status, 200, url)
      const links = hrefs(answer.body)
      t.ok(links.length > 0, `${url} has links`)
      t.same(links.filter((href) => PUBLIC_CATALOGUE.test(href) || href === '/'), [], `${url}: no public catalogue link`)
    }
    const program = await page('/@/programs/blender')
    const links = hrefs(program.body)
    for (const href of ['/@/publisher/blender-foundation', '/@/license-type/open-source', '/@/developer/blender-foundation', '/@/category/3d']) t.ok(links.includes(href), `the program page links ${href}`)
    t.match((await page('/@/publisher/blender-foundation')).body, /<h1>Blender Foundation<\/h1>/)
    t.match((await page('/@/license-type/open-source')).body, /<h1>Open source<\/h1>/)
    t.equal((await page('/@/publisher/nobody')).status, 404, 'an unknown publisher is a 404 here too')
  })

  await t.test('the personal library searches and sorts by "recently added", without scripts', async (t) => {
    for (const id of ['blender', 'gimp', 'inkscape']) t.equal((await tab.post(`/api/user/program/${id}`)).statusCode, 200)
    for (const [id, day] of [['blender', '2026-02-01'], ['gimp', '2026-02-03'], ['inkscape', '2026-02-02']]) {
      await stack.db.query("UPDATE api.user_programs SET added_at = $2 WHERE program_id = $1 AND user_id = (SELECT id FROM api.users WHERE email = 'twins@example.com')", [id, day])
    }
    const names = (html: string) => [...html.matchAll(/<h3><a [^>]*>([^<]*)<\/a><\/h3>/g)].map((match) => match[1])
    const library = await page('/@/library')
    const form = /<form\b[^>]*role="search"[^>]*>/.exec(library.body)?.[0] ?? ''
    t.match(form, /method="get"/, 'a GET form: it works before scripts load')
    t.match(form, /action="\/@\/library"/, 'and stays on the personal library')
    t.match(library.body, /<input[^>]*type="search"[^>]*name="q"/)
    t.match(library.body, /<option value="recentlyAdded">Recently added<\/option>/)
    t.same(names((await page('/@/library?sort=recentlyAdded')).body), ['GIMP', 'Inkscape', 'Blender'], 'newest added first')
    t.same(names((await page('/@/library?q=gimp')).body), ['GIMP'], 'the search box searches the library')
    t.match((await page('/@/library?sort=recentlyAdded')).body, /<option value="recentlyAdded" selected="">/)
    t.match((await page('/@/library?sort=sideways')).body, /<option value="namePopular" selected="">/, 'an unknown sort is the default')
    const publicListing = await browserless(stack, '/library?sort=recentlyAdded')
    t.equal(publicListing.status, 200)
    t.notMatch(publicListing.body, /<option value="recentlyAdded"/, 'the public catalogue offers no "recently added"')
    t.match(publicListing.body, /<option value="namePopular" selected="">/, 'and falls back to the default')
  })
})

/** A page as a visitor sees it. */
async function browserless(stack: Awaited<ReturnType<typeof buildStack>>, url: string) {
  const response = await stack.bff.inject({ method: 'GET', url, headers: { accept: 'text/html' } })
  return { status: response.statusCode, body: response.body }
}
