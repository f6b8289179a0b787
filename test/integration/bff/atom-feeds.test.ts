import { SaxesParser } from 'saxes'
import t, { type Test } from 'tap'
import { recordRelease } from '../../../server/api/catalogue/releases.ts'
import { ATOM_FEED_ENTRIES } from '../../../shared/catalogue/living.ts'
import type { ProgramAsWritten } from '../../../shared/catalogue/program-editor.ts'
import { buildStack, operatorTab } from '../../helpers.ts'

// /feeds/releases.atom and /feeds/category/{id}.atom — the 50 newest releases of programs
// not retired, as Atom 1.0 a reader can parse (checked by parsing, not by looking at strings), in
// English, escaped; a new release is in them as soon as the catalogue version moves; an unknown
// category is a 404.

const ATOM = 'http://www.w3.org/2005/Atom'

interface Element {
  name: string
  uri: string
  attributes: Record<string, string>
  children: Element[]
  text: string
}

/** The document parsed with namespaces (saxes throws on anything that is not well-formed XML). */
function parseXml(xml: string): Element {
  const parser = new SaxesParser({ xmlns: true })
  const stack: Element[] = []
  let root: Element | undefined
  parser.on('opentag', (tag) => {
    const element: Element = { name: tag.local, uri: tag.uri, attributes: Object.fromEntries(Object.values(tag.attributes).map((a) => [a.local, a.value])), children: [], text: '' }
    stack.at(-1)?.children.push(element)
    stack.push(element)
    root ??= element
  })
  parser.on('text', (text) => {
    if (stack.length > 0) stack.at(-1)!.text += text
  })
  parser.on('closetag', () => void stack.pop())
  parser.write(xml).close()
  return root!
}

const child = (element: Element, name: string) => element.children.find((c) => c.name === name && c.uri === ATOM)
const childrenNamed = (element: Element, name: string) => element.children.filter((c) => c.name === name && c.uri === ATOM)
const linkOf = (element: Element, rel: string) => childrenNamed(element, 'link').find((l) => (l.attributes.rel ?? 'alternate') === rel)
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/** The elements RFC 4287 requires of a feed and of each entry, present and well formed. */
function checkAtom(t: Test, feed: Element, appUrl: string, selfPath: string, pagePath: string) {
  t.equal(feed.name, 'feed')
  t.equal(feed.uri, ATOM, 'the Atom namespace')
  t.equal(feed.attributes.lang, 'en', 'in English')
  t.match(child(feed, 'id')?.text, /^tag:[^,]+,\d{4}:\S+$/)
  t.ok(child(feed, 'title')?.text.startsWith('Softshelf: new releases'))
  t.match(child(feed, 'updated')?.text, RFC3339)
  t.same(linkOf(feed, 'self')?.attributes, { rel: 'self', type: 'application/atom+xml', href: `${appUrl}${selfPath}` })
  t.same(linkOf(feed, 'alternate')?.attributes, { rel: 'alternate', type: 'text/html', href: `${appUrl}${pagePath}` })
  t.ok(child(child(feed, 'author')!, 'name')?.text, 'an author (required when entries have none)')
  const entries = childrenNamed(feed, 'entry')
  const ids = new Set<string>()
  for (const entry of entries) {
    const id = child(entry, 'id')!.text
    t.match(id, /^tag:[^,]+,\d{4}:release\/\S+$/, 'a tag: URI')
    ids.add(id)
    t.ok(child(entry, 'title')!.text.length > 0)
    t.match(child(entry, 'updated')!.text, RFC3339)
    t.match(linkOf(entry, 'alternate')!.attributes.href, new RegExp(`^${appUrl}/programs/[a-z0-9-]+$`))
    t.ok(child(entry, 'summary')!.text.length > 0)
  }
  t.equal(ids.size, entries.length, 'entry ids are unique')
  return entries
}

const TRICKY: ProgramAsWritten = {
  name: 'Tom & Jerry <Studio>',
  developer: { name: 'Cat "and" Mouse' },
  publisher: { name: 'Cat "and" Mouse' },
  licenseType: 'commercial',
  price: { amount: 10, currency: 'EUR', period: 'one-time' },
  categories: ['graphics'],
  platforms: ['windows'],
  languages: ['en'],
  version: '1.0',
  updated: '2020-01-01',
  released: '2019',
  homepage: 'https://tom.example/',
  texts: { en: { summary: 'Chasing and drawing.', description: 'Draws chases.' } },
}

t.test('Atom feeds of the newest releases', async (t) => {
  let now = Date.now()
  const stack = await buildStack(t, { auth: true, now: () => now })
  const { bff, db } = stack
  const appUrl = stack.config.appUrl
  const editor = await operatorTab(stack, 'ed@example.com', ['editor'])
  const created = await editor.post('/api/operator/programs', TRICKY)
  t.equal(created.statusCode, 201, created.body)
  const trickyId = created.json().id as string
  // Every program's current version as a release, as the migration gave a catalogue that had them.
  await db.query(`INSERT INTO api.program_releases (program_id, version, released_on, released_precision, source, recorded_at)
                  SELECT id, version, updated_on, updated_precision, 'editor', '2000-01-01T00:00:00Z' FROM api.programs ON CONFLICT DO NOTHING`)
  await db.transaction((tx) =>
    recordRelease(tx, { programId: trickyId, version: '2.0 <rc>', date: '2099-12-05', notesUrl: 'https://tom.example/notes?from=1.0&to=2.0', source: 'editor' }, { actor: { id: 'u-ed', email: 'ed@example.com' }, requestId: 'req-test' }),
  )
  now += 1_001

  t.test('/feeds/releases.atom: valid Atom, newest first, at most 50, escaped', async (t) => {
    const answer = await bff.inject({ method: 'GET', url: '/feeds/releases.atom' })
    t.equal(answer.statusCode, 200)
    t.equal(answer.headers['content-type'], 'application/atom+xml; charset=utf-8')
    t.match(answer.headers['cache-control'], /^public, max-age=\d+$/)
    const entries = checkAtom(t, parseXml(answer.body), appUrl, '/feeds/releases.atom', '/')
    const { rows } = await db.query<{ count: string | number }>('SELECT count(*) AS count FROM api.program_releases r JOIN api.programs p ON p.id = r.program_id WHERE p.retired_at IS NULL')
    t.ok(Number(rows[0]!.count) > ATOM_FEED_ENTRIES, 'more releases than a feed lists')
    t.equal(entries.length, ATOM_FEED_ENTRIES)
    const first = entries[0]!
    t.equal(child(first, 'title')!.text, 'Tom & Jerry <Studio> 2.0 <rc>', 'the newest first, its name and version read back as written')
    t.equal(linkOf(first, 'alternate')!.attributes.href, `${appUrl}/programs/${trickyId}`)
    t.equal(linkOf(first, 'related')!.attributes.href, 'https://tom.example/notes?from=1.0&to=2.0', 'the release notes')
    t.equal(child(first, 'updated')!.text, '2099-12-05T00:00:00Z')
    t.match(child(first, 'summary')!.text, /^Tom & Jerry <Studio> 2\.0 <rc> was released on 2099-12-05\./)
    const dates = entries.map((e) => child(e, 'updated')!.text)
    t.same(dates, [...dates].sort().reverse(), 'newest first')
  })

  t.test('/feeds/category/{id}.atom: only that category\'s programs', async (t) => {
    const answer = await bff.inject({ method: 'GET', url: '/feeds/category/graphics.atom' })
    t.equal(answer.statusCode, 200)
    t.equal(answer.headers['content-type'], 'application/atom+xml; charset=utf-8')
    const feed = parseXml(answer.body)
    const entries = checkAtom(t, feed, appUrl, '/feeds/category/graphics.atom', '/category/graphics')
    t.equal(child(feed, 'title')!.text, 'Softshelf: new releases in Graphics')
    const graphics = new Set(
      ((await bff.inject({ method: 'GET', url: '/api/programs?category=graphics&pageSize=100' })).json().items as Array<{ id: string }>).map((p) => p.id),
    )
    t.ok(entries.length > 1)
    for (const entry of entries) t.ok(graphics.has(linkOf(entry, 'alternate')!.attributes.href!.split('/').at(-1) ?? ''), child(entry, 'title')!.text)
    const audio = checkAtom(t, parseXml((await bff.inject({ method: 'GET', url: '/feeds/category/audio-music.atom' })).body), appUrl, '/feeds/category/audio-music.atom', '/category/audio-music')
    t.notOk(audio.some((e) => child(e, 'title')!.text.startsWith('Tom & Jerry')), 'not in another category')
  })

  t.test('an unknown category, or a path that is not a feed, is a 404', async (t) => {
    for (const url of ['/feeds/category/gardening.atom', '/feeds/category/Graphics.atom', '/feeds/category/graphics', '/feeds/category/.atom', '/feeds/category/graphics.atom.atom']) {
      const answer = await bff.inject({ method: 'GET', url, headers: { accept: 'application/atom+xml' } })
      t.equal(answer.statusCode, 404, url)
      t.equal(answer.json().code, 'BFF_FEED_NOT_FOUND', url)
    }
    t.equal((await bff.inject({ method: 'GET', url: '/api/releases?category=gardening' })).json().code, 'API_CATALOGUE_NOT_FOUND', 'the API says so too')
  })

  t.test('a retired program leaves the feeds once the catalogue version moves', async (t) => {
    t.equal((await editor.delete(`/api/operator/programs/${trickyId}`)).statusCode, 200)
    now += 1_001
    for (const url of ['/feeds/releases.atom', '/feeds/category/graphics.atom']) {
      const entries = childrenNamed(parseXml((await bff.inject({ method: 'GET', url })).body), 'entry')
      t.notOk(entries.some((e) => child(e, 'title')!.text.startsWith('Tom & Jerry')), url)
    }
  })
})
