import { generateKeyPairSync, sign } from 'node:crypto'
import t from 'tap'
import { CatalogueIndex } from '../../../server/api/catalogue/search-index.ts'
import { runSavedSearches } from '../../../server/api/notifications/saved-searches.ts'
import { SAVED_SEARCHES_MAX } from '../../../shared/catalogue/living.ts'
import type { ProgramAsWritten } from '../../../shared/catalogue/program-editor.ts'
import { browser, buildStack, operatorTab, signedInTab, waitUntil } from '../../helpers.ts'

// Saved searches (docs/API.md "Saved searches"): an account saves a listing's query,
// at most SAVED_SEARCHES_MAX, sees and deletes only its own; a program an editor adds that the
// search matches becomes exactly one notification, what it matched when saved none.

const KRITZEL: ProgramAsWritten = {
  name: 'Kritzel Studio',
  developer: { name: 'Kritzel Werkstatt' },
  publisher: { name: 'Kritzel Werkstatt' },
  licenseType: 'commercial',
  price: { amount: 49.5, currency: 'EUR', period: 'one-time' },
  categories: ['graphics'],
  platforms: ['windows', 'linux'],
  languages: ['de', 'en'],
  version: '2.1',
  updated: '2026-11',
  released: '2019',
  homepage: 'https://kritzel.example/',
  texts: { en: { summary: 'Sketching and painting for tablets, with brushes that feel like paper.', description: 'Kritzel Studio paints with pressure-sensitive brushes.' } },
}

interface NotificationRow {
  user_id: string
  type: string
  program_id: string
  data: Record<string, unknown>
  dedupe: string
  mailed_at: Date | null
}

t.test('saved searches', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const { bff, db } = stack
  const alice = await signedInTab(stack, 'alice@example.com')
  const bob = await signedInTab(stack, 'bob@example.com')
  const editor = await operatorTab(stack, 'ed@example.com', ['editor'])
  const userIdOf = async (email: string) => (await db.query<{ id: string }>('SELECT id FROM api.users WHERE email = $1', [email])).rows[0]!.id
  const notificationsOf = async (userId: string) =>
    (await db.query<NotificationRow>("SELECT user_id, type, program_id, data, dedupe, mailed_at FROM api.notifications WHERE user_id = $1 AND type = 'search' ORDER BY dedupe", [userId])).rows

  t.test('private: refused signed out, with a forged token, and a write without the anti-forgery header', async (t) => {
    const anonymous = browser(bff)
    for (const answer of [
      await anonymous.get('/api/user/saved-searches'),
      await anonymous.post('/api/user/saved-searches', { name: 'x', query: '' }),
      await anonymous.delete('/api/user/saved-searches/whatever'),
    ]) {
      t.equal(answer.statusCode, 401)
      t.equal(answer.json().code, 'API_SESSION_REQUIRED')
    }
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const unsigned = `${part({ alg: 'RS256', typ: 'JWT', kid: 'd-1' })}.${part({ sub: await userIdOf('alice@example.com'), exp: Math.floor(Date.now() / 1000) + 600, 'st-ev': { v: true } })}`
    const forged = `${unsigned}.${sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url')}`
    t.equal((await bff.inject({ method: 'GET', url: '/api/user/saved-searches', headers: { cookie: `sAccessToken=${forged}` } })).statusCode, 401, 'a forged token')
    const noHeader = await bff.inject({
      method: 'POST',
      url: '/api/user/saved-searches',
      headers: { cookie: alice.jar.header('/api/user/saved-searches'), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x', query: '' }),
    })
    t.equal(noHeader.statusCode, 403)
    t.equal(noHeader.json().code, 'BFF_CSRF_REJECTED')
    t.same((await alice.get('/api/user/saved-searches')).json(), { items: [] }, 'nothing was saved')
  })

  t.test('save, list, read as the listing reads it', async (t) => {
    const answer = await alice.post('/api/user/saved-searches', { name: '  Paid graphics ', query: '?category=graphics&price=paid&sort=nameDesc&page=3&utm_source=x&constructor=1&__proto__=2' })
    t.equal(answer.statusCode, 201, answer.body)
    t.match(answer.headers['cache-control'], /no-store/)
    const saved = answer.json()
    t.match(saved, { id: String, name: 'Paid graphics', query: 'category=graphics&price=paid' }, 'trimmed; no "?", sort, page, nor what the listing does not read')
    t.ok(Math.abs(Date.parse(saved.createdAt) - Date.now()) < 60_000, 'createdAt is now')
    const list = await alice.get('/api/user/saved-searches')
    t.equal(list.statusCode, 200)
    t.same(list.json(), { items: [saved] })
    t.same((await bob.get('/api/user/saved-searches')).json(), { items: [] }, "another account does not see it")
    t.equal((await alice.delete(`/api/user/saved-searches/${saved.id}`)).statusCode, 204)
  })

  t.test('what the listing refuses is refused, naming the field', async (t) => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', query: 'category=gardening' }, /^query: category must be one of: all, 3d, graphics/],
      [{ name: 'x', query: 'price=cheap' }, /^query: price must be one of: all, free, paid/],
      [{ name: 'x', query: 'licenseType=pirated' }, /^query: licenseType must be one of/],
      [{ name: 'x', query: 'developer=Not%20A%20Slug' }, /^query: developer /],
      [{ name: 'x', query: `q=${'a'.repeat(101)}` }, /^query: q /],
      [{ name: 'x', query: 'q=blender&q=gimp' }, /^query: q is given more than once$/],
      [{ name: 'x', query: 'platform=Windows' }, /^query: platform must be one of: windows, macos, linux, web$/],
      [{ name: '   ', query: 'q=blender' }, /^name must not be blank$/],
      [{ name: '', query: 'q=blender' }, /name/],
      [{ name: 'x'.repeat(101), query: 'q=blender' }, /name/],
      [{ name: 'x' }, /query/],
    ]
    for (const [body, message] of cases) {
      const answer = await alice.post('/api/user/saved-searches', body)
      t.equal(answer.statusCode, 400, JSON.stringify(body))
      t.equal(answer.json().code, 'API_VALIDATION_FAILED')
      t.match(answer.json().message, message, JSON.stringify(body))
    }
    t.same((await alice.get('/api/user/saved-searches')).json(), { items: [] })
  })

  t.test(`at most ${SAVED_SEARCHES_MAX} per account, counted one save after the other`, async (t) => {
    const carol = await signedInTab(stack, 'carol@example.com')
    const answers = await Promise.all(Array.from({ length: SAVED_SEARCHES_MAX + 3 }, (_, i) => carol.post('/api/user/saved-searches', { name: `Search ${i}`, query: `q=search${i}` })))
    t.equal(answers.filter((a) => a.statusCode === 201).length, SAVED_SEARCHES_MAX)
    const refused = answers.filter((a) => a.statusCode !== 201)
    t.equal(refused.length, 3)
    for (const answer of refused) {
      t.equal(answer.statusCode, 409)
      t.match(answer.json(), { code: 'API_SAVED_SEARCHES_LIMIT', message: `You already have ${SAVED_SEARCHES_MAX} saved searches: delete one before saving another.` })
    }
    const items = (await carol.get('/api/user/saved-searches')).json().items as Array<{ id: string }>
    t.equal(items.length, SAVED_SEARCHES_MAX)
    t.equal((await carol.delete(`/api/user/saved-searches/${items[0]!.id}`)).statusCode, 204)
    t.equal((await carol.post('/api/user/saved-searches', { name: 'One more', query: 'q=more' })).statusCode, 201, 'one deleted: one more fits')
    t.equal((await bob.post('/api/user/saved-searches', { name: 'Bob', query: 'q=bob' })).statusCode, 201, "another account's count is its own")
  })

  t.test("only the account's own: another's is not found, and stays", async (t) => {
    const saved = (await alice.post('/api/user/saved-searches', { name: 'Mine', query: 'q=blender' })).json()
    const foreign = await bob.delete(`/api/user/saved-searches/${saved.id}`)
    t.equal(foreign.statusCode, 404)
    t.match(foreign.json(), { code: 'API_SAVED_SEARCH_NOT_FOUND', message: 'There is no such saved search: it may have been deleted.' })
    t.same((await alice.get('/api/user/saved-searches')).json().items.map((s: { id: string }) => s.id), [saved.id], 'still saved')
    t.equal((await alice.delete(`/api/user/saved-searches/${saved.id}`)).statusCode, 204)
    t.equal((await alice.delete(`/api/user/saved-searches/${saved.id}`)).statusCode, 404, 'deleted already')
    t.same((await alice.get('/api/user/saved-searches')).json(), { items: [] })
  })

  t.test('a program an editor adds that a search matches is one notification; what it matched when saved, none', async (t) => {
    const aliceId = await userIdOf('alice@example.com')
    const bobId = await userIdOf('bob@example.com')
    await db.query("UPDATE api.users SET notify = 'off' WHERE id = $1", [bobId])
    const paid = (await alice.post('/api/user/saved-searches', { name: 'Paid graphics', query: 'category=graphics&price=paid' })).json()
    const byName = (await alice.post('/api/user/saved-searches', { name: 'Kritzel', query: 'q=kritzel' })).json()
    const onMac = (await alice.post('/api/user/saved-searches', { name: 'Graphics on a Mac', query: 'category=graphics&platform=macos' })).json()
    const free = (await alice.post('/api/user/saved-searches', { name: 'Free graphics', query: 'category=graphics&price=free' })).json()
    const bobs = (await bob.post('/api/user/saved-searches', { name: 'Bob paints', query: 'q=painting&category=graphics' })).json()
    const known = (await db.query<{ count: string | number }>('SELECT count(*) AS count FROM api.saved_search_matches WHERE search_id = $1', [paid.id])).rows[0]!.count
    t.ok(Number(known) > 0, 'the paid graphics programs there are now are recorded as known')
    t.equal(await runSavedSearches(db, stack.api.catalogue), 0, 'nothing new: no notification')
    t.same(await notificationsOf(aliceId), [])

    const created = await editor.post('/api/operator/programs', KRITZEL)
    t.equal(created.statusCode, 201, created.body)
    const id = created.json().id as string
    // The API's own run (every 2 s) tells it; a run of ours at the same time changes nothing.
    await Promise.all([waitUntil(async () => (await notificationsOf(aliceId)).length === 2, 15_000), runSavedSearches(db, stack.api.catalogue)])
    const told = await notificationsOf(aliceId)
    t.same(
      told.map((n) => [n.type, n.program_id, n.dedupe, n.data, n.mailed_at]).sort((x, y) => String(x[2]).localeCompare(String(y[2]))),
      [
        ['search', id, `search:${byName.id}:${id}`, { searchId: byName.id, searchName: 'Kritzel', query: 'q=kritzel', programName: 'Kritzel Studio' }, null],
        ['search', id, `search:${paid.id}:${id}`, { searchId: paid.id, searchName: 'Paid graphics', query: 'category=graphics&price=paid', programName: 'Kritzel Studio' }, null],
      ].sort((x, y) => String(x[2]).localeCompare(String(y[2]))),
      'one per search that matches it; not the free graphics search; left for the daily mail',
    )
    t.notOk(told.some((n) => n.dedupe.startsWith(`search:${free.id}`)))
    t.notOk(told.some((n) => n.dedupe.startsWith(`search:${onMac.id}`)), 'Kritzel runs on Windows and Linux: not on a Mac')
    await waitUntil(async () => (await notificationsOf(bobId)).length === 1, 15_000)
    const [bobsNotification] = await notificationsOf(bobId)
    t.equal(bobsNotification!.dedupe, `search:${bobs.id}:${id}`)
    t.ok(bobsNotification!.mailed_at instanceof Date, "an account that takes no mail: marked as mailed at once")

    // The editor changes it again (the catalogue moves): nothing is told twice. The API's own run is
    // held (and one under way finished) first: a run of ours skips the searches another run has
    // locked, so with it going on beside ours, some could still be behind when ours return.
    await stack.api.savedSearchChecks.pause()
    t.teardown(() => stack.api.savedSearchChecks.resume())
    const changed = await editor.send('PATCH', `/api/operator/programs/${id}`, { baseRevision: 1, version: '2.2' })
    t.equal(changed.statusCode, 200, changed.body)
    await runSavedSearches(db, stack.api.catalogue)
    t.equal(await runSavedSearches(db, stack.api.catalogue), 0)
    t.equal((await notificationsOf(aliceId)).length, 2, 'still one per search')
    const { rows: behind } = await db.query('SELECT 1 FROM api.saved_searches WHERE checked_version < (SELECT version FROM api.catalogue_version)')
    t.same(behind, [], 'every search is at the catalogue version')
  })

  t.test('a retired program tells no one; a deleted search tells nothing more', async (t) => {
    // The API's own run every 2 s, held: one between the program's adding and its retiring would
    // rightly tell of it (it was live), and on a busy machine that window is long enough.
    await stack.api.savedSearchChecks.pause()
    t.teardown(() => stack.api.savedSearchChecks.resume())
    const aliceId = await userIdOf('alice@example.com')
    const before = (await notificationsOf(aliceId)).length
    const gone = (await editor.post('/api/operator/programs', { ...KRITZEL, name: 'Kritzel Retired' })).json()
    t.equal((await editor.delete(`/api/operator/programs/${gone.id}`)).statusCode, 200)
    await runSavedSearches(db, stack.api.catalogue)
    t.equal((await notificationsOf(aliceId)).length, before, 'retired before it was seen: no notification')

    const searches = (await alice.get('/api/user/saved-searches')).json().items as Array<{ id: string }>
    for (const search of searches) t.equal((await alice.delete(`/api/user/saved-searches/${search.id}`)).statusCode, 204)
    t.equal((await editor.post('/api/operator/programs', { ...KRITZEL, name: 'Kritzel Next' })).statusCode, 201)
    await runSavedSearches(db, stack.api.catalogue)
    t.equal((await notificationsOf(aliceId)).length, before, 'no search left: nothing new')
  })

  t.test('two instances running at once tell each new match once', async (t) => {
    const daveTab = await signedInTab(stack, 'dave@example.com')
    const daveId = await userIdOf('dave@example.com')
    for (let i = 0; i < 5; i++) t.equal((await daveTab.post('/api/user/saved-searches', { name: `Kritzel ${i}`, query: `q=kritzel&sort=nameAsc&page=${i + 1}` })).statusCode, 201)
    t.equal((await editor.post('/api/operator/programs', { ...KRITZEL, name: 'Kritzel Pro' })).statusCode, 201)
    const one = new CatalogueIndex(db)
    const other = new CatalogueIndex(db)
    const [a, b] = await Promise.all([runSavedSearches(db, one, 2), runSavedSearches(db, other, 2)])
    // A search a third instance (the API's own run) holds at that moment is skipped by both, then told by it.
    await waitUntil(async () => (await notificationsOf(daveId)).length >= 5, 15_000)
    const told = await notificationsOf(daveId)
    t.equal(told.length, 5, 'one for each of the five searches')
    t.ok(told.every((n) => n.program_id === 'kritzel-pro'))
    const { rows: all } = await db.query<{ user_id: string }>("SELECT user_id FROM api.notifications WHERE type = 'search' AND program_id = 'kritzel-pro'")
    t.equal(all.length, 6, "dave's five, and bob's search for painting in graphics")
    t.ok(a + b <= all.length, 'between them, never more than there are (the API may have told some first)')
  })
})
