import t from 'tap'
import type { ProgramDetail, ProgramPage } from '../../../shared/catalogue/program-schemas.ts'
import { buildStack, operatorTab, signedInTab } from '../../helpers.ts'

// The pages: a paid program's page lists free alternatives (rendered on the server, from
// the API's `alternatives`), a free one's none; the home page, the catalogue and each category page
// name their Atom feed in the head; the signed-in listing offers "Save this search", and
// /@/saved-searches lists the account's searches, each a link to its listing.

const feedLink = (title: string, href: string) => `<link rel="alternate" type="application/atom+xml" title="${title}" href="${href}">`

t.test('free alternatives, feed links, saved searches in the pages', async (t) => {
  let now = Date.now()
  const stack = await buildStack(t, { auth: true, now: () => now })
  const { bff } = stack
  const appUrl = stack.config.appUrl
  const json = async <T>(url: string) => (await bff.inject({ method: 'GET', url })).json() as T

  t.test("a paid program's page lists free programs of its primary category, most popular first", async (t) => {
    const paid = (await json<ProgramPage>('/api/programs?price=paid&category=graphics&pageSize=1')).items[0]!
    const detail = await json<ProgramDetail>(`/api/programs/${paid.id}`)
    const primary = detail.categories[0]!
    const alternatives = detail.alternatives!
    t.ok(alternatives.length > 0 && alternatives.length <= 6, `${alternatives.length} alternatives`)
    for (const alternative of alternatives) {
      t.equal(alternative.isFree, true, alternative.id)
      t.ok(alternative.categories.includes(primary), `${alternative.id} is in ${primary}`)
      t.not(alternative.id, paid.id)
    }
    const popularity = alternatives.map((a) => a.popularity)
    t.same(popularity, [...popularity].sort((a, b) => b - a), 'most popular first')
    const freeInCategory = await json<ProgramPage>(`/api/programs?price=free&category=${primary}&pageSize=6`)
    t.same(alternatives.map((a) => a.id), freeInCategory.items.map((p) => p.id), "the listing's most popular free programs of the category")

    const page = await bff.inject({ method: 'GET', url: `/programs/${paid.id}` })
    t.equal(page.statusCode, 200)
    const section = /<section[^>]*data-testid="free-alternatives"[^>]*>([\s\S]*?)<\/section>/.exec(page.body)
    t.ok(section, 'the section is in the server-rendered page')
    t.match(section![1], /<h2 id="free-alternatives-title">Free alternatives<\/h2>/)
    for (const alternative of alternatives) t.match(section![1], `href="/programs/${alternative.id}"`, alternative.id)

    const german = await bff.inject({ method: 'GET', url: `/programs/${paid.id}`, headers: { 'accept-language': 'de' } })
    t.match(german.body, '>Kostenlose Alternativen</h2>', 'in the page language')

    // An editor retires the most popular alternative: it is no longer offered.
    const editor = await operatorTab(stack, 'ed@example.com', ['editor'])
    t.equal((await editor.delete(`/api/operator/programs/${alternatives[0]!.id}`)).statusCode, 200)
    now += 1_001
    const after = await json<ProgramDetail>(`/api/programs/${paid.id}`)
    t.notOk(after.alternatives!.some((a) => a.id === alternatives[0]!.id), 'a retired program is not an alternative')
  })

  t.test("a free program's page has none", async (t) => {
    const free = (await json<ProgramPage>('/api/programs?price=free&category=graphics&pageSize=1')).items[0]!
    t.same((await json<ProgramDetail>(`/api/programs/${free.id}`)).alternatives, [])
    const page = await bff.inject({ method: 'GET', url: `/programs/${free.id}` })
    t.equal(page.statusCode, 200)
    t.notMatch(page.body, 'free-alternatives')
  })

  t.test('the home page, the catalogue and a category page link their Atom feed; a program page none', async (t) => {
    const releases = feedLink('Softshelf: new releases', `${appUrl}/feeds/releases.atom`)
    t.match((await bff.inject({ method: 'GET', url: '/' })).body, releases, 'home')
    t.match((await bff.inject({ method: 'GET', url: '/library' })).body, releases, 'the catalogue')
    const category = (await bff.inject({ method: 'GET', url: '/category/audio-music' })).body
    t.match(category, feedLink('Softshelf: new releases in Audio &amp; Music', `${appUrl}/feeds/category/audio-music.atom`), 'a category: its own feed')
    t.equal(category.match(/application\/atom\+xml/g)?.length, 1, 'one feed link')
    t.notMatch((await bff.inject({ method: 'GET', url: '/programs/blender' })).body, 'application/atom+xml')
    // The linked feed is there.
    t.equal((await bff.inject({ method: 'GET', url: '/feeds/category/audio-music.atom' })).statusCode, 200)
  })

  t.test('signed in: "Save this search" on the listings, and /@/saved-searches lists the searches as links', async (t) => {
    const tab = await signedInTab(stack, 'sam@example.com')
    for (const url of ['/@/programs?q=blender', '/@/category/graphics', '/@/developer/blender-foundation']) {
      const page = await tab.get(url)
      t.equal(page.statusCode, 200, url)
      t.match(page.body, /data-testid="save-search"[\s\S]*?>Save this search<\/button>/, url)
    }
    t.notMatch((await bff.inject({ method: 'GET', url: '/library' })).body, 'save-search', 'not for a visitor')

    const empty = await tab.get('/@/saved-searches')
    t.equal(empty.statusCode, 200)
    t.match(empty.body, '<h1>Saved searches</h1>')
    t.match(empty.body, 'You have no saved searches yet.')

    t.equal((await tab.post('/api/user/saved-searches', { name: 'Free by Blender <Foundation>', query: 'developer=blender-foundation&price=free' })).statusCode, 201)
    t.equal((await tab.post('/api/user/saved-searches', { name: 'Blender, in my language', query: 'q=blender&language=de' })).statusCode, 201)
    const page = await tab.get('/@/saved-searches')
    t.equal(page.statusCode, 200)
    t.match(page.body, /<a[^>]*href="\/@\/developer\/blender-foundation\?price=free"[^>]*>Free by Blender &lt;Foundation&gt;<\/a>/)
    t.match(page.body, /<a[^>]*href="\/@\/programs\?q=blender&amp;mine=1"[^>]*>Blender, in my language<\/a>/)
    t.match(page.body, 'aria-label="Delete the saved search “Blender, in my language”"')
    t.equal((await bff.inject({ method: 'GET', url: '/@/saved-searches' })).statusCode, 302, 'a visitor is sent to sign in')
  })
})
