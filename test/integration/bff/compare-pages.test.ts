import t from 'tap'
import type { ProgramDetail, ProgramPage } from '../../../shared/catalogue/program-schemas.ts'
import { formatPartialDate } from '../../../shared/catalogue/partial-dates.ts'
import { browser, buildStack, operatorTab, signedInTab } from '../../helpers.ts'

// /compare?programs=a,b,c as the BFF renders it — every field of every program, the
// status of a link that cannot be shown (400 malformed, 404 unknown or retired) with the valid
// programs kept as links, the page's head, another language, and the signed-in twin /@/compare.
// And the platform filter of the listing pages, public and signed in, and of the personal library.

const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000' } })
const visitor = browser(stack.bff)
const html = async (url: string, headers: Record<string, string> = {}) => {
  const response = await visitor.get(url, { accept: 'text/html', ...headers })
  return { status: response.statusCode, body: response.body, headers: response.headers }
}
const program = async (id: string) => (await stack.bff.inject(`/api/programs/${id}`)).json() as ProgramDetail
/** The text of the page's <main>, tags dropped, entities of the few kinds React writes decoded. */
const mainText = (body: string) =>
  /<main[\s\S]*<\/main>/
    .exec(body)![0]
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&amp;', '&')
    .replaceAll('&quot;', '"')
    .replaceAll('&#x27;', "'")
    .replace(/\s+/g, ' ')
/** The cells of one row of the table (`data-row`), as text. */
const row = (body: string, key: string) =>
  [...new RegExp(`<tr data-row="${key}">([\\s\\S]*?)</tr>`).exec(body)![1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, ' ').replaceAll('&amp;', '&').replace(/\s+/g, ' ').trim())

t.test('a comparison shows, per program, every field the issue names, in the link\'s order', async (t) => {
  const ids = ['blender', 'adobe-photoshop', 'gimp']
  const page = await html(`/compare?programs=${ids.join(',')}`)
  t.equal(page.status, 200)
  const programs = await Promise.all(ids.map(program))
  t.match(page.body, /<title>Compare Blender, Adobe Photoshop and GIMP — Softshelf<\/title>/)
  t.match(page.body, /<meta name="robots" content="noindex/, 'not indexed: every set of programs would be a page')
  t.match(page.body, /<h1>Compare programs<\/h1>/)
  // The column heads: logo and name, linking to the program's page, in the order of the link.
  const heads = [...page.body.matchAll(/<th scope="col"><a[^>]*href="([^"]+)"[^>]*><img[^>]*src="\/logos\/([\w-]+)\.svg[^"]*"[^>]*\/?><span>([^<]+)<\/span>/g)].map((m) => [m[1], m[2], m[3]])
  t.same(heads, programs.map((p) => [`/programs/${p.id}`, p.id, p.name]))
  t.same(row(page.body, 'price'), ['Price', 'Free', `${new Intl.NumberFormat('en', { style: 'currency', currency: programs[1]!.price!.currency }).format(programs[1]!.price!.amount)} per month`, 'Free'])
  t.equal(programs[1]!.price!.period, 'month')
  t.same(row(page.body, 'licenseType'), ['Licence', 'Open source', 'Subscription', 'Open source'])
  t.match(page.body, /href="\/license-type\/subscription"/)
  t.same(row(page.body, 'platforms'), ['Platforms', 'Windows macOS Linux', 'Windows macOS Web', 'Windows macOS Linux'])
  const languages = row(page.body, 'languages')
  t.equal(languages[0], 'Interface languages')
  t.match(languages[1], /^English German Spanish French .*Indonesian$/, 'the names of the languages, not their codes')
  t.ok(languages[3]!.includes('Hungarian') && !languages[1]!.includes('Hungarian'))
  t.same(row(page.body, 'categories'), ['Categories', '3D Video & Motion Game Development', 'Graphics', 'Graphics'])
  t.match(page.body, /href="\/category\/game-development"/)
  t.same(row(page.body, 'version'), ['Version', ...programs.map((p) => p.version)])
  t.same(row(page.body, 'updated'), ['Updated', ...programs.map((p) => formatPartialDate(p.updated, p.updatedPrecision, 'en'))])
  t.same(row(page.body, 'developer'), ['Developer', ...programs.map((p) => p.developer.name)])
  for (const p of programs) t.match(page.body, new RegExp(`href="/developer/${p.developer.id}"`))
  // With three programs each can be left out: a link to the comparison of the other two.
  t.match(page.body, /<a class="compare-remove" aria-label="Remove Blender from this comparison" href="\/compare\?programs=adobe-photoshop,gimp"/)
  // The toggle and the tray need the page's script: the server's HTML has neither.
  t.notMatch(page.body, /compare-toggle|compare-tray/)
})

t.test('in the visitor\'s language (German), with the program page\'s names for the fields', async (t) => {
  const page = await html('/compare?programs=krita,inkscape', { 'accept-language': 'de' })
  t.equal(page.status, 200)
  t.match(page.body, /<html lang="de"/)
  t.match(page.body, /<h1>Programme vergleichen<\/h1>/)
  t.match(page.body, /<title>Compare Krita and Inkscape — Softshelf<\/title>/, 'titles stay English (spec §1)')
  t.same(row(page.body, 'price'), ['Preis', 'Kostenlos', 'Kostenlos'])
  t.same(row(page.body, 'licenseType')[0], 'Lizenz')
  const languages = row(page.body, 'languages')
  t.equal(languages[0], 'Sprachen der Benutzeroberfläche')
  t.match(languages[1], /^Englisch Deutsch /, 'the languages\' names in German')
  t.same(row(page.body, 'developer')[0], 'Entwickler')
  t.match(page.body, /content="Krita, Inkscape nebeneinander: Preis, Lizenz/, 'the description in German')
  t.notMatch(page.body, /href="\/compare\?/, 'two programs: none can be left out')
})

t.test('a link that cannot be shown says what is wrong, with its status, and keeps the valid programs as links', async (t) => {
  const cases: Array<{ url: string; status: number; says: RegExp[]; links: string[] }> = [
    { url: '/compare', status: 400, says: [/A comparison needs at least 2 programs; this link names 0\./], links: [] },
    { url: '/compare?programs=', status: 400, says: [/needs at least 2 programs; this link names 0/], links: [] },
    { url: '/compare?programs=blender', status: 400, says: [/needs at least 2 programs; this link names 1\./], links: ['blender'] },
    {
      url: '/compare?programs=blender,gimp,krita,inkscape,darktable',
      status: 400,
      says: [/A comparison holds at most 4 programs; this link names 5\./],
      links: ['blender', 'gimp', 'krita', 'inkscape', 'darktable'],
    },
    { url: '/compare?programs=blender,gimp,blender', status: 400, says: [/Blender is named more than once\./], links: ['blender', 'gimp'] },
    { url: '/compare?programs=blender,no-such-program', status: 404, says: [/There is no program "no-such-program" in the catalogue\./], links: ['blender'] },
    { url: '/compare?programs=no-such-program,%3Cscript%3E', status: 404, says: [/"no-such-program"/, /"&lt;script&gt;"/], links: [] },
    { url: '/compare?programs=gimp,nothing-here', status: 404, says: [/"nothing-here"/], links: ['gimp'] },
    // Both kinds at once: the malformed link is the 400, and every fault is listed.
    { url: '/compare?programs=nothing-here', status: 400, says: [/this link names 1\./, /There is no program "nothing-here"/], links: [] },
  ]
  for (const { url, status, says, links } of cases) {
    const page = await html(url)
    t.equal(page.status, status, url)
    t.match(page.body, /<h2 id="compare-problems-title">This comparison cannot be shown<\/h2>/, url)
    for (const text of says) t.match(mainText(page.body), text, `${url}: ${text}`)
    t.notMatch(page.body, /<script>/, `${url}: nothing of the link is markup`)
    const found = [...(/<ul class="compare-found">([\s\S]*?)<\/ul>/.exec(page.body)?.[1] ?? '').matchAll(/href="\/programs\/([\w-]+)"/g)].map((m) => m[1])
    t.same(found, links, `${url}: the programs that exist, as links`)
    t.notMatch(page.body, /<table/, `${url}: no table`)
    t.match(page.body, /href="\/library"/, `${url}: on to the catalogue`)
  }
  // Five valid programs: the first four can be compared at once.
  const five = await html('/compare?programs=blender,gimp,krita,inkscape,darktable')
  t.match(five.body, /href="\/compare\?programs=blender,gimp,krita,inkscape"[^>]*>Compare these 4</)
  const few = await html('/compare?programs=blender')
  t.notMatch(mainText(few.body), /Compare these/, 'one program: nothing to compare')
  t.match(few.body, /<title>Compare programs — Softshelf<\/title>/)
})

t.test('a retired program is named as retired (404), the others kept', async (t) => {
  const editor = await operatorTab(stack, 'compare-editor@example.com', ['editor'])
  const retired = await editor.send('DELETE', '/api/operator/programs/sweet-home-3d')
  t.equal(retired.statusCode, 200, retired.body)
  const page = await html('/compare?programs=blender,sweet-home-3d')
  t.equal(page.status, 404)
  t.match(mainText(page.body), /The program "sweet-home-3d" has been retired from the catalogue\./)
  t.match(page.body, /<ul class="compare-found">[\s\S]*href="\/programs\/blender"/)
})

t.test('signed in: the public page sends to its twin /@/compare with the query, whose links stay under /@', async (t) => {
  const tab = await signedInTab(stack, 'compare-twin@example.com')
  const cases: Array<[string, string]> = [
    ['/compare?programs=blender,gimp', '/@/compare?programs=blender,gimp'],
    ['/compare/?programs=blender,gimp', '/@/compare?programs=blender,gimp'],
    ['/COMPARE?programs=blender,gimp', '/@/compare?programs=blender,gimp'],
    ['/compare', '/@/compare'],
  ]
  for (const [from, to] of cases) {
    const answer = await tab.get(from, { accept: 'text/html' })
    t.equal(answer.statusCode, 302, from)
    t.equal(answer.headers.location, to, from)
  }
  const twin = await tab.get('/@/compare?programs=blender,gimp,krita', { accept: 'text/html' })
  t.equal(twin.statusCode, 200)
  t.match(twin.body, /<th scope="col"><a[^>]*href="\/@\/programs\/blender"/)
  t.match(twin.body, /href="\/@\/developer\/blender-foundation"/)
  t.match(twin.body, /href="\/@\/compare\?programs=gimp,krita"/)
  t.notMatch(twin.body, /href="\/(programs|developer|category|license-type|compare)[/?]/, 'no link leaves /@')
  const wrong = await tab.get('/@/compare?programs=blender,unknown-one', { accept: 'text/html' })
  t.equal(wrong.statusCode, 404)
  t.match(wrong.body, /href="\/@\/programs\/blender"/)
  t.equal((await visitor.get('/@/compare?programs=blender,gimp', { accept: 'text/html' })).statusCode, 302, 'the twin needs a session')
})

t.test('the platform filter on the listing pages: in the form, in the URL, kept by the links and the guard', async (t) => {
  const web = (await stack.bff.inject('/api/programs?platform=web&pageSize=100')).json() as ProgramPage
  const page = await html('/library?platform=web&sort=nameAsc')
  t.equal(page.status, 200)
  t.match(page.body, new RegExp(`<h2 class="listing-count"[^>]*>${web.total} programs</h2>`), 'the count is of the programs that run in a browser')
  t.match(page.body, /<select id="listing-platform" name="platform">[\s\S]*?<option value="web" selected="">Web<\/option>/)
  t.match(page.body, /<option value="all">All platforms<\/option>/)
  t.match(mainText(page.body), /Figma/)
  t.notMatch(mainText(page.body), /\bBlender\b/, 'Blender does not run in a browser')
  t.match(page.body, /href="\/library\?platform=web&amp;sort=nameAsc&amp;page=2"|href="\/library\?price=free&amp;platform=web&amp;sort=nameAsc"/, 'other links keep it')
  const category = await html('/category/graphics?platform=linux')
  t.match(category.body, /<option value="linux" selected="">Linux<\/option>/)
  const linuxGraphics = (await stack.bff.inject('/api/programs?platform=linux&category=graphics')).json() as ProgramPage
  t.match(category.body, new RegExp(`>${linuxGraphics.total} programs</h2>`))
  const german = await html('/library?platform=macos', { 'accept-language': 'de' })
  t.match(german.body, /<label for="listing-platform">Plattform<\/label>/)
  t.match(german.body, /<option value="all">Alle Plattformen<\/option>/)
  // A hand-edited value is no filter (like the other filters), not an error page.
  const odd = await html('/library?platform=amiga')
  t.equal(odd.status, 200)
  t.match(odd.body, /<option value="all" selected="">All platforms<\/option>/)

  const tab = await signedInTab(stack, 'platform-filter@example.com')
  const redirected = await tab.get('/library?platform=linux&q=paint', { accept: 'text/html' })
  t.equal(redirected.statusCode, 302)
  t.equal(redirected.headers.location, '/@/programs?platform=linux&q=paint', 'the guard keeps the filter')
  const twin = await tab.get('/@/programs?platform=web', { accept: 'text/html' })
  t.equal(twin.statusCode, 200)
  t.match(twin.body, new RegExp(`>${web.total} programs</h2>`))
  t.match(twin.body, /<option value="web" selected="">Web<\/option>/)

  // The personal library: GET /api/user/programs takes it too, and /@/library shows the control.
  for (const id of ['penpot', 'blender', 'figma']) t.equal((await tab.send('POST', `/api/user/program/${id}`)).statusCode, 200)
  const mine = (await tab.get('/api/user/programs?platform=web&sort=nameAsc')).json() as ProgramPage
  t.same(mine.items.map((p) => p.id), ['figma', 'penpot'])
  t.equal(mine.total, 2)
  const linux = (await tab.get('/api/user/programs?platform=linux&view=saved')).json() as ProgramPage
  t.same(linux.items.map((p) => p.id), ['blender'])
  const bad = await tab.get('/api/user/programs?platform=beos')
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { code: 'API_VALIDATION_FAILED', message: 'platform must be one of: windows, macos, linux, web' })
  const library = await tab.get('/@/library?platform=web', { accept: 'text/html' })
  t.equal(library.statusCode, 200)
  t.match(library.body, />2 programs<\/h2>/)
  t.match(library.body, /<option value="web" selected="">Web<\/option>/)
  const none = await tab.get('/@/library?platform=web&q=blender', { accept: 'text/html' })
  t.match(none.body, /data-testid="library-empty"[\s\S]*Clear filters/, 'a filtered empty library offers to clear the filters')
})
