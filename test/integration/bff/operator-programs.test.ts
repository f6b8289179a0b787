import t from 'tap'
import type { EditorProgram, ProgramAsWritten, ProgramRevision } from '../../../shared/catalogue/program-editor.ts'
import { buildStack, operatorTab, signedInTab, waitUntil } from '../../helpers.ts'

// Editors write the catalogue through /api/operator/programs (via the BFF, with the
// session and the anti-forgery header): create, read, change on top of a revision (409 when someone
// else's change came first), history and revert, retire; every write audited; the public catalogue
// shows a change within 2 seconds.

const NEW_PROGRAM: ProgramAsWritten = {
  name: 'Kritzel Studio',
  developer: { name: 'Kritzel Werkstatt' },
  publisher: { name: 'Kritzel Werkstatt' },
  licenseType: 'commercial',
  price: { amount: 49.5, currency: 'EUR', period: 'one-time' },
  categories: ['graphics', '3d'],
  platforms: ['windows', 'linux'],
  languages: ['de', 'en'],
  version: '2.1',
  updated: '2026-11',
  released: '2019',
  homepage: 'https://kritzel.example/',
  texts: {
    en: { summary: 'Sketching and painting for tablets, with brushes that feel like paper.', description: 'Kritzel Studio paints with pressure-sensitive brushes.' },
    de: { summary: 'Skizzieren und Malen auf dem Tablett, mit Pinseln wie auf Papier.', description: 'Kritzel Studio malt mit druckempfindlichen Pinseln.' },
  },
}

const auditEntries = async (db: { query: <T>(text: string, params?: unknown[]) => Promise<{ rows: T[] }> }, target: string) =>
  (
    await db.query<{ action: string; actor_email: string; before: unknown; after: unknown; request_id: string }>(
      'SELECT action, actor_email, before, after, request_id FROM api.audit_log WHERE target = $1 ORDER BY id',
      [target],
    )
  ).rows

t.test('the operator programs API', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const { bff, db } = stack
  const editor = await operatorTab(stack, 'ed@example.com', ['editor'])
  const otherEditor = await operatorTab(stack, 'eve@example.com', ['editor'])

  t.test('refused without the permission: signed out 401, support and a plain user 403, no anti-forgery header 401', async (t) => {
    const support = await operatorTab(stack, 'sue@example.com', ['support'])
    const plain = await signedInTab(stack, 'pat@example.com')
    for (const [method, url] of [
      ['GET', '/api/operator/programs'],
      ['GET', '/api/operator/programs/blender'],
      ['POST', '/api/operator/programs'],
      ['PATCH', '/api/operator/programs/blender'],
      ['DELETE', '/api/operator/programs/blender'],
      ['GET', '/api/operator/programs/blender/revisions'],
      ['POST', '/api/operator/programs/blender/revert'],
    ] as const) {
      const payload = method === 'GET' || method === 'DELETE' ? undefined : { baseRevision: 0, revision: 1, name: 'X' }
      for (const tab of [support, plain]) {
        const answer = method === 'GET' ? await tab.get(url) : await tab.send(method, url, payload)
        t.equal(answer.statusCode, 403, `${method} ${url}`)
        // The BFF refuses it before it is proxied (the API would refuse it too: operator-routes.test.ts).
        t.equal(answer.json().code, 'BFF_PERMISSION_DENIED')
      }
      const anonymous = await bff.inject({ method, url, ...(payload ? { payload } : {}), headers: { rid: 'anti-csrf' } })
      t.equal(anonymous.statusCode, 401, `${method} ${url} signed out`)
    }
    t.equal((await db.query('SELECT 1 FROM api.audit_log')).rows.length, 0, 'nothing was written')
  })

  let created: { id: string; revision: number }
  t.test('create: 201 with the id made from the name; the program as written reads back; audited', async (t) => {
    const answer = await editor.post('/api/operator/programs', NEW_PROGRAM)
    t.equal(answer.statusCode, 201, answer.body)
    created = answer.json()
    t.same(created, { id: 'kritzel-studio', revision: 1 })
    const read = await editor.get('/api/operator/programs/kritzel-studio')
    t.equal(read.statusCode, 200)
    t.match(read.headers['cache-control'], /no-store/)
    t.same(read.json(), {
      ...NEW_PROGRAM,
      id: 'kritzel-studio',
      developer: { id: 'kritzel-werkstatt', name: 'Kritzel Werkstatt' },
      publisher: { id: 'kritzel-werkstatt', name: 'Kritzel Werkstatt' },
      revision: 1,
      retired: false,
      retiredAt: null,
      externalIds: {},
    })
    const again = await editor.post('/api/operator/programs', NEW_PROGRAM)
    t.same(again.json(), { id: 'kritzel-studio-2', revision: 1 }, 'the same name again: a unique id')
    const audit = await auditEntries(db, 'program:kritzel-studio')
    t.equal(audit.length, 1)
    t.match(audit[0], { action: 'program.create', actor_email: 'ed@example.com', before: null, after: { name: 'Kritzel Studio', 'texts.de': NEW_PROGRAM.texts.de } })
    t.equal(audit[0]!.request_id, answer.headers['x-request-id'], 'the entry names the request')
  })

  t.test('create: an existing developer by id, a given id; a taken id is refused naming the field', async (t) => {
    const answer = await editor.post('/api/operator/programs', { ...NEW_PROGRAM, id: 'kritzel-lite', name: 'Kritzel Lite', developer: { id: 'blender-foundation', name: 'ignored' } })
    t.equal(answer.statusCode, 201, answer.body)
    const read = (await editor.get('/api/operator/programs/kritzel-lite')).json() as EditorProgram
    t.same(read.developer, { id: 'blender-foundation', name: 'Blender Foundation' }, "the catalogue's developer, its own name")
    const taken = await editor.post('/api/operator/programs', { ...NEW_PROGRAM, id: 'kritzel-lite' })
    t.equal(taken.statusCode, 400)
    t.match(taken.json(), { code: 'API_VALIDATION_FAILED', fields: [{ field: 'id' }] })
    // "new" is the console's page for a new program (/@/operator/programs/new), never a program's id.
    const reserved = await editor.post('/api/operator/programs', { ...NEW_PROGRAM, id: 'new' })
    t.equal(reserved.statusCode, 400)
    t.match(reserved.json(), { code: 'API_VALIDATION_FAILED', fields: [{ field: 'id' }] })
  })

  t.test('validation errors name the field', async (t) => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['no English summary', { ...NEW_PROGRAM, texts: { en: { description: 'x' } } }, 'texts.en.summary'],
      ['an empty German summary', { ...NEW_PROGRAM, texts: { ...NEW_PROGRAM.texts, de: { summary: ' ', description: 'x' } } }, 'texts.de.summary'],
      ['no English at all', { ...NEW_PROGRAM, texts: { de: NEW_PROGRAM.texts.de } }, 'texts.en'],
      ['a language not of the eight', { ...NEW_PROGRAM, texts: { ...NEW_PROGRAM.texts, it: NEW_PROGRAM.texts.de } }, 'texts.it'],
      ['a lower-case currency', { ...NEW_PROGRAM, price: { amount: 5, currency: 'eur', period: 'one-time' } }, 'price.currency'],
      ['three decimals', { ...NEW_PROGRAM, price: { amount: 5.555, currency: 'EUR', period: 'one-time' } }, 'price.amount'],
      ['a price for freeware', { ...NEW_PROGRAM, licenseType: 'freeware' }, 'price'],
      ['no price for a commercial licence', { ...NEW_PROGRAM, price: null }, 'price'],
      ['an unknown category', { ...NEW_PROGRAM, categories: ['graphics', 'cooking'] }, 'categories[1]'],
      ['a repeated category', { ...NEW_PROGRAM, categories: ['graphics', 'graphics'] }, 'categories[1]'],
      ['an unknown licence type', { ...NEW_PROGRAM, licenseType: 'shareware' }, 'licenseType'],
      ['a day that does not exist', { ...NEW_PROGRAM, released: '2023-02-30' }, 'released'],
      ['updated before released', { ...NEW_PROGRAM, updated: '2018' }, 'updated'],
      ['a homepage without https', { ...NEW_PROGRAM, homepage: 'http://kritzel.example/' }, 'homepage'],
      ['no name', { ...NEW_PROGRAM, name: '' }, 'name'],
      ['no developer name', { ...NEW_PROGRAM, developer: {} }, 'developer.name'],
      ['a field programs do not have', { ...NEW_PROGRAM, rating: 5 }, 'rating'],
    ]
    for (const [what, body, field] of cases) {
      const answer = await editor.post('/api/operator/programs', body)
      t.equal(answer.statusCode, 400, what)
      const error = answer.json() as { code: string; message: string; fields?: Array<{ field: string }> }
      t.equal(error.code, 'API_VALIDATION_FAILED', what)
      t.ok(error.fields?.some((f) => f.field === field), `${what}: names ${field} (${JSON.stringify(error.fields)})`)
      t.ok(error.message.includes(field), `${what}: the message names it`)
    }
  })

  t.test('patch on top of the current revision; a stale one is 409 with the current revision; nothing lost', async (t) => {
    const first = await editor.send('PATCH', '/api/operator/programs/kritzel-studio', { baseRevision: 1, version: '2.2', updated: '2026-12-01' })
    t.equal(first.statusCode, 200, first.body)
    t.same(first.json(), { revision: 2 })
    const stale = await otherEditor.send('PATCH', '/api/operator/programs/kritzel-studio', { baseRevision: 1, name: 'Kritzel Pro' })
    t.equal(stale.statusCode, 409)
    t.match(stale.json(), { code: 'API_REVISION_CONFLICT', currentRevision: 2, message: /revision is 2/ })
    const read = (await editor.get('/api/operator/programs/kritzel-studio')).json() as EditorProgram
    t.match(read, { name: 'Kritzel Studio', version: '2.2', updated: '2026-12-01', revision: 2 }, "the first change kept, the stale one not applied")
    const texts = await editor.send('PATCH', '/api/operator/programs/kritzel-studio', { baseRevision: 2, texts: { de: null, cs: { summary: 'Kreslení na tabletu.', description: 'Kritzel Studio kreslí štětci.' } } })
    t.same(texts.json(), { revision: 3 })
    const after = (await editor.get('/api/operator/programs/kritzel-studio')).json() as EditorProgram
    t.same(Object.keys(after.texts), ['en', 'cs'], 'German removed, Czech added, English kept')
    const noEnglish = await editor.send('PATCH', '/api/operator/programs/kritzel-studio', { baseRevision: 3, texts: { en: null } })
    t.equal(noEnglish.statusCode, 400)
    t.match(noEnglish.json(), { code: 'API_VALIDATION_FAILED' })
    const nothing = await editor.send('PATCH', '/api/operator/programs/kritzel-studio', { baseRevision: 3 })
    t.equal(nothing.statusCode, 400, 'a patch must change something')
    const unknown = await editor.send('PATCH', '/api/operator/programs/no-such-program', { baseRevision: 0, name: 'X' })
    t.equal(unknown.statusCode, 404)
    t.equal(unknown.json().code, 'API_CATALOGUE_NOT_FOUND')
    const audit = await auditEntries(db, 'program:kritzel-studio')
    t.match(audit.slice(1), [
      { action: 'program.update', actor_email: 'ed@example.com', before: { version: '2.1', updated: '2026-11' }, after: { version: '2.2', updated: '2026-12-01' } },
      { action: 'program.update', before: { 'texts.de': NEW_PROGRAM.texts.de, 'texts.cs': null }, after: { 'texts.de': null } },
    ])
    t.same(Object.keys(audit[1]!.after as object).sort(), ['updated', 'version'], 'only the changed fields')
  })

  t.test('two changes on the same revision at once: exactly one wins, the other is 409', async (t) => {
    const base = ((await editor.get('/api/operator/programs/kritzel-studio')).json() as EditorProgram).revision
    const answers = await Promise.all([
      editor.send('PATCH', '/api/operator/programs/kritzel-studio', { baseRevision: base, version: '3.0' }),
      otherEditor.send('PATCH', '/api/operator/programs/kritzel-studio', { baseRevision: base, version: '3.1' }),
    ])
    t.same(answers.map((a) => a.statusCode).sort(), [200, 409], answers.map((a) => a.body).join(' | '))
    const winner = answers.find((a) => a.statusCode === 200)!
    t.same(winner.json(), { revision: base + 1 })
    const read = (await editor.get('/api/operator/programs/kritzel-studio')).json() as EditorProgram
    t.equal(read.version, winner === answers[0] ? '3.0' : '3.1')
    t.equal(read.revision, base + 1)
  })

  t.test('the list: search by name, developer or id; pages', async (t) => {
    const found = await editor.get('/api/operator/programs?q=kritzel')
    t.equal(found.statusCode, 200)
    const page = found.json() as { items: EditorProgram[]; total: number }
    t.same(page.items.map((p) => p.id), ['kritzel-lite', 'kritzel-studio', 'kritzel-studio-2'])
    t.equal(page.total, 3)
    const byDeveloper = (await editor.get('/api/operator/programs?q=WERKSTATT&pageSize=1&page=2')).json() as { items: EditorProgram[]; total: number; page: number }
    t.match(byDeveloper, { total: 3, page: 2, items: [{ id: 'kritzel-studio' }] }, 'the publisher of kritzel-lite is the Werkstatt too')
    t.equal(byDeveloper.items.length, 1)
    const all = (await editor.get('/api/operator/programs')).json() as { total: number; pageSize: number }
    t.ok(all.total > 100, 'the seed is there too')
    t.equal(all.pageSize, 50)
  })

  t.test('the public catalogue: the new program in German, in search and the listing, within 2 s', async (t) => {
    await waitUntil(async () => (await bff.inject({ url: '/api/programs?q=kritzel' })).json().total === 3, 2_000)
    const german = await bff.inject({ url: '/api/programs/kritzel-lite', headers: { 'accept-language': 'de' } })
    t.equal(german.statusCode, 200)
    t.match(german.json(), { name: 'Kritzel Lite', summary: NEW_PROGRAM.texts.de!.summary, textLanguage: 'de', price: { amount: 49.5, currency: 'EUR' } })
    const byGermanSummary = (await bff.inject({ url: '/api/programs?q=Pinseln', headers: { 'accept-language': 'de' } })).json() as { items: Array<{ id: string }> }
    t.same(byGermanSummary.items.map((p) => p.id).sort(), ['kritzel-lite', 'kritzel-studio-2'], 'found by its German summary')

    // Its cards and page show a logo: a generated mark, not a broken image (the seed's set does not hold it).
    const logo = await bff.inject({ url: '/logos/kritzel-lite.svg' })
    t.equal(logo.statusCode, 200)
    t.match(logo.headers['content-type'], /^image\/svg\+xml/)
    t.match(logo.body, /<title>Kritzel Lite<\/title>/)
    t.equal(logo.headers['cache-control'], 'public, no-cache', 'checked again each time: its name may change')
    const other = await bff.inject({ url: '/logos/kritzel-studio-2.svg' })
    t.not(other.body, logo.body, 'another program, another mark')
    t.equal((await bff.inject({ url: '/og/programs/kritzel-lite.png' })).statusCode, 200, 'and a link preview card')
    t.equal((await bff.inject({ url: '/logos/no-such-program.svg' })).statusCode, 404)
  })

  t.test('history newest first with who and what changed; revert makes a new revision equal to an old one', async (t) => {
    const history = await editor.get('/api/operator/programs/kritzel-studio/revisions')
    t.equal(history.statusCode, 200)
    const revisions = history.json() as ProgramRevision[]
    t.same(revisions.map((r) => r.revision), [4, 3, 2, 1])
    t.same(revisions.map((r) => r.action), ['update', 'update', 'update', 'create'])
    t.match(revisions[2], { actor: { email: 'ed@example.com' }, changes: { version: { before: '2.1', after: '2.2' }, updated: { before: '2026-11', after: '2026-12-01' } } })
    t.match(revisions[3]!.changes, { name: { before: null, after: 'Kritzel Studio' } })
    t.ok(!Number.isNaN(Date.parse(revisions[0]!.at)))

    const stale = await editor.post('/api/operator/programs/kritzel-studio/revert', { revision: 1, baseRevision: 3 })
    t.equal(stale.statusCode, 409)
    t.match(stale.json(), { code: 'API_REVISION_CONFLICT', currentRevision: 4 })
    const reverted = await editor.post('/api/operator/programs/kritzel-studio/revert', { revision: 1, baseRevision: 4 })
    t.equal(reverted.statusCode, 200, reverted.body)
    t.same(reverted.json(), { revision: 5 })
    const read = (await editor.get('/api/operator/programs/kritzel-studio')).json() as EditorProgram
    t.match(read, { version: '2.1', updated: '2026-11', revision: 5 })
    t.same(Object.keys(read.texts), ['en', 'de'], 'the texts of revision 1 again')
    const latest = ((await editor.get('/api/operator/programs/kritzel-studio/revisions')).json() as ProgramRevision[])[0]!
    t.match(latest, { revision: 5, action: 'revert', changes: { 'texts.de': { before: null, after: NEW_PROGRAM.texts.de } } })
    const missing = await editor.post('/api/operator/programs/kritzel-studio/revert', { revision: 99, baseRevision: 5 })
    t.equal(missing.statusCode, 400)
    t.match(missing.json(), { code: 'API_VALIDATION_FAILED', fields: [{ field: 'revision' }] })
    t.match((await auditEntries(db, 'program:kritzel-studio')).at(-1), { action: 'program.revert', actor_email: 'ed@example.com' })
    t.equal((await editor.get('/api/operator/programs/nope/revisions')).statusCode, 404)
  })
})

t.test('a change is public within 2 s through every cache of the BFF; a retired program leaves the catalogue and stays in libraries, marked (injected clock)', async (t) => {
  let now = Date.now()
  const stack = await buildStack(t, { auth: true, now: () => now })
  const { bff, db } = stack
  const editor = await operatorTab(stack, 'ed@example.com', ['editor'])
  const reader = await signedInTab(stack, 'reader@example.com')
  const anonymous = (url: string, language = 'en') => bff.inject({ url, headers: { 'accept-language': language } })
  // Search finds Krita for "kritzel" by its typo tolerance: whether our program is among the matches is what counts.
  const found = async (q: string) => ((await anonymous(`/api/programs?q=${q}`)).json() as { items: Array<{ id: string }> }).items.some((p) => p.id === 'kritzel-studio')
  const graphicsCount = async () => ((await anonymous('/api/categories')).json() as Array<{ id: string; count: number }>).find((c) => c.id === 'graphics')!.count

  // Every cache filled at the catalogue as the seed has it.
  t.equal(await found('kritzel'), false)
  const blenderBefore = (await anonymous('/api/programs/blender')).json() as { version: string }
  t.match((await anonymous('/programs/blender')).body, blenderBefore.version)
  t.notMatch((await anonymous('/sitemap.xml')).body, '/programs/kritzel-studio')
  const graphics = await graphicsCount()

  const created = await editor.post('/api/operator/programs', NEW_PROGRAM)
  t.equal(created.statusCode, 201)
  t.equal((await editor.send('PATCH', '/api/operator/programs/blender', { baseRevision: 0, version: '99.1' })).statusCode, 200)
  t.equal(await found('kritzel'), false, 'within the second the BFF shares the version, the cached answer')
  now += 1_000
  t.equal(await found('kritzel'), true, 'past it: found')
  t.equal(await found('Pinseln'), false, 'an English visitor does not search the German summary')
  t.same(((await anonymous('/api/programs?q=Pinseln', 'de')).json() as { items: Array<{ id: string }> }).items.map((p) => p.id), ['kritzel-studio'], 'a German one does')
  t.match((await anonymous('/api/programs/kritzel-studio', 'de')).json(), { summary: NEW_PROGRAM.texts.de!.summary, textLanguage: 'de' })
  t.equal(((await anonymous('/api/programs/blender')).json() as { version: string }).version, '99.1')
  t.match((await anonymous('/programs/blender')).body, '99.1', 'the cached page too')
  t.match((await anonymous('/programs/kritzel-studio', 'de')).body, NEW_PROGRAM.texts.de!.summary)
  t.match((await anonymous('/sitemap.xml')).body, '/programs/kritzel-studio', 'and the sitemap')
  t.match((await anonymous('/sitemap.xml')).body, '/developer/kritzel-werkstatt')
  t.equal(await graphicsCount(), graphics + 1)

  t.equal((await reader.post('/api/user/program/kritzel-studio')).statusCode, 200, 'a reader adds it to the library')

  const retired = await editor.delete('/api/operator/programs/kritzel-studio')
  t.equal(retired.statusCode, 200, retired.body)
  t.match(retired.json(), { revision: 2, retired: true, retiredAt: new Date(now).toISOString() })
  t.same((await editor.delete('/api/operator/programs/kritzel-studio')).json(), retired.json(), 'retiring again changes nothing')
  t.equal((await editor.delete('/api/operator/programs/no-such-program')).statusCode, 404)
  now += 1_000
  const gone = await anonymous('/api/programs/kritzel-studio')
  t.equal(gone.statusCode, 410)
  t.equal(gone.json().code, 'API_PROGRAM_RETIRED')
  const page = await anonymous('/programs/kritzel-studio')
  t.equal(page.statusCode, 410, 'its page: the gone page')
  t.match(page.body, 'Program retired')
  t.equal(await found('kritzel'), false, 'out of search')
  t.equal(await graphicsCount(), graphics, 'and the counts')
  t.notMatch((await anonymous('/sitemap.xml')).body, '/programs/kritzel-studio', 'and the sitemap')
  t.equal(((await anonymous('/api/developers/kritzel-werkstatt')).json() as { programCount: number }).programCount, 0, 'its developer page lists it no more')

  const library = (await reader.get('/api/user/programs')).json() as { items: Array<{ id: string; retired?: boolean }> }
  t.match(library.items, [{ id: 'kritzel-studio', retired: true }], 'kept in the library, marked')
  t.equal((await reader.get('/api/user/program-ids')).json().programIds.includes('kritzel-studio'), true)
  const libraryPage = await reader.get('/@/library')
  t.match(libraryPage.body, 'data-testid="card-retired"', 'the library card shows the mark')
  t.match(libraryPage.body, '>Retired<')
  const again = await reader.post('/api/user/program/kritzel-studio')
  t.equal(again.statusCode, 410, 'not added anew')
  t.equal(again.json().code, 'API_PROGRAM_RETIRED')
  t.equal((await reader.delete('/api/user/program/kritzel-studio')).statusCode, 200, 'but may leave the library')

  const listed = (await editor.get('/api/operator/programs?q=kritzel')).json() as { items: EditorProgram[] }
  t.match(listed.items, [{ id: 'kritzel-studio', retired: true, retiredAt: new Date(now - 1_000).toISOString() }], 'editors still see it')
  const history = (await editor.get('/api/operator/programs/kritzel-studio/revisions')).json() as ProgramRevision[]
  t.match(history[0], { revision: 2, action: 'retire', changes: { retired: { before: false, after: true } } })
  const audit = await auditEntries(db, 'program:kritzel-studio')
  t.same(audit.map((e) => e.action), ['program.create', 'program.retire'], 'retiring twice is one entry')
  t.match(audit[1], { before: { retired: false }, after: { retired: true } })
})
