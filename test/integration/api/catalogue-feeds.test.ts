import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { applySeed } from '../../../server/api/catalogue/seed.ts'
import { FeedSchedule, FeedSync, type FeedSyncOptions } from '../../../server/api/catalogue/feeds/sync.ts'
import { readProgram } from '../../../server/api/catalogue/program-editor.ts'
import { migrateApiSchema } from '../../../server/api/schema.ts'
import { parseCatalogueFeed, type CatalogueFeed } from '../../../server/config.ts'
import type { Database } from '../../../server/db/database.ts'
import { openTestDatabase, secondConnection, waitUntil } from '../../helpers.ts'

// The catalogue keeps itself current: the sync against feeds served on loopback by a
// tiny HTTP server (the fixtures in test/fixtures/feeds, made for these tests, in both formats and
// broken ways). A feed bumps Blender's version; a version that goes backwards and a date in the
// future are ignored and reported once; a difference becomes a proposed change; a broken feed
// changes nothing and is reported once; the timer reads each feed once per interval.

const FIXTURES = path.join(import.meta.dirname, '../../fixtures/feeds')
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name))
const NOW = Date.parse('2026-12-06T12:00:00Z')

interface Served {
  base: string
  /** The requests the server answered, with their conditional headers. */
  requests: Array<{ url: string; ifNoneMatch?: string; ifModifiedSince?: string }>
  /** Replaces what a path serves. */
  routes: Map<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>
}

function file(name: string, headers: Record<string, string> = {}) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (headers.etag && req.headers['if-none-match'] === headers.etag) {
      res.writeHead(304, { etag: headers.etag }).end()
      return
    }
    res.writeHead(200, headers).end(fixture(name))
  }
}

async function feedServer(t: Test): Promise<Served> {
  const requests: Served['requests'] = []
  const routes: Served['routes'] = new Map([
    ['/appstream.xml', file('appstream.xml', { etag: '"catalog-1"', 'last-modified': 'Sat, 05 Dec 2026 10:00:00 GMT', 'content-type': 'application/xml' })],
    ['/appstream.xml.gz', file('appstream.xml.gz', { 'content-type': 'application/gzip' })],
    ['/homebrew.json', file('homebrew.json', { 'content-type': 'application/json' })],
    ['/malformed.xml', file('malformed.xml')],
    ['/truncated.xml.gz', file('truncated.xml.gz')],
    ['/invalid.json', file('invalid.json')],
    ['/not-a-list.json', file('not-a-list.json')],
    ['/fails', (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error')],
    ['/moved', (_req, res) => res.writeHead(301, { location: 'https://example.com/' }).end()],
    // Begins the body, then never finishes it.
    ['/slow', (_req, res) => res.writeHead(200, { 'content-type': 'application/xml' }).write('<components><component><id>org.blender.Blender</id>')],
    // Chunked, no length announced: the limit is counted as the bytes come.
    [
      '/big',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' })
        res.write('<components>')
        for (let i = 0; i < 200; i++) res.write(`<component><id>org.example.Filler${i}</id><name>Filler</name></component>`)
        res.end('</components>')
      },
    ],
  ])
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', ...(req.headers['if-none-match'] ? { ifNoneMatch: req.headers['if-none-match'] } : {}), ...(req.headers['if-modified-since'] ? { ifModifiedSince: req.headers['if-modified-since'] } : {}) })
    const route = routes.get(req.url ?? '')
    if (route) route(req, res)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, routes }
}

function feedOf(entry: string): CatalogueFeed {
  const feed = parseCatalogueFeed(entry)
  if ('problem' in feed) throw new Error(feed.problem)
  return feed
}

interface Line {
  level: string
  fields: Record<string, unknown>
  message: string
}

function recordingLog() {
  const lines: Line[] = []
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message })
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } }
}

async function catalogue(t: Test): Promise<Database> {
  const db = await openTestDatabase(t)
  await migrateApiSchema(db)
  await applySeed(db)
  await db.query(`UPDATE api.programs SET external_ids = '{"flathub":"org.blender.Blender","homebrew":"blender"}'::jsonb WHERE id = 'blender'`)
  await db.query(`UPDATE api.programs SET external_ids = '{"flathub":"org.gimp.GIMP","homebrew":"gimp"}'::jsonb WHERE id = 'gimp'`)
  await db.query(`UPDATE api.programs SET external_ids = '{"flathub":"org.inkscape.Inkscape"}'::jsonb WHERE id = 'inkscape'`)
  return db
}

function syncOf(db: Database, feeds: CatalogueFeed[], options: Partial<FeedSyncOptions> = {}) {
  const { lines, log } = recordingLog()
  let now = NOW
  const sync = new FeedSync(db, { feeds, maxBytes: 1024 * 1024, timeoutMs: 5_000, intervalMs: 6 * 3_600_000, now: () => now, log, ...options })
  return { sync, lines, move: (ms: number) => void (now += ms) }
}

const reports = async (db: Database) =>
  (await db.query<{ feed: string; kind: string; program_id: string | null; detail: string }>('SELECT feed, kind, program_id, detail FROM api.feed_reports ORDER BY id')).rows
const proposals = async (db: Database) =>
  (
    await db.query<{ program_id: string; field: string; current_value: unknown; proposed_value: unknown; source: string; decision: string | null }>(
      'SELECT program_id, field, current_value, proposed_value, source, decision FROM api.proposed_changes ORDER BY program_id, field, id',
    )
  ).rows

t.test('an AppStream catalog bumps Blender; backwards and future versions are ignored and reported once; differences become proposals; 304 changes nothing', async (t) => {
  const db = await catalogue(t)
  const served = await feedServer(t)
  const feed = feedOf(`appstream:${served.base}/appstream.xml`)
  const { sync, lines } = syncOf(db, [feed])

  const first = await sync.run({ requestId: 'req-feeds-1' })
  t.same(first.feeds, [
    {
      feed: feed.name,
      status: 'updated',
      releases: [{ programId: 'blender', version: '4.5' }],
      ignored: [
        { programId: 'gimp', version: '2.10.38', reason: 'version-backwards' },
        { programId: 'inkscape', version: '1.5', reason: 'future-date' },
      ],
      proposals: [
        { programId: 'blender', field: 'summary' },
        { programId: 'gimp', field: 'name' },
        { programId: 'gimp', field: 'summary' },
      ],
      problem: null,
    },
  ])
  const blender = (await readProgram(db, 'blender'))!
  t.equal(blender.version, '4.5', "Blender's version is the feed's")
  t.equal(blender.updated, '2025-07-15', 'and "updated" its release day')
  t.equal(blender.name, 'Blender', 'nothing else changed by itself')
  const release = await db.query('SELECT version, released_on::text AS day, source FROM api.program_releases WHERE program_id = $1 ORDER BY recorded_at DESC LIMIT 1', ['blender'])
  t.same(release.rows, [{ version: '4.5', day: '2025-07-15', source: 'appstream:127.0.0.1' }], 'the release names the feed it came from')
  const revision = await db.query('SELECT action, actor_id, actor_email FROM api.program_revisions WHERE program_id = $1 ORDER BY revision DESC LIMIT 1', ['blender'])
  t.same(revision.rows, [{ action: 'release', actor_id: 'feed', actor_email: 'appstream:127.0.0.1' }], 'a revision by the feed')
  const audit = await db.query('SELECT action, actor_email, request_id FROM api.audit_log WHERE target = $1', ['program:blender'])
  t.same(audit.rows, [{ action: 'program.release', actor_email: 'appstream:127.0.0.1', request_id: 'req-feeds-1' }], 'audited')
  const events = await db.query<{ type: string; data: { version: string } }>('SELECT type, data FROM api.catalogue_events WHERE program_id = $1', ['blender'])
  t.match(events.rows, [{ type: 'release', data: { version: '4.5', source: 'appstream:127.0.0.1' } }], "Blender's watchers will hear of it")
  t.equal((await readProgram(db, 'gimp'))!.version, '3.0', 'GIMP keeps its newer version')
  t.equal((await readProgram(db, 'inkscape'))!.version, '1.4', 'Inkscape keeps its version: the feed dates 1.5 in 2099')

  t.same(await reports(db), [
    { feed: feed.name, kind: 'version-backwards', program_id: 'gimp', detail: "GIMP: the feed's version 2.10.38 is older than the catalogue's 3.0: ignored" },
    { feed: feed.name, kind: 'future-date', program_id: 'inkscape', detail: 'Inkscape 1.5 is dated 2099-01-01, in the future: not recorded' },
  ])
  t.same(await proposals(db), [
    { program_id: 'blender', field: 'summary', current_value: blender.texts.en.summary, proposed_value: 'Free and open source 3D creation suite', source: 'appstream:127.0.0.1', decision: null },
    { program_id: 'gimp', field: 'name', current_value: 'GIMP', proposed_value: 'GNU Image Manipulation Program', source: 'appstream:127.0.0.1', decision: null },
    { program_id: 'gimp', field: 'summary', current_value: (await readProgram(db, 'gimp'))!.texts.en.summary, proposed_value: 'Create images and edit photographs', source: 'appstream:127.0.0.1', decision: null },
  ], "only differences: Blender's homepage differs by a slash, Inkscape's is http:// (never proposed), a translated name is not the name")
  t.same(
    lines.filter((l) => l.level === 'warn').map((l) => l.fields.event),
    ['feed-version-backwards', 'feed-future-date'],
    'each reported in the log once',
  )

  // The same catalog again, read without its ETag: nothing new, nothing reported twice.
  await db.query('UPDATE api.catalogue_feeds SET etag = NULL, last_modified = NULL')
  const again = await sync.run()
  t.match(again.feeds[0], { status: 'updated', releases: [], proposals: [], ignored: [{ reason: 'version-backwards' }, { reason: 'future-date' }] })
  t.equal((await reports(db)).length, 2, 'no second report')
  t.equal(lines.filter((l) => l.level === 'warn').length, 2, 'no second log line')
  t.equal((await proposals(db)).length, 3, 'the pending proposals stay as they were')

  // Conditional: the ETag and Last-Modified of the last read; a 304 is nothing to do.
  const third = await sync.run()
  t.same(third.feeds[0], { feed: feed.name, status: 'not-modified', releases: [], ignored: [], proposals: [], problem: null })
  t.same(served.requests.at(-1), { url: '/appstream.xml', ifNoneMatch: '"catalog-1"', ifModifiedSince: 'Sat, 05 Dec 2026 10:00:00 GMT' })
  const state = await db.query<{ succeeded_at: Date; problem: string | null }>('SELECT succeeded_at, problem FROM api.catalogue_feeds WHERE feed = $1', [feed.name])
  t.equal(new Date(state.rows[0]!.succeeded_at).toISOString(), new Date(NOW).toISOString())
})

t.test('a gzip-compressed catalog (by its magic bytes, whatever its name), a Homebrew cask list dated by the sync\'s day, and a file', async (t) => {
  const db = await catalogue(t)
  const served = await feedServer(t)
  const gz = feedOf(`appstream:${served.base}/appstream.xml.gz`)
  const brew = feedOf(`homebrew:${served.base}/homebrew.json`)
  const { sync } = syncOf(db, [gz, brew])
  const summary = await sync.run()
  t.match(summary.feeds[0], { feed: gz.name, status: 'updated', releases: [{ programId: 'blender', version: '4.5.2' }] })
  t.match(summary.feeds[1], { feed: brew.name, status: 'updated', releases: [{ programId: 'blender', version: '4.5.3' }], ignored: [] })
  t.same(summary.feeds[1]!.proposals, [{ programId: 'blender', field: 'summary' }, { programId: 'gimp', field: 'summary' }], 'the cask "desc" is compared with the summary')
  const releases = await db.query('SELECT version, released_on::text AS day, source FROM api.program_releases WHERE program_id = $1 ORDER BY released_on DESC, recorded_at DESC', ['blender'])
  t.same(releases.rows.slice(0, 2), [
    { version: '4.5.3', day: '2026-12-06', source: 'homebrew:127.0.0.1' },
    { version: '4.5.2', day: '2025-09-09', source: 'appstream:127.0.0.1' },
  ], 'the timestamp read as its day; Homebrew, without dates, the day of the sync (the injected clock)')
  t.equal((await readProgram(db, 'blender'))!.version, '4.5.3')
  t.equal((await readProgram(db, 'gimp'))!.version, '3.0.4', "GIMP's cask is newer")

  // A file: by path or file: URL; unchanged since the last read, it is not read again.
  const db2 = await catalogue(t)
  const byPath = feedOf(`appstream:${path.join(FIXTURES, 'appstream.xml')}`)
  t.equal(byPath.name, `appstream:${pathToFileURL(path.join(FIXTURES, 'appstream.xml')).href}`)
  t.equal(byPath.source, 'appstream:file')
  const fromFile = syncOf(db2, [byPath]).sync
  t.match((await fromFile.run()).feeds[0], { status: 'updated', releases: [{ programId: 'blender', version: '4.5' }] })
  t.match((await fromFile.run()).feeds[0], { status: 'not-modified' })
})

t.test('a broken feed changes nothing, keeps its problem and is reported once, in the log once, until it works again', async (t) => {
  const served = await feedServer(t)
  const cases: Array<[string, string, RegExp, Partial<FeedSyncOptions>?]> = [
    ['appstream', '/malformed.xml', /^the feed is not a well-formed AppStream catalog: /],
    ['appstream', '/truncated.xml.gz', /^the gzip data is damaged or cut short$/],
    ['homebrew', '/invalid.json', /^the feed is not valid JSON: /],
    ['homebrew', '/not-a-list.json', /^the feed is not Homebrew cask JSON: it is not a list of casks$/],
    ['appstream', '/fails', /^the feed answered HTTP 500$/],
    ['appstream', '/moved', /^the feed answered HTTP 301 \(redirects are not followed/],
    ['appstream', '/missing', /^the feed answered HTTP 404$/],
    ['appstream', '/slow', /^the feed did not finish within 1 s \(CATALOGUE_FEED_TIMEOUT\)$/, { timeoutMs: 1_000 }],
    ['appstream', '/big', /^the feed is larger than 4096 bytes \(CATALOGUE_FEED_MAX_BYTES\); nothing of it was used$/, { maxBytes: 4096 }],
    ['appstream', '/appstream.xml', /^the feed is larger than 1024 bytes/, { maxBytes: 1024 }],
  ]
  // One catalogue for every case: each is its own feed, and none may change anything.
  const db = await catalogue(t)
  const before = await db.query('SELECT id, version, revision FROM api.programs ORDER BY id')
  for (const [format, url, problem, options] of cases) {
    await t.test(`${format} ${url}`, async (t) => {
      const feed = feedOf(`${format}:${served.base}${url}`)
      const { sync, lines } = syncOf(db, [feed], options)
      for (let i = 0; i < 3; i++) {
        const summary = await sync.run()
        t.equal(summary.feeds[0]!.status, 'failed')
        t.match(summary.feeds[0]!.problem, problem)
      }
      t.same((await db.query('SELECT id, version, revision FROM api.programs ORDER BY id')).rows, before.rows, 'no program changed')
      t.equal((await db.query('SELECT 1 FROM api.program_releases WHERE source <> $1', ['editor'])).rows.length, 0, 'no release recorded')
      t.same(await proposals(db), [], 'nothing proposed')
      const reported = (await reports(db)).filter((r) => r.feed === feed.name)
      t.equal(reported.length, 1, 'reported once')
      t.match(reported[0], { feed: feed.name, kind: 'feed-failed', program_id: null, detail: problem })
      const state = await db.query<{ problem: string; succeeded_at: Date | null }>('SELECT problem, succeeded_at FROM api.catalogue_feeds WHERE feed = $1', [feed.name])
      t.match(state.rows[0], { problem, succeeded_at: null })
      const warned = lines.filter((l) => l.level === 'warn')
      t.equal(warned.length, 1, 'one log line')
      t.match(warned[0], { fields: { event: 'feed-failed', feed: feed.name }, message: /^a catalogue feed changed nothing: / })
    })
  }

  await t.test('after a success the problem is cleared, one line says it works again, and a new failure is a new report', async (t) => {
    const feed = feedOf(`appstream:${served.base}/flaky.xml`)
    served.routes.set('/flaky.xml', (_req, res) => res.writeHead(503).end())
    const { sync, lines, move } = syncOf(db, [feed])
    await sync.run()
    await sync.run()
    served.routes.set('/flaky.xml', file('appstream.xml'))
    move(60_000)
    t.match((await sync.run()).feeds[0], { status: 'updated', problem: null })
    t.match((await db.query('SELECT problem FROM api.catalogue_feeds WHERE feed = $1', [feed.name])).rows, [{ problem: null }])
    t.match(lines.filter((l) => l.fields.event === 'feed-recovered'), [{ level: 'info', message: 'a catalogue feed works again' }])
    served.routes.set('/flaky.xml', (_req, res) => res.writeHead(503).end())
    move(60_000)
    await sync.run()
    t.equal((await reports(db)).filter((r) => r.feed === feed.name && r.kind === 'feed-failed').length, 2, 'the second run of failures is reported too')
    t.equal(lines.filter((l) => l.fields.event === 'feed-failed').length, 2)
  })
})

t.test('proposals: a newer value replaces the pending one; a rejected value is not proposed again; an editor who makes the change clears it', async (t) => {
  const db = await catalogue(t)
  const served = await feedServer(t)
  const feed = feedOf(`homebrew:${served.base}/casks.json`)
  const casks = (desc: string, name = 'Blender') => (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ token: 'blender', name: [name], desc, homepage: 'https://www.blender.org', version: '4.4' }]))
  served.routes.set('/casks.json', casks('3D suite'))
  const { sync } = syncOf(db, [feed])
  await sync.run()
  t.match(await proposals(db), [{ field: 'summary', proposed_value: '3D suite', decision: null }])

  served.routes.set('/casks.json', casks('3D creation suite'))
  t.same((await sync.run()).feeds[0]!.proposals, [{ programId: 'blender', field: 'summary' }])
  t.match(await proposals(db), [{ field: 'summary', proposed_value: '3D creation suite', decision: null }], 'one pending proposal, with the newer value')
  t.same((await sync.run()).feeds[0]!.proposals, [], 'the same value again is not a new proposal')

  await db.query(`UPDATE api.proposed_changes SET decision = 'rejected' WHERE decision IS NULL`)
  t.same((await sync.run()).feeds[0]!.proposals, [], 'a rejected value is not proposed again')
  t.equal((await proposals(db)).length, 1)
  served.routes.set('/casks.json', casks('The 3D creation suite'))
  t.same((await sync.run()).feeds[0]!.proposals, [{ programId: 'blender', field: 'summary' }], 'another value is')

  served.routes.set('/casks.json', casks('The 3D creation suite', 'Blender 3D'))
  await sync.run()
  t.equal((await proposals(db)).filter((p) => p.decision === null).length, 2)
  await db.query(`UPDATE api.programs SET name = 'Blender 3D' WHERE id = 'blender'`)
  await sync.run()
  t.same((await proposals(db)).filter((p) => p.decision === null).map((p) => p.field), ['summary'], "the name proposal went once the program's name was the feed's")
})

t.test('the timer reads each feed once per interval between the instances (an injected clock), and stops on close', async (t) => {
  const db = await catalogue(t)
  const served = await feedServer(t)
  const feed = feedOf(`appstream:${served.base}/appstream.xml`)
  const interval = 3_600_000
  const first = syncOf(db, [feed], { intervalMs: interval })
  // A second instance on the same database, with the same clock.
  const second = new FeedSync(db, { feeds: [feed], maxBytes: 1024 * 1024, timeoutMs: 5_000, intervalMs: interval, now: () => NOW, log: recordingLog().log })
  const armed: Array<{ fn: () => void; ms: number; cleared: boolean }> = []
  const timers = {
    setTimeout: (fn: () => void, ms: number) => {
      armed.push({ fn, ms, cleared: false })
      return armed.length as unknown as ReturnType<typeof setTimeout>
    },
    clearTimeout: (timer: ReturnType<typeof setTimeout>) => void (armed[(timer as unknown as number) - 1]!.cleared = true),
  }
  const failures = { failed: () => t.fail('no pass fails'), succeeded: () => {} }
  const schedule = new FeedSchedule(first.sync, interval, failures, timers)
  t.equal(new FeedSchedule(first.sync, 120_000, failures, timers).periodMs, 120_000, 'the check period is the interval when it is shorter than ten minutes')
  t.equal(schedule.periodMs, 600_000, 'else ten minutes')
  schedule.start()
  t.equal(armed.length, 1, 'armed on start')
  t.equal(served.requests.length, 0, 'nothing read at once')
  await schedule.tick()
  t.equal(served.requests.length, 1, 'the first pass reads the feed')
  t.equal(armed.length, 2, 'and arms the next')
  t.match((await second.run({ dueOnly: true })).feeds[0], { status: 'skipped' }, 'the other instance finds it read within the interval')
  await schedule.tick()
  t.equal(served.requests.length, 1, 'not read again before the interval has passed')
  first.move(interval - 1)
  await schedule.tick()
  t.equal(served.requests.length, 1, 'nor a millisecond before')
  first.move(1)
  await schedule.tick()
  t.equal(served.requests.length, 2, 'read again once it has')
  t.match((await second.run()).feeds[0], { status: 'not-modified' }, 'a pass asked for (the console, the command) reads it whatever the time')
  schedule.stop()
  t.ok(armed.at(-1)!.cleared, 'stopped: the armed timer is cleared')
  const count = armed.length
  await schedule.tick()
  t.equal(armed.length, count, 'and nothing is armed after a stop')

  const idle = new FeedSchedule(new FeedSync(db, { feeds: [], maxBytes: 1024, timeoutMs: 1_000, intervalMs: interval, now: () => NOW, log: recordingLog().log }), interval, failures, timers)
  idle.start()
  t.equal(armed.length, count, 'no feeds configured: no timer')
})

t.test('two instances never apply at once: while another holds the feeds\' lock, a pass skips the feed and changes nothing', async (t) => {
  const db = await catalogue(t)
  if (db.kind === 'pglite') {
    // Shown as skipped, not as a pass: one process holds the embedded database, so there is no other instance.
    t.skip('PostgreSQL only: one process holds the embedded database, so there is no other instance', async () => {})
    return
  }
  const served = await feedServer(t)
  const feed = feedOf(`appstream:${served.base}/appstream.xml`)
  const { sync } = syncOf(db, [feed])
  const other = await secondConnection(t, db)
  let release: (() => void) | undefined
  const held = other.transaction(
    async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['softshelf:api:catalogue-feeds'])
      await new Promise<void>((resolve) => (release = resolve))
    },
    { timeoutMs: 30_000 },
  )
  await waitUntil(() => release !== undefined)
  t.match((await sync.run()).feeds[0], { status: 'skipped', releases: [] })
  t.equal((await readProgram(db, 'blender'))!.version, '4.4', 'nothing applied')
  t.match((await db.query('SELECT etag FROM api.catalogue_feeds')).rows, [{ etag: null }], 'nor its ETag kept: the next pass reads it whole')
  release!()
  await held
  t.match((await sync.run()).feeds[0], { status: 'updated', releases: [{ programId: 'blender', version: '4.5' }] })
})
