import { execFile } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { describeSync } from '../../../server/api/catalogue/feeds/summary.ts'
import { buildStack, operatorTab, signedInTab, tempDir, waitUntil } from '../../helpers.ts'

// The feeds through the console's API (via the BFF, with the session and the
// anti-forgery header) and through `npm run catalogue -- sync`: a feed served on loopback bumps
// Blender's version; the feeds' state and reports; the proposed changes, accepted (the editor's
// change of the program, audited) or rejected, once; every other role refused.

const FIXTURES = path.join(import.meta.dirname, '../../fixtures/feeds')
const root = path.join(import.meta.dirname, '../../..')

t.test('the feeds and proposed changes API', async (t) => {
  let catalog = 'appstream.xml'
  const server = http.createServer((req, res) => {
    if (req.url !== '/flathub.xml') return void res.writeHead(404).end()
    const etag = `"${catalog}"`
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end()
    res.writeHead(200, { etag }).end(fs.readFileSync(path.join(FIXTURES, catalog)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const feedName = `appstream:http://127.0.0.1:${(server.address() as AddressInfo).port}/flathub.xml`
  const stack = await buildStack(t, { auth: true, env: { CATALOGUE_FEEDS: feedName } })
  const { bff, db } = stack
  await db.query(`UPDATE api.programs SET external_ids = '{"flathub":"org.blender.Blender","homebrew":"blender"}'::jsonb WHERE id = 'blender'`)
  await db.query(`UPDATE api.programs SET external_ids = '{"flathub":"org.gimp.GIMP"}'::jsonb WHERE id = 'gimp'`)
  const editor = await operatorTab(stack, 'ed@example.com', ['editor'])

  await t.test('refused without the permission: signed out 401, support and a plain account 403', async (t) => {
    const support = await operatorTab(stack, 'sue@example.com', ['support'])
    const plain = await signedInTab(stack, 'pat@example.com')
    for (const [method, url] of [
      ['GET', '/api/operator/feeds'],
      ['POST', '/api/operator/feeds/sync'],
      ['GET', '/api/operator/proposed-changes'],
      ['POST', '/api/operator/proposed-changes/1/accept'],
      ['POST', '/api/operator/proposed-changes/1/reject'],
      ['GET', '/api/operator/feeds?x=1'],
    ] as const) {
      for (const tab of [support, plain]) {
        const answer = method === 'GET' ? await tab.get(url) : await tab.post(url)
        t.equal(answer.statusCode, 403, `${method} ${url}`)
        t.equal(answer.json().code, 'BFF_PERMISSION_DENIED')
      }
      const anonymous = await bff.inject({ method, url, headers: { rid: 'anti-csrf' } })
      t.equal(anonymous.statusCode, 401, `${method} ${url} signed out`)
    }
    // Other spellings are not proxied at all: refused by the BFF whoever asks.
    for (const url of ['/api/operator/proposed-changes/1/accept/', '/api/operator/FEEDS/sync', '/api/operator/feeds/sync/', '/api/operator//feeds/sync']) {
      for (const tab of [support, plain, editor]) {
        const answer = await tab.post(url)
        t.ok([403, 404].includes(answer.statusCode), `${url}: ${answer.statusCode}`)
        t.match(answer.json().code, /^BFF_(PERMISSION_DENIED|NOT_FOUND)$/)
      }
    }
    t.equal((await db.query('SELECT 1 FROM api.catalogue_feeds')).rows.length, 0, 'no feed was read')
  })

  await t.test('the feeds before any read; a pass now; the public catalogue shows the new version', async (t) => {
    const before = await editor.get('/api/operator/feeds')
    t.equal(before.statusCode, 200, before.body)
    t.same(before.json(), {
      feeds: [{ name: feedName, format: 'appstream', source: 'appstream:127.0.0.1', checkedAt: null, succeededAt: null, problem: null, problemAt: null, reports: [] }],
      intervalSeconds: 21_600,
    })
    const sync = await editor.post('/api/operator/feeds/sync')
    t.equal(sync.statusCode, 200, sync.body)
    t.match(sync.json(), { feeds: [{ feed: feedName, status: 'updated', releases: [{ programId: 'blender', version: '4.5' }], ignored: [{ programId: 'gimp', reason: 'version-backwards' }], problem: null }] })
    const after = (await editor.get('/api/operator/feeds')).json()
    t.match(after.feeds[0], { checkedAt: /^\d{4}-/, succeededAt: /^\d{4}-/, problem: null })
    // Newest first. Inkscape is mapped by the seed's own ids (org.inkscape.Inkscape): its release dated 2099 is ignored too.
    t.match(after.feeds[0].reports, [
      { kind: 'future-date', programId: 'inkscape', detail: /Inkscape 1\.5 is dated 2099-01-01/ },
      { kind: 'version-backwards', programId: 'gimp', detail: /2\.10\.38 is older than the catalogue's 3\.0/ },
    ])
    await waitUntil(async () => (await bff.inject({ method: 'GET', url: '/api/programs/blender' })).json<{ version: string }>().version === '4.5')
    const releases = await bff.inject({ method: 'GET', url: '/api/programs/blender' })
    t.equal(releases.json().version, '4.5', 'Blender shows 4.5 to everyone')
  })

  let proposals: Array<{ id: string; programId: string; field: string; current: string; proposed: string; programName: string; source: string }>
  await t.test('the pending proposals, with the program and its value now', async (t) => {
    const answer = await editor.get('/api/operator/proposed-changes')
    t.equal(answer.statusCode, 200)
    t.match(answer.headers['cache-control'], /no-store/)
    const body = answer.json()
    proposals = body.items
    t.equal(body.total, 3)
    const blenderSummary = proposals.find((p) => p.programId === 'blender' && p.field === 'summary')!
    t.match(blenderSummary, { programName: 'Blender', current: /^Free, open-source 3D suite/, proposed: 'Free and open source 3D creation suite', source: 'appstream:127.0.0.1' })
    t.same(proposals.map((p) => `${p.programId}.${p.field}`).sort(), ['blender.summary', 'gimp.name', 'gimp.summary'])
  })

  await t.test('accept: applied as the editor\'s change on the current revision, audited; a second decision is 409', async (t) => {
    const blenderSummary = proposals.find((p) => p.programId === 'blender' && p.field === 'summary')!
    const revisionBefore = (await editor.get('/api/operator/programs/blender')).json().revision
    const accepted = await editor.post(`/api/operator/proposed-changes/${blenderSummary.id}/accept`)
    t.equal(accepted.statusCode, 200, accepted.body)
    t.same(accepted.json(), { revision: revisionBefore + 1 })
    const program = (await editor.get('/api/operator/programs/blender')).json()
    t.equal(program.texts.en.summary, 'Free and open source 3D creation suite')
    t.match(program.texts.en.description, /\w/, 'the description stays')
    const audit = await db.query<{ action: string; actor_email: string; after: unknown }>("SELECT action, actor_email, after FROM api.audit_log WHERE target = 'program:blender' ORDER BY id DESC LIMIT 1")
    t.match(audit.rows[0], { action: 'program.update', actor_email: 'ed@example.com', after: { 'texts.en': { summary: 'Free and open source 3D creation suite' } } })
    for (const decision of ['accept', 'reject']) {
      const again = await editor.post(`/api/operator/proposed-changes/${blenderSummary.id}/${decision}`)
      t.equal(again.statusCode, 409, decision)
      t.match(again.json(), { code: 'API_PROPOSAL_DECIDED', message: 'This proposed change was already accepted: there is nothing left to decide.' })
    }
    t.notOk((await editor.get('/api/operator/proposed-changes')).json().items.some((p: { id: string }) => p.id === blenderSummary.id), 'no longer pending')
  })

  await t.test('reject: nothing changes, audited; again 409; unknown 404; a malformed id 400', async (t) => {
    const gimpName = proposals.find((p) => p.programId === 'gimp' && p.field === 'name')!
    const revisionBefore = (await editor.get('/api/operator/programs/gimp')).json().revision
    const rejected = await editor.post(`/api/operator/proposed-changes/${gimpName.id}/reject`)
    t.equal(rejected.statusCode, 200, rejected.body)
    t.same(rejected.json(), { decision: 'rejected' })
    const gimp = (await editor.get('/api/operator/programs/gimp')).json()
    t.match(gimp, { name: 'GIMP', revision: revisionBefore })
    const audit = await db.query<{ action: string; actor_email: string; after: unknown }>("SELECT action, actor_email, after FROM api.audit_log WHERE target = 'program:gimp' ORDER BY id DESC LIMIT 1")
    t.match(audit.rows[0], { action: 'proposal.reject', actor_email: 'ed@example.com', after: { field: 'name', proposed: 'GNU Image Manipulation Program' } })
    const again = await editor.post(`/api/operator/proposed-changes/${gimpName.id}/reject`)
    t.match(again.json(), { statusCode: 409, code: 'API_PROPOSAL_DECIDED', message: /already rejected/ })
    const unknown = await editor.post('/api/operator/proposed-changes/999999/accept')
    t.match(unknown.json(), { statusCode: 404, code: 'API_PROPOSAL_NOT_FOUND' })
    const malformed = await editor.post('/api/operator/proposed-changes/abc/reject')
    t.equal(malformed.statusCode, 400)
    // The feed read again: the rejected name is not proposed again.
    await db.query('UPDATE api.catalogue_feeds SET etag = NULL')
    const sync = (await editor.post('/api/operator/feeds/sync')).json()
    t.same(sync.feeds[0].proposals, [])
  })

  await t.test('the console page: the feed, its reports, the pending proposals with Accept / Reject; in German; not for support', async (t) => {
    const html = await editor.get('/@/operator/feeds', { accept: 'text/html' })
    t.equal(html.statusCode, 200)
    t.match(html.body, /<h1[^>]*>Feeds<\/h1>/)
    t.ok(html.body.includes(feedName), 'the feed by its name')
    t.match(html.body, /Working/)
    t.match(html.body, /Older version ignored/)
    t.match(html.body, /Create images and edit photographs/, "GIMP's pending summary")
    t.notMatch(html.body, /GNU Image Manipulation Program<\/ins>/, 'not the rejected name')
    t.match(html.body, />Accept<\/button>/)
    t.match(html.body, />Read the feeds now<\/button>/)
    const overview = await editor.get('/@/operator', { accept: 'text/html' })
    t.match(overview.body, /href="\/@\/operator\/feeds"[^>]*>Feeds</, 'a section of the console for an editor')
    const german = await editor.get('/@/operator/feeds', { accept: 'text/html', cookie: `${editor.jar.header('/')}; lang=de` })
    t.match(german.body, /<h1[^>]*>Quellen<\/h1>/)
    t.match(german.body, />Annehmen<\/button>/)
    const support = await operatorTab(stack, 'sam@example.com', ['support'])
    t.notMatch((await support.get('/@/operator', { accept: 'text/html' })).body, /href="\/@\/operator\/feeds"/, 'no Feeds section for support')
    const refused = await support.get('/@/operator/feeds', { accept: 'text/html' })
    t.equal(refused.statusCode, 403)
    t.notOk(refused.body.includes(feedName), 'nothing of the feeds shown')
  })

  await t.test('npm run catalogue -- sync: through the running API, printing what it did', async (t) => {
    const port = new URL(stack.apiUrl).port
    const env = { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: tempDir(t), API_HOST: '127.0.0.1', API_PORT: port, OPERATOR_TOKEN: stack.operatorToken }
    const run = promisify(execFile)
    const unchanged = await run(process.execPath, ['--import', 'tsx', 'scripts/catalogue.ts', 'sync'], { cwd: root, env })
    t.equal(unchanged.stdout, `${feedName}: not changed since the last read\n`, 'its ETag: nothing to do')
    catalog = 'appstream.xml.gz'
    const changed = await run(process.execPath, ['--import', 'tsx', 'scripts/catalogue.ts', 'sync'], { cwd: root, env })
    t.equal(
      changed.stdout,
      [
        `${feedName}: read`,
        '\treleases recorded: 1 (blender 4.5.2)',
        '\tignored: 2 (gimp 2.10.38: version-backwards, inkscape 1.5: future-date)',
        '\tproposed changes: 0',
        '',
      ].join('\n'),
    )
    const refused = await run(process.execPath, ['--import', 'tsx', 'scripts/catalogue.ts', 'sync'], { cwd: root, env: { ...env, OPERATOR_TOKEN: 'not-the-token' } }).catch((error: { code: number; stderr: string }) => error)
    t.match(refused, { code: 1, stderr: /The API refused: A valid operator token is required/ })
    const usage = await run(process.execPath, ['--import', 'tsx', 'scripts/catalogue.ts'], { cwd: root, env }).catch((error: { code: number; stderr: string }) => error)
    t.match(usage, { code: 2, stderr: /Usage: npm run catalogue -- sync/ })
    t.same(describeSync({ feeds: [] }), ['No catalogue feeds are configured (CATALOGUE_FEEDS).'])
    t.same(describeSync({ feeds: [{ feed: 'homebrew:https://formulae.brew.sh/api/cask.json', status: 'failed', releases: [], ignored: [], proposals: [], problem: 'the feed answered HTTP 500' }] }), [
      'homebrew:https://formulae.brew.sh/api/cask.json: FAILED, nothing changed',
      '\tproblem: the feed answered HTTP 500',
    ])
  })
})
