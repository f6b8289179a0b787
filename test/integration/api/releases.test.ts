import t from 'tap'
import type { Release } from '../../../shared/catalogue/living-schemas.ts'
import type { EditorProgram, ProgramRevision } from '../../../shared/catalogue/program-editor.ts'
import { applySeed, readSeed } from '../../../server/api/catalogue/seed.ts'
import { updateProgram } from '../../../server/api/catalogue/program-editor.ts'
import { listReleases } from '../../../server/api/catalogue/release-history.ts'
import { migrateApiSchema } from '../../../server/api/schema.ts'
import { buildStack, openTestDatabase, operatorTab, signedInTab, waitUntil } from '../../helpers.ts'

// Releases and external ids: a program's release history (GET /api/programs/{id}/releases,
// public, cached like the catalogue), an editor's release (POST /api/operator/programs/{id}/releases:
// a revision, an audit entry, the program's version and "updated", the watchers' event), the ids a
// program has in other catalogues (written like any field, one program per id), and the events a
// change of price, licence type or version records. Everything through the BFF, as the console
// and the pages call it.

const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/**
 * A change is public within 2 s: the BFF's catalogue version is read at most once a
 * second. Asked every 100 ms, not on every turn of the event loop, which the BFF's rate limit
 * would refuse long before.
 */
const untilPublic = (check: () => Promise<boolean>): Promise<void> => waitUntil(check, 3_000, { every: 100 })

type Db = { query: <T>(text: string, params?: unknown[]) => Promise<{ rows: T[] }> }

const events = async (db: Db, programId: string) =>
  (await db.query<{ type: string; data: Record<string, unknown> }>('SELECT type, data FROM api.catalogue_events WHERE program_id = $1 ORDER BY id', [programId])).rows

t.test('releases and external ids', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const { bff, db } = stack
  const editor = await operatorTab(stack, 'ed@example.com', ['editor'])
  const admin = await operatorTab(stack, 'ada@example.com', ['admin'])
  const support = await operatorTab(stack, 'sue@example.com', ['support'])
  const plain = await signedInTab(stack, 'pat@example.com')
  const today = day(0)
  const yesterday = day(-1)

  await t.test('the seed: every program starts with the release it shows, and the external ids of the ones that have them', async (t) => {
    const answer = await bff.inject({ url: '/api/programs/blender/releases' })
    t.equal(answer.statusCode, 200, answer.body)
    t.same(answer.json(), { items: [{ version: '4.4', date: '2025-03-18', source: 'editor' }] })
    const year = (await bff.inject({ url: '/api/programs/wings-3d/releases' })).json() as { items: Release[] }
    t.equal(year.items.length, 1)
    const wings = (await bff.inject({ url: '/api/programs/wings-3d' })).json() as { version: string; updated: string }
    t.same(year.items[0], { version: wings.version, date: wings.updated, source: 'editor' }, 'the release says as much of its date as the program does')
    const blender = (await bff.inject({ url: '/api/programs/blender' })).json() as { externalIds: unknown }
    t.same(blender.externalIds, { flathub: 'org.blender.Blender', winget: 'BlenderFoundation.Blender', homebrew: 'blender' }, 'the public answer carries them')
    const maya = (await bff.inject({ url: '/api/programs/autodesk-maya' })).json() as { externalIds: unknown }
    t.same(maya.externalIds, {}, 'none known: an empty object')
  })

  await t.test('the history is public and cached like the catalogue; an unknown program 404, a retired one 410 like its page', async (t) => {
    const answer = await bff.inject({ url: '/api/programs/gimp/releases' })
    t.equal(answer.statusCode, 200)
    t.match(answer.headers['cache-control'], /public/)
    t.ok(answer.headers.etag, 'an ETag to revalidate by')
    const again = await bff.inject({ url: '/api/programs/gimp/releases', headers: { 'if-none-match': String(answer.headers.etag) } })
    t.equal(again.statusCode, 304, 'revalidated by its ETag')
    const unknown = await bff.inject({ url: '/api/programs/no-such-program/releases' })
    t.equal(unknown.statusCode, 404)
    t.equal(unknown.json().code, 'API_CATALOGUE_NOT_FOUND')
    const retire = await editor.send('DELETE', '/api/operator/programs/meshlab')
    t.equal(retire.statusCode, 200)
    await untilPublic(async () => (await bff.inject({ url: '/api/programs/meshlab/releases' })).statusCode === 410)
    t.equal((await bff.inject({ url: '/api/programs/meshlab/releases' })).json().code, 'API_PROGRAM_RETIRED')
  })

  await t.test('adding a release is refused to support, a plain user and a signed-out caller; nothing is written', async (t) => {
    const body = { version: '9.9', date: today }
    for (const [who, tab] of [
      ['support', support],
      ['a plain user', plain],
    ] as const) {
      const answer = await tab.post('/api/operator/programs/blender/releases', body)
      t.equal(answer.statusCode, 403, who)
      t.equal(answer.json().code, 'BFF_PERMISSION_DENIED', who)
    }
    const anonymous = await bff.inject({ method: 'POST', url: '/api/operator/programs/blender/releases', payload: body, headers: { rid: 'anti-csrf' } })
    t.equal(anonymous.statusCode, 401, 'signed out')
    const forged = await bff.inject({ method: 'POST', url: '/api/operator/programs/blender/releases', payload: body, headers: { rid: 'anti-csrf', authorization: 'Bearer not.a.token' } })
    t.equal(forged.statusCode, 401, 'a forged token')
    const direct = await fetch(`${stack.apiUrl}/api/operator/programs/blender/releases`, {
      method: 'POST',
      headers: { authorization: `Bearer ${support.jar.get('sAccessToken')}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    t.equal(direct.status, 403, "support's token straight to the API")
    t.same((await db.query('SELECT version FROM api.program_releases WHERE program_id = $1', ['blender'])).rows, [{ version: '4.4' }], 'nothing was recorded')
  })

  await t.test("an editor's release: 201 with the revision; the newest is the program's version and \"updated\"; audited; the watchers' event", async (t) => {
    const answer = await editor.post('/api/operator/programs/blender/releases', { version: ' 4.5 ', date: yesterday, notesUrl: 'https://www.blender.org/download/releases/4-5/' })
    t.equal(answer.statusCode, 201, answer.body)
    t.same(answer.json(), { revision: 1, current: true })
    // Public within 2 s: the BFF's shared cache is keyed by the catalogue version.
    await untilPublic(async () => (await bff.inject({ url: '/api/programs/blender/releases' })).json().items.length === 2)
    const history = await bff.inject({ url: '/api/programs/blender/releases' })
    t.same(history.json(), {
      items: [
        { version: '4.5', date: yesterday, notesUrl: 'https://www.blender.org/download/releases/4-5/', source: 'editor' },
        { version: '4.4', date: '2025-03-18', source: 'editor' },
      ],
    })
    const program = (await bff.inject({ url: '/api/programs/blender' })).json() as { version: string; updated: string; updatedPrecision: string }
    t.match(program, { version: '4.5', updated: yesterday, updatedPrecision: 'day' }, 'the public program follows')
    const revisions = (await editor.get('/api/operator/programs/blender/revisions')).json() as ProgramRevision[]
    t.match(revisions[0], { revision: 1, action: 'release', actor: { email: 'ed@example.com' }, changes: { version: { before: '4.4', after: '4.5' }, releases: { before: null, after: { version: '4.5' } } } })
    const audit = (await db.query<{ action: string; request_id: string }>("SELECT action, request_id FROM api.audit_log WHERE target = 'program:blender'")).rows
    t.same(audit, [{ action: 'program.release', request_id: answer.headers['x-request-id'] }])
    t.match(await events(db, 'blender'), [{ type: 'release', data: { version: '4.5', date: yesterday, source: 'editor', programName: 'Blender' } }])
  })

  await t.test('an admin may too; an older release fills the history without changing the version, and tells no watcher', async (t) => {
    const answer = await admin.post('/api/operator/programs/blender/releases', { version: '4.3', date: '2024-11-19' })
    t.equal(answer.statusCode, 201, answer.body)
    t.same(answer.json(), { revision: 2, current: false })
    await untilPublic(async () => (await bff.inject({ url: '/api/programs/blender/releases' })).json().items.length === 3)
    const history = (await bff.inject({ url: '/api/programs/blender/releases' })).json() as { items: Release[] }
    t.same(history.items.map((r) => r.version), ['4.5', '4.4', '4.3'], 'newest first, by date')
    t.equal(((await editor.get('/api/operator/programs/blender')).json() as EditorProgram).version, '4.5')
    t.equal((await events(db, 'blender')).length, 1, 'no second event')
  })

  await t.test('a version the history has is 409 API_RELEASE_EXISTS; an unknown program 404; a retired one takes it like any change', async (t) => {
    const known = await editor.post('/api/operator/programs/blender/releases', { version: '4.4', date: today })
    t.equal(known.statusCode, 409)
    t.equal(known.json().code, 'API_RELEASE_EXISTS')
    t.match(known.json().message, /4\.4/)
    const unknown = await editor.post('/api/operator/programs/no-such-program/releases', { version: '1.0', date: today })
    t.equal(unknown.statusCode, 404)
    t.equal(unknown.json().code, 'API_CATALOGUE_NOT_FOUND')
    const retired = await editor.post('/api/operator/programs/meshlab/releases', { version: '2099.1', date: today })
    t.equal(retired.statusCode, 201, 'as a PATCH of a retired program is')
    t.equal((await bff.inject({ url: '/api/programs/meshlab/releases' })).statusCode, 410, 'and it stays out of the public catalogue')
  })

  await t.test('a release that is not one: 400 API_VALIDATION_FAILED naming the field', async (t) => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['no version', { date: today }, 'version'],
      ['an empty version', { version: '  ', date: today }, 'version'],
      ['a version too long', { version: 'x'.repeat(51), date: today }, 'version'],
      ['no date', { version: '5.0' }, 'date'],
      ['a month only', { version: '5.0', date: today.slice(0, 7) }, 'date'],
      ['not a day', { version: '5.0', date: '2025-02-30' }, 'date'],
      ['written otherwise', { version: '5.0', date: '18.03.2025' }, 'date'],
      ['tomorrow', { version: '5.0', date: day(2) }, 'date'],
      ['notes on ftp', { version: '5.0', date: today, notesUrl: 'ftp://blender.org/notes' }, 'notesUrl'],
      ['notes in script', { version: '5.0', date: today, notesUrl: 'javascript:alert(1)' }, 'notesUrl'],
      ['notes not an address', { version: '5.0', date: today, notesUrl: 'see the website' }, 'notesUrl'],
      ['a field spelt wrong', { version: '5.0', date: today, notes: 'https://x.example/' }, 'notes'],
    ]
    for (const [what, body, field] of cases) {
      const answer = await editor.post('/api/operator/programs/blender/releases', body)
      t.equal(answer.statusCode, 400, what)
      t.match(answer.json(), { code: 'API_VALIDATION_FAILED', fields: [{ field }] }, what)
      t.match(answer.json().message, new RegExp(field), `${what}: the message names ${field}`)
    }
    const plainHttp = await editor.post('/api/operator/programs/blender/releases', { version: '4.2', date: '2024-07-16', notesUrl: 'http://notes.example/4.2' })
    t.equal(plainHttp.statusCode, 201, 'http:// notes are fine')
    t.equal((await db.query('SELECT 1 FROM api.program_releases WHERE program_id = $1', ['blender'])).rows.length, 4, 'none of the refused was recorded')
  })

  await t.test('"Recently updated" and sort=updated follow the newest release', async (t) => {
    const before = (await bff.inject({ url: '/api/programs?sort=updated&pageSize=12' })).json() as { items: Array<{ id: string }> }
    t.not(before.items[0]!.id, 'wings-3d')
    t.notOk(before.items.some((p) => p.id === 'wings-3d'), 'Wings 3D is not among the recently updated')
    const answer = await editor.post('/api/operator/programs/wings-3d/releases', { version: '2.4.2', date: today })
    t.equal(answer.statusCode, 201, answer.body)
    await untilPublic(async () => ((await bff.inject({ url: '/api/programs?sort=updated&pageSize=12' })).json() as { items: Array<{ id: string }> }).items[0]?.id === 'wings-3d')
    t.pass('first in sort=updated within 2 s')
    const home = await bff.inject({ url: '/', headers: { accept: 'text/html' } })
    t.equal(home.statusCode, 200)
    const recent = home.body.slice(home.body.indexOf('id="recent-title"'), home.body.indexOf('id="free-title"'))
    t.ok(recent.length > 0, 'the home page has its "Recently updated" row')
    t.match(recent, /Wings 3D/, 'Wings 3D is in it')
  })

  await t.test('external ids are written like any field: read back, public, one program per id, checked per catalogue', async (t) => {
    const read = (await editor.get('/api/operator/programs/krita')).json() as EditorProgram
    t.same(read.externalIds, { flathub: 'org.kde.krita', winget: 'KDE.Krita', homebrew: 'krita' })
    const changed = await editor.send('PATCH', '/api/operator/programs/krita', { baseRevision: read.revision, externalIds: { flathub: 'org.kde.krita', homebrew: 'krita' } })
    t.equal(changed.statusCode, 200, changed.body)
    const after = (await editor.get('/api/operator/programs/krita')).json() as EditorProgram
    t.same(after.externalIds, { flathub: 'org.kde.krita', homebrew: 'krita' }, 'the whole set replaced: winget removed')
    const revisions = (await editor.get('/api/operator/programs/krita/revisions')).json() as ProgramRevision[]
    t.same(revisions[0]!.changes, { externalIds: { before: read.externalIds, after: after.externalIds } }, 'the history names the change')
    await untilPublic(async () => Object.keys((await bff.inject({ url: '/api/programs/krita' })).json().externalIds).length === 2)

    const paint = (await editor.get('/api/operator/programs/paint-net')).json() as EditorProgram
    const cases: Array<[string, Record<string, unknown>, string, number]> = [
      ["another program's Flathub id", { flathub: 'org.blender.Blender' }, 'externalIds.flathub', 400],
      ["another program's Homebrew name", { homebrew: 'gimp' }, 'externalIds.homebrew', 400],
      ['a Flathub id that is not reverse-DNS', { flathub: 'paintnet' }, 'externalIds.flathub', 400],
      ['a winget id without a publisher', { winget: 'PaintDotNet' }, 'externalIds.winget', 400],
      ['a Homebrew name in capitals', { homebrew: 'Paint.NET' }, 'externalIds.homebrew', 400],
      ['a catalogue we do not know', { snap: 'paintnet' }, 'externalIds.snap', 400],
      ['an empty id', { winget: '' }, 'externalIds.winget', 400],
    ]
    for (const [what, externalIds, field, status] of cases) {
      const answer = await editor.send('PATCH', '/api/operator/programs/paint-net', { baseRevision: paint.revision, externalIds })
      t.equal(answer.statusCode, status, `${what}: ${answer.body}`)
      t.match(answer.json(), { code: 'API_VALIDATION_FAILED', fields: [{ field }] }, what)
    }
    const taken = await editor.send('PATCH', '/api/operator/programs/paint-net', { baseRevision: paint.revision, externalIds: { flathub: 'org.blender.Blender' } })
    t.match(taken.json().message, /blender/, 'the message names the program that has it')
    const ok = await editor.send('PATCH', '/api/operator/programs/paint-net', { baseRevision: paint.revision, externalIds: { winget: 'dotPDN.PaintDotNet' } })
    t.equal(ok.statusCode, 200, ok.body)
    const created = await editor.post('/api/operator/programs', {
      name: 'Kritzel',
      developer: { name: 'Kritzel Werkstatt' },
      publisher: { name: 'Kritzel Werkstatt' },
      licenseType: 'freeware',
      price: null,
      categories: ['graphics'],
      platforms: ['linux'],
      languages: ['de'],
      version: '1.0',
      updated: '2026-11',
      released: '2026',
      homepage: 'https://kritzel.example/',
      texts: { en: { summary: 'Sketching.', description: 'Kritzel sketches.' } },
      externalIds: { flathub: 'org.kde.krita' },
    })
    t.equal(created.statusCode, 400, 'a create with a taken id too')
    t.match(created.json(), { code: 'API_VALIDATION_FAILED', fields: [{ field: 'externalIds.flathub' }] })
  })

  await t.test('a change of price or licence type records its event; a new version is a release of the history, not a second revision', async (t) => {
    const sketch = (await editor.get('/api/operator/programs/sketch')).json() as EditorProgram
    t.equal(sketch.licenseType, 'subscription')
    const price = { amount: 12.99, currency: 'USD', period: 'month' }
    const priced = await editor.send('PATCH', '/api/operator/programs/sketch', { baseRevision: sketch.revision, price })
    t.equal(priced.statusCode, 200, priced.body)
    t.same(await events(db, 'sketch'), [{ type: 'price', data: { before: sketch.price, after: price, programName: 'Sketch' } }])

    const licensed = await editor.send('PATCH', '/api/operator/programs/sketch', { baseRevision: priced.json().revision, licenseType: 'commercial', price: { ...price, period: 'one-time' } })
    t.equal(licensed.statusCode, 200, licensed.body)
    t.match((await events(db, 'sketch')).slice(1), [
      { type: 'price', data: { before: price, after: { ...price, period: 'one-time' }, programName: 'Sketch' } },
      { type: 'licence', data: { before: 'subscription', after: 'commercial', programName: 'Sketch' } },
    ])

    const renamed = await editor.send('PATCH', '/api/operator/programs/sketch', { baseRevision: licensed.json().revision, name: 'Sketch App' })
    t.equal((await events(db, 'sketch')).length, 3, 'a change of anything else tells no watcher')

    const versioned = await editor.send('PATCH', '/api/operator/programs/sketch', { baseRevision: renamed.json().revision, version: '2026.1', updated: today })
    t.equal(versioned.statusCode, 200, versioned.body)
    await untilPublic(async () => (await bff.inject({ url: '/api/programs/sketch/releases' })).json().items.length === 2)
    const history = (await bff.inject({ url: '/api/programs/sketch/releases' })).json() as { items: Release[] }
    t.same(history.items[0], { version: '2026.1', date: today, source: 'editor' }, 'the new version heads the history')
    t.match((await events(db, 'sketch'))[3], { type: 'release', data: { version: '2026.1', date: today, source: 'editor', programName: 'Sketch App' } })
    const revisions = (await editor.get('/api/operator/programs/sketch/revisions')).json() as ProgramRevision[]
    t.same(revisions.map((r) => r.action), ['update', 'update', 'update', 'update'], 'one revision a change, none for the release')

    const reverted = await editor.post('/api/operator/programs/sketch/revert', { revision: 1, baseRevision: versioned.json().revision })
    t.equal(reverted.statusCode, 200, reverted.body)
    const back = (await events(db, 'sketch')).slice(4)
    t.match(back, [{ type: 'price', data: { before: { ...price, period: 'one-time' }, after: price } }, { type: 'licence', data: { before: 'commercial', after: 'subscription' } }], 'a revert records them too')
    t.equal(back.length, 2, 'a version the history has already is no new release')
  })

  await t.test("a program added in the console starts its history with its version; the console's list; no one is told of it", async (t) => {
    const created = await editor.post('/api/operator/programs', {
      name: 'Notenblatt',
      developer: { name: 'Notenwerk' },
      publisher: { name: 'Notenwerk' },
      licenseType: 'freeware',
      price: null,
      categories: ['audio-music'],
      platforms: ['linux'],
      languages: ['en'],
      version: '1.0',
      updated: '2026-01',
      released: '2025',
      homepage: 'https://notenblatt.example/',
      texts: { en: { summary: 'Sheet music.', description: 'Notenblatt shows sheet music.' } },
    })
    t.equal(created.statusCode, 201, created.body)
    const listed = await editor.get('/api/operator/programs/notenblatt/releases')
    t.equal(listed.statusCode, 200)
    t.match(listed.headers['cache-control'], /no-store/)
    t.same(listed.json(), { items: [{ version: '1.0', date: '2026-01', source: 'editor' }] })
    t.same(await events(db, 'notenblatt'), [])
    const retired = await editor.get('/api/operator/programs/meshlab/releases')
    t.equal(retired.statusCode, 200, "a retired program's list, for the console")
    t.equal(retired.json().items[0].version, '2099.1')
    t.equal((await editor.get('/api/operator/programs/no-such-program/releases')).statusCode, 404)
  })
})

t.test("the seed: a new version of a program no editor wrote is a release of its history; its external ids give way to an editor's", async (t) => {
  const db = await openTestDatabase(t)
  await migrateApiSchema(db)
  const seed = readSeed()
  await applySeed(db, seed)
  t.same(await listReleases(db, 'inkscape'), [{ version: seed.programs.find((p) => p.id === 'inkscape')!.version, date: seed.programs.find((p) => p.id === 'inkscape')!.updated, source: 'editor' }])
  // An editor gives GIMP's Homebrew name to Krita (say, by mistake): a new seed must not fail on it.
  const context = { actor: { id: 'u-ed', email: 'ed@example.com' }, requestId: 'req-test' }
  await updateProgram(db, 'gimp', 0, { externalIds: { flathub: 'org.gimp.GIMP' } }, context)
  await updateProgram(db, 'krita', 0, { externalIds: { homebrew: 'gimp' } }, context)
  const next = seed.programs.map((p) => (p.id === 'inkscape' ? { ...p, version: '1.5', updated: '2026-11-02' } : p))
  t.equal(await applySeed(db, { ...seed, programs: next, checksum: 'next' }), true)
  t.same((await listReleases(db, 'inkscape')).map((r) => [r.version, r.date]), [['1.5', '2026-11-02'], [seed.programs.find((p) => p.id === 'inkscape')!.version, seed.programs.find((p) => p.id === 'inkscape')!.updated]], 'history and version agree')
  const ids = async (id: string) => (await db.query<{ external_ids: unknown }>('SELECT external_ids FROM api.programs WHERE id = $1', [id])).rows[0]!.external_ids
  t.same(await ids('krita'), { homebrew: 'gimp' }, "the editor's program keeps what the editor wrote")
  t.same(await ids('gimp'), { flathub: 'org.gimp.GIMP' }, "an edited program is the editor's")
  t.same(await ids('inkscape'), { flathub: 'org.inkscape.Inkscape', winget: 'Inkscape.Inkscape', homebrew: 'inkscape' }, "the seed's own program has the seed's")
  t.equal(await applySeed(db, { ...seed, programs: next, checksum: 'next-again' }), true, 'applied again: nothing twice')
  t.equal((await listReleases(db, 'inkscape')).length, 2)
})
