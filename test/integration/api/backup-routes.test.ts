import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { readArchive } from '../../../server/backup/archive.ts'
import type { BackupManifest } from '../../../server/backup/backup.ts'
import type { Database } from '../../../server/db/database.ts'
import { openPglite } from '../../../server/db/pglite.ts'
import { openTestDatabase, testBuildInfo, testConfig, within } from '../../helpers.ts'

// GET /internal/backup (decision 020): the operator's backup of the embedded default,
// taken by the running API. On PostgreSQL it points at pg_dump instead.

const TOKEN = 'backup-operator-token-0123456789'
const auth = { authorization: `Bearer ${TOKEN}` }

// One database for the file (PGlite, or PostgreSQL when TEST_DATABASE_URL is set).
const db = await openTestDatabase(t)
const embedded = db.kind === 'pglite' ? false : 'PGlite only'

async function api(t: Test, db: Database) {
  const config = testConfig(t)
  const app = await buildApi({ config, db, buildInfo: testBuildInfo, operatorToken: TOKEN, authCoreUrl: 'http://127.0.0.1:9' })
  // Ready first: the drive's sweep at start would clear objects no row names.
  await app.ready()
  t.teardown(() => app.close())
  return { app, dataDir: config.dataDir }
}

async function entriesOf(payload: Buffer): Promise<Map<string, Buffer<ArrayBuffer>>> {
  const entries = new Map<string, Buffer<ArrayBuffer>>()
  for await (const entry of readArchive(Readable.from([payload]))) entries.set(entry.name, await entry.bytes())
  return entries
}

t.test('without the operator token, or with a wrong one, no backup is given', async (t) => {
  const { app } = await api(t, db)
  for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { authorization: TOKEN }]) {
    const response = await app.inject({ method: 'GET', url: '/internal/backup', headers })
    t.equal(response.statusCode, 401)
    t.match(response.json(), { statusCode: 401, code: 'API_UNAUTHORIZED', error: 'Unauthorized', message: 'A valid operator token is required.', requestId: /.+/ })
    t.notMatch(response.headers['content-type'], /gzip/)
  }
})

t.test('on PostgreSQL the answer is 409 API_BACKUP_NOT_EMBEDDED, pointing at pg_dump', { skip: db.kind === 'postgres' ? false : 'TEST_DATABASE_URL is not set' }, async (t) => {
  const { app } = await api(t, db)
  const response = await app.inject({ method: 'GET', url: '/internal/backup', headers: auth })
  t.equal(response.statusCode, 409)
  t.match(response.json(), { statusCode: 409, code: 'API_BACKUP_NOT_EMBEDDED', error: 'Conflict', message: /pg_dump -Fc "\$DATABASE_URL"/, requestId: /.+/ })
})

t.test('on PGlite: a gzip\'d tar with the manifest, the database, the drive\'s objects and the secrets', { skip: embedded }, async (t) => {
  const { app, dataDir } = await api(t, db)
  await app.inject({ method: 'PUT', url: '/internal/maintenance', headers: auth, payload: { maintenanceTime: '2027-03-04T05:06:00Z' } })
  const key = 'ab'.padEnd(32, '0')
  fs.mkdirSync(path.join(dataDir, 'files', 'objects', 'ab'), { recursive: true })
  fs.writeFileSync(path.join(dataDir, 'files', 'objects', 'ab', key), 'the bytes of a drive file')
  fs.writeFileSync(path.join(dataDir, 'authcore-secret'), 'core-secret\n', { mode: 0o600 })
  fs.writeFileSync(path.join(dataDir, 'operator-token'), `${TOKEN}\n`, { mode: 0o600 })

  const response = await app.inject({ method: 'GET', url: '/internal/backup', headers: auth })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'application/gzip')
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(response.headers['content-disposition'], /^attachment; filename="softshelf-backup-\d{4}-\d\d-\d\dT[\d-]+Z\.tar\.gz"$/)
  const entries = await entriesOf(response.rawPayload)
  t.same([...entries.keys()], ['softshelf-backup.json', 'secrets/authcore-secret', 'secrets/operator-token', 'database.tar', `files/objects/ab/${key}`])
  const manifest = JSON.parse(entries.get('softshelf-backup.json')!.toString()) as BackupManifest
  t.match(manifest, {
    kind: 'softshelf-backup',
    format: 1,
    appVersion: testBuildInfo.version,
    createdAt: /^\d{4}-\d\d-\d\dT/,
    database: { folder: 'pglite', bytes: entries.get('database.tar')!.length },
    files: { storage: 'disk', count: 1, bytes: 25 },
    secrets: ['authcore-secret', 'operator-token'],
  })
  t.equal(entries.get(`files/objects/ab/${key}`)!.toString(), 'the bytes of a drive file')
  t.equal(entries.get('secrets/authcore-secret')!.toString(), 'core-secret\n')

  const copy = await openPglite({ loadDataDir: new Blob([entries.get('database.tar')!], { type: 'application/x-tar' }) })
  t.teardown(() => copy.close())
  const { rows } = await copy.query<{ maintenance_time: Date }>('SELECT maintenance_time FROM api.maintenance')
  t.same(rows.map((row) => row.maintenance_time.toISOString()), ['2027-03-04T05:06:00.000Z'], 'the dumped database holds what the API wrote')
  t.same(
    fs.readdirSync(dataDir).filter((name) => name.startsWith('.backup-')),
    [],
    'the linked copy of the drive is gone once the archive was sent',
  )
})

t.test('a transaction open when the backup is asked for is in it once committed, never half', { skip: embedded }, async (t) => {
  await db.exec('CREATE TABLE backup_probe (step int)')
  let dumpAsked!: () => void
  const dumpStarted = new Promise<void>((resolve) => (dumpAsked = resolve))
  // The same database, telling when the backup asks for its dump.
  const watched: Database = { ...db, dump: (alongside) => (dumpAsked(), db.dump!(alongside)) }
  const { app } = await api(t, watched)
  let finish!: () => void
  const held = new Promise<void>((resolve) => (finish = resolve))
  const transaction = db.transaction(async (tx) => {
    await tx.query('INSERT INTO backup_probe VALUES (1)')
    await held
    await tx.query('INSERT INTO backup_probe VALUES (2)')
  })
  const backup = app.inject({ method: 'GET', url: '/internal/backup', headers: auth })
  await within(dumpStarted)
  finish()
  await transaction
  const response = await within(backup)
  t.equal(response.statusCode, 200)
  const copy = await openPglite({ loadDataDir: new Blob([(await entriesOf(response.rawPayload)).get('database.tar')!], { type: 'application/x-tar' }) })
  t.teardown(() => copy.close())
  t.same((await copy.query<{ step: number }>('SELECT step FROM backup_probe ORDER BY step')).rows, [{ step: 1 }, { step: 2 }])
})
