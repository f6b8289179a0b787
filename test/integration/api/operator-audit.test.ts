import { spawnSync } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import t from 'tap'
import { openDatabase } from '../../../server/db/open.ts'
import { buildBff } from '../../../server/bff/app.ts'
import { recordAudit, type AuditEntry } from '../../../server/api/operator/audit-log.ts'
import { browser, buildStack, freePort, operatorTab, pollFor, root, signedInTab, tempDir, testBuildInfo, testConfig, TEST_AUTH_CORE_API_KEY } from '../../helpers.ts'

// The audit log (GET /api/operator/audit and its CSV export) and maintenance from the
// console (PUT /api/operator/maintenance), through the BFF with real sessions whose tokens carry
// the roles. Who may, who may not, what the filters and pages give, what the CSV holds.

interface Page {
  entries: AuditEntry[]
  next: string | null
}

t.test('the audit log and maintenance through the BFF', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const admin = await operatorTab(stack, 'admin@example.com', ['admin'])
  const support = await operatorTab(stack, 'support@example.com', ['support'])
  const editor = await operatorTab(stack, 'editor@example.com', ['editor'])
  const member = await signedInTab(stack, 'member@example.com')
  const anonymous = browser(stack.bff)
  const count = async () => Number((await stack.db.query<{ n: string | number }>('SELECT count(*) AS n FROM api.audit_log')).rows[0]?.n)

  t.test('admin and support read the log; an editor, a member and a signed-out caller are refused', async (t) => {
    for (const [who, tab] of [['admin', admin], ['support', support]] as const) {
      for (const url of ['/api/operator/audit', '/api/operator/audit.csv']) {
        const answer = await tab.get(url)
        t.equal(answer.statusCode, 200, `${who} ${url}`)
        t.equal(answer.headers['cache-control'], 'no-store', `${who} ${url}: never kept by a cache`)
      }
    }
    for (const [who, tab] of [['editor', editor], ['member', member]] as const) {
      for (const url of ['/api/operator/audit', '/api/operator/audit.csv', '/api/operator/audit?action=maintenance.set']) {
        const answer = await tab.get(url)
        t.equal(answer.statusCode, 403, `${who} ${url}`)
        // The BFF refuses it before it is proxied (the API would too: API_PERMISSION_DENIED).
        t.equal(answer.json().code, 'BFF_PERMISSION_DENIED', `${who} ${url}`)
      }
    }
    for (const url of ['/api/operator/audit', '/api/operator/audit.csv']) {
      const answer = await anonymous.get(url)
      t.equal(answer.statusCode, 401, `signed out ${url}`)
      t.notMatch(answer.body, /actor|program\./, 'nothing of the log')
    }
  })

  t.test('maintenance: an admin sets it, /api/version shows it at once on this instance and within 2 s on another, and the log has it', async (t) => {
    const other = await buildBff({
      config: testConfig(t),
      db: stack.db,
      buildInfo: testBuildInfo,
      upstreamApiUrl: stack.apiUrl,
      // The same auth core: the SDK is one per process, so a second BFF must not point it elsewhere.
      authCoreUrl: `http://127.0.0.1:${(stack.authCore!.server.address() as AddressInfo).port}`,
      authCoreApiKey: TEST_AUTH_CORE_API_KEY,
    })
    t.teardown(() => other.close())
    // Both instances have the answer without maintenance in their one-second cache.
    t.same((await stack.bff.inject('/api/version')).json(), { version: '1.0.716+test' })
    t.same((await other.inject('/api/version')).json(), { version: '1.0.716+test' })

    const set = await admin.put('/api/operator/maintenance', { maintenanceTime: '2027-01-10T23:30:00+01:00' })
    t.equal(set.statusCode, 200, set.body)
    t.same(set.json(), { maintenanceTime: '2027-01-10T22:30:00.000Z' })
    t.same((await stack.bff.inject('/api/version')).json(), { version: '1.0.716+test', maintenanceTime: '2027-01-10T22:30:00.000Z' }, 'at once on the instance that carried it')
    const started = Date.now()
    const seen = await pollFor(async () => (await other.inject('/api/version')).json().maintenanceTime as string | undefined, { ms: 3_000, every: 50, what: 'the other instance reports the maintenance time' })
    t.equal(seen, '2027-01-10T22:30:00.000Z')
    t.ok(Date.now() - started < 2_000, 'within 2 s on the other instance')

    const adminId = (await admin.get('/api/user')).json().id as string
    t.ok(adminId)
    const log = (await admin.get('/api/operator/audit?action=maintenance.set')).json() as Page
    t.same(log.entries[0], {
      id: log.entries[0]?.id,
      at: log.entries[0]?.at,
      actor: { id: adminId, email: 'admin@example.com' },
      action: 'maintenance.set',
      target: 'maintenance',
      before: { maintenanceTime: null },
      after: { maintenanceTime: '2027-01-10T22:30:00.000Z' },
      requestId: set.headers['x-request-id'],
    })
    t.match(log.entries[0]?.id, /^[1-9][0-9]*$/)
    t.ok(Math.abs(Date.parse(log.entries[0]?.at ?? '') - Date.now()) < 60_000, 'at: when it happened')

    const cleared = await admin.put('/api/operator/maintenance', { maintenanceTime: null })
    t.equal(cleared.statusCode, 200)
    t.same(cleared.json(), { maintenanceTime: null })
    t.same((await stack.bff.inject('/api/version')).json(), { version: '1.0.716+test' }, 'cleared at once')
    const latest = ((await support.get('/api/operator/audit?target=maintenance&limit=1')).json() as Page).entries[0]
    t.match(latest, { action: 'maintenance.set', before: { maintenanceTime: '2027-01-10T22:30:00.000Z' }, after: { maintenanceTime: null }, requestId: cleared.headers['x-request-id'] })
  })

  t.test('maintenance: bad input is a 400 naming the field; editor, support, a member, a signed-out or forged caller are refused; nothing changes', async (t) => {
    const before = await count()
    for (const [body, code] of [
      [{ maintenanceTime: 'tomorrow' }, 'API_INVALID_MAINTENANCE_TIME'],
      [{ maintenanceTime: '2027-01-10' }, 'API_INVALID_MAINTENANCE_TIME'],
      [{ maintenanceTime: '2027-02-30T10:00:00Z' }, 'API_INVALID_MAINTENANCE_TIME'],
      [{ maintenanceTime: 20270110 }, 'API_INVALID_MAINTENANCE_TIME'],
      [{}, 'API_VALIDATION_FAILED'],
    ] as const) {
      const answer = await admin.put('/api/operator/maintenance', body)
      t.equal(answer.statusCode, 400, JSON.stringify(body))
      t.equal(answer.json().code, code, JSON.stringify(body))
      t.match(answer.json().message, /maintenanceTime/, 'the message names the field')
    }
    for (const [who, tab] of [['editor', editor], ['support', support], ['member', member]] as const) {
      const answer = await tab.put('/api/operator/maintenance', { maintenanceTime: '2027-01-10T22:00:00Z' })
      t.equal(answer.statusCode, 403, who)
      t.equal(answer.json().code, 'BFF_PERMISSION_DENIED', who)
    }
    t.equal((await anonymous.put('/api/operator/maintenance', { maintenanceTime: '2027-01-10T22:00:00Z' })).statusCode, 401, 'signed out')

    // A member's own token with the admin's claims written in, unsigned by the core.
    const token = member.jar.get('sAccessToken') ?? ''
    const [head, payload, signature] = token.split('.')
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, 'st-role': { v: ['admin'], t: Date.now() }, 'st-perm': { v: ['maintenance:write', 'audit:read'], t: Date.now() } })).toString('base64url')
    const forged = browser(stack.bff)
    forged.jar.cookies.set('sAccessToken', { value: `${head}.${forgedPayload}.${signature}`, path: '/' })
    const forgedAnswer = await forged.put('/api/operator/maintenance', { maintenanceTime: '2027-01-10T22:00:00Z' })
    t.equal(forgedAnswer.statusCode, 401, 'a forged token is no session')
    t.equal((await forged.get('/api/operator/audit')).statusCode, 401)

    // The anti-forgery header is required of a write, operator or not.
    const noRid = await admin.put('/api/operator/maintenance', { maintenanceTime: '2027-01-10T22:00:00Z' }, { rid: '' })
    t.equal(noRid.statusCode, 403, 'no anti-forgery header')

    t.same((await stack.bff.inject('/api/version')).json(), { version: '1.0.716+test' }, 'nothing was set')
    t.equal(await count(), before, 'and nothing logged')
  })

  t.test('npm run maintenance (/internal/maintenance) is on the record too, as the command', async (t) => {
    const auth = { authorization: `Bearer ${stack.operatorToken}`, 'content-type': 'application/json' }
    const set = await fetch(`${stack.apiUrl}/internal/maintenance`, { method: 'PUT', headers: { ...auth, 'x-request-id': 'cli-req-1' }, body: JSON.stringify({ maintenanceTime: '2027-02-01T08:00:00Z' }) })
    t.equal(set.status, 200)
    const clear = await fetch(`${stack.apiUrl}/internal/maintenance`, { method: 'DELETE', headers: { authorization: auth.authorization, 'x-request-id': 'cli-req-2' } })
    t.equal(clear.status, 200)
    const page = (await admin.get('/api/operator/audit?actor=operator-command&limit=2')).json() as Page
    t.match(page.entries, [
      { actor: { id: 'operator-command', email: 'npm run maintenance' }, action: 'maintenance.set', target: 'maintenance', before: { maintenanceTime: '2027-02-01T08:00:00.000Z' }, after: { maintenanceTime: null }, requestId: 'cli-req-2' },
      { actor: { id: 'operator-command', email: 'npm run maintenance' }, action: 'maintenance.set', before: { maintenanceTime: null }, after: { maintenanceTime: '2027-02-01T08:00:00.000Z' }, requestId: 'cli-req-1' },
    ])
  })

  t.test('filters: actor by id or email (any case), target exactly, action exactly or by prefix, combined', async (t) => {
    const alice = { id: 'u-alice', email: 'Alice@Example.com' }
    const bob = { id: 'u-bob', email: 'bob@example.com' }
    const write = (actor: typeof alice, action: string, target: string) => recordAudit(stack.db, { actor, action, target, before: { version: '1' }, after: { version: '2' }, requestId: `req-${action}-${target}` })
    await write(alice, 'program.create', 'program:blender')
    await write(alice, 'program.update', 'program:blender')
    await write(bob, 'program.update', 'program:gimp')
    await write(bob, 'user.disable', 'user:u-1')
    await write(alice, 'user.roles', 'user:u-1')
    const pick = async (query: string) => {
      const answer = await support.get(`/api/operator/audit?${query}`)
      t.equal(answer.statusCode, 200, `${query}: ${answer.body}`)
      return (answer.json() as Page).entries.filter((entry) => entry.actor.id.startsWith('u-')).map((entry) => `${entry.actor.id} ${entry.action} ${entry.target}`)
    }
    t.same(await pick('actor=u-alice'), ['u-alice user.roles user:u-1', 'u-alice program.update program:blender', 'u-alice program.create program:blender'], 'by id, newest first')
    t.same(await pick('actor=alice%40example.com'), await pick('actor=u-alice'), 'by email, whatever its case')
    t.same(await pick('actor=ALICE%40EXAMPLE.COM'), await pick('actor=u-alice'))
    t.same(await pick('actor=alice'), [], 'not a part of an email')
    t.same(await pick('actor=U-ALICE'), [], 'an id is exact')
    t.same(await pick('target=program%3Ablender'), ['u-alice program.update program:blender', 'u-alice program.create program:blender'])
    t.same(await pick('target=program%3Ablend'), [], 'a target is exact')
    t.same(await pick('action=program.update'), ['u-bob program.update program:gimp', 'u-alice program.update program:blender'])
    t.same(await pick('action=program.'), ['u-bob program.update program:gimp', 'u-alice program.update program:blender', 'u-alice program.create program:blender'], 'a prefix ending with a dot')
    t.same(await pick('action=program'), [], 'without the dot, exact')
    t.same(await pick('action=user.&actor=bob%40example.com'), ['u-bob user.disable user:u-1'])
    t.same(await pick('action=user.&target=user%3Au-1&actor=u-alice'), ['u-alice user.roles user:u-1'])
  })

  t.test('pages: newest first, `next` is the cursor of the older page, null on the last; bad parameters are 400s naming them', async (t) => {
    const seen: string[] = []
    let page = (await admin.get('/api/operator/audit?limit=2')).json() as Page
    t.equal(page.entries.length, 2)
    seen.push(...page.entries.map((entry) => entry.id))
    while (page.next !== null) {
      t.equal(page.next, page.entries.at(-1)?.id, 'the cursor is the last entry of the page')
      page = (await admin.get(`/api/operator/audit?limit=2&before=${page.next}`)).json() as Page
      seen.push(...page.entries.map((entry) => entry.id))
    }
    const all = (await admin.get('/api/operator/audit?limit=200')).json() as Page
    t.equal(all.next, null)
    t.same(seen, all.entries.map((entry) => entry.id), 'the pages together are the whole log, once each')
    t.same([...seen].sort((a, b) => Number(b) - Number(a)), seen, 'newest first')
    t.equal(all.entries.length, await count())
    t.equal(((await admin.get('/api/operator/audit')).json() as Page).entries.length, Math.min(50, await count()), 'fifty by default')

    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['before=abc', 'before'],
      ['before=0', 'before'],
      ['before=99999999999999999999', 'before'],
      ['action=Program.update', 'action'],
      ['action=program.%25', 'action'],
      ['action=program..update', 'action'],
      ['actor=', 'actor'],
      ['target=', 'target'],
    ]) {
      for (const url of [`/api/operator/audit?${query}`, ...(field === 'limit' ? [] : [`/api/operator/audit.csv?${query}`])]) {
        const answer = await admin.get(url)
        t.equal(answer.statusCode, 400, url)
        t.equal(answer.json().code, 'API_VALIDATION_FAILED', url)
        t.match(answer.json().message, field, `${url}: names ${field}`)
      }
    }
  })

  t.test('no route changes or deletes an entry: only GET (and HEAD) exist on the audit paths', async (t) => {
    const before = await count()
    const id = ((await admin.get('/api/operator/audit?limit=1')).json() as Page).entries[0]?.id ?? '1'
    for (const url of ['/api/operator/audit', '/api/operator/audit.csv', `/api/operator/audit/${id}`, `/api/operator/audit?before=${id}`]) {
      const answers = [
        ['POST', await admin.post(url, { action: 'program.update' })],
        ['PUT', await admin.put(url, { action: 'program.update' })],
        ['PATCH', await admin.send('PATCH', url, { action: 'program.update' })],
        ['DELETE', await admin.delete(url)],
      ] as const
      for (const [method, answer] of answers) t.ok([404, 405].includes(answer.statusCode), `${method} ${url}: ${answer.statusCode}`)
    }
    t.equal((await admin.get(`/api/operator/audit/${id}`)).statusCode, 404, 'nor is there a route of one entry')
    t.equal(await count(), before, 'the log is as it was')
  })

  t.test('CSV: every filtered entry, a page at a time, RFC 4180 quoting, and no cell a spreadsheet would run', async (t) => {
    const hostile = [
      { id: '=HYPERLINK("http://evil.example","x")', email: '+SUM(1,2)@example.com' },
      { id: '-2+3', email: '@cmd@example.com' },
      { id: '\tlead', email: '\r=lead@example.com' },
      { id: 'plain, "quoted"', email: 'multi\nline@example.com' },
    ]
    for (const actor of hostile) await recordAudit(stack.db, { actor, action: 'user.disable', target: 'user:hostile', before: { reason: null }, after: { reason: 'spam, "bulk"' }, requestId: 'req-csv' })
    const answer = await admin.get('/api/operator/audit.csv?target=user%3Ahostile')
    t.equal(answer.statusCode, 200)
    t.equal(answer.headers['content-type'], 'text/csv; charset=utf-8')
    t.equal(answer.headers['content-disposition'], `attachment; filename="softshelf-audit-${new Date().toISOString().slice(0, 10)}.csv"`)
    const lines = answer.body.split('\r\n')
    t.equal(lines[0], 'id,at,actor_id,actor_email,action,target,before,after,request_id')
    t.equal(lines.at(-1), '', 'every row ends with CRLF')
    const rows = parseCsv(answer.body)
    t.equal(rows.length, 5)
    t.same(
      rows.slice(1).map((row) => [row[2], row[3]]),
      [
        ['plain, "quoted"', 'multi\nline@example.com'],
        ["'\tlead", "'\r=lead@example.com"],
        ["'-2+3", "'@cmd@example.com"],
        ['\'=HYPERLINK("http://evil.example","x")', "'+SUM(1,2)@example.com"],
      ],
      'newest first; formulas start with an apostrophe; quotes, commas and line breaks survive',
    )
    for (const row of rows.slice(1)) {
      t.same([row[4], row[5], JSON.parse(row[6] ?? ''), JSON.parse(row[7] ?? ''), row[8]], ['user.disable', 'user:hostile', { reason: null }, { reason: 'spam, "bulk"' }, 'req-csv'])
      t.match(row[0], /^[1-9][0-9]*$/)
      t.match(row[1], /^\d{4}-\d\d-\d\dT/)
      for (const cell of row) t.notMatch(cell, /^[=+\-@\t\r]/, 'no cell starts as a formula')
    }
    t.equal(answer.body.includes('"\'=HYPERLINK(""http://evil.example"",""x"")"'), true, 'a quote inside is doubled')

    // More entries than one page of the export's reading: all there, once each, newest first.
    await stack.db.query(
      `INSERT INTO api.audit_log (actor_id, actor_email, action, target, before, after, request_id)
       SELECT 'u-bulk', 'bulk@example.com', 'program.update', 'program:bulk', jsonb_build_object('n', n - 1), jsonb_build_object('n', n), 'req-bulk-' || n FROM generate_series(1, 1234) AS n`,
    )
    const bulk = parseCsv((await support.get('/api/operator/audit.csv?actor=u-bulk')).body).slice(1)
    t.equal(bulk.length, 1234)
    t.same(bulk.map((row) => row[8]), Array.from({ length: 1234 }, (_, i) => `req-bulk-${1234 - i}`))
    const older = parseCsv((await support.get(`/api/operator/audit.csv?actor=u-bulk&before=${bulk[1000]?.[0]}`)).body).slice(1)
    t.equal(older.length, 233, 'before: the older part')
    const none = await support.get('/api/operator/audit.csv?actor=nobody')
    t.equal(none.body, 'id,at,actor_id,actor_email,action,target,before,after,request_id\r\n', 'nothing matches: the header alone')
  })
})

t.test('npm run maintenance with no API running opens the database itself, and its entry with it', async (t) => {
  const dataDir = tempDir(t)
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir, API_PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }
  // The embedded database either way: the command's own path (changeMaintenanceTime, the same on
  // PostgreSQL) is what is tested here; the routes above run on both.
  delete env.DATABASE_URL
  const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'maintenance.ts'), ...args], { env, encoding: 'utf8', cwd: root, timeout: 60_000 })
  const set = run('set', '2027-04-01T10:00:00Z')
  t.equal(set.status, 0, set.stderr)
  const clear = run('clear')
  t.equal(clear.status, 0, clear.stderr)
  const db = await openDatabase({ databaseUrl: undefined, dataDir })
  t.teardown(() => db.close())
  const { rows } = await db.query<{ actor_id: string; actor_email: string; action: string; target: string; before: unknown; after: unknown; request_id: string }>(
    'SELECT actor_id, actor_email, action, target, before, after, request_id FROM api.audit_log ORDER BY id',
  )
  t.match(rows, [
    { actor_id: 'operator-command', actor_email: 'npm run maintenance', action: 'maintenance.set', target: 'maintenance', before: { maintenanceTime: null }, after: { maintenanceTime: '2027-04-01T10:00:00.000Z' }, request_id: /^npm-run-maintenance-[0-9a-f-]{36}$/ },
    { actor_id: 'operator-command', action: 'maintenance.set', before: { maintenanceTime: '2027-04-01T10:00:00.000Z' }, after: { maintenanceTime: null } },
  ])
  t.equal(rows.length, 2)
})

/** A strict RFC 4180 reader: rows of cells, quoted cells may hold commas, quotes ("") and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let i = 0
  let quoted = false
  while (i < text.length) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i += 2
        continue
      }
      if (c === '"') quoted = false
      else cell += c
      i++
      continue
    }
    if (c === '"' && cell === '') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else if (c === '"' || c === '\n' || c === '\r') throw new Error(`a bare ${JSON.stringify(c)} outside quotes at ${i}`)
    else cell += c
    i++
  }
  if (cell !== '' || row.length > 0) throw new Error('the last row has no CRLF')
  return rows
}
