import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import t, { type Test } from 'tap'
import { writeArchive } from '../../../server/backup/archive.ts'
import { createBackup } from '../../../server/backup/backup.ts'
import { restoreBackup } from '../../../server/backup/restore.ts'
import { openPglite } from '../../../server/db/pglite.ts'
import { pgliteTemplate, tempDir } from '../../helpers.ts'

// Restoring a backup into DATA_DIR (decision 020): everything comes back with owner-only
// permissions; a DATA_DIR that holds data is refused, or with force moved aside, never deleted;
// a damaged or foreign file changes nothing.

const KEY = 'cd'.padEnd(32, '7')

/** A backup of a small embedded set-up: a row, a drive object and two secrets. */
async function makeBackup(t: Test): Promise<Buffer> {
  const dataDir = tempDir(t)
  const db = await openPglite({ loadDataDir: await pgliteTemplate() })
  t.teardown(() => db.close())
  await db.exec("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('from the backup')")
  fs.mkdirSync(path.join(dataDir, 'files', 'objects', 'cd'), { recursive: true })
  fs.writeFileSync(path.join(dataDir, 'files', 'objects', 'cd', KEY), 'drive bytes')
  fs.writeFileSync(path.join(dataDir, 'authcore-secret'), 'secret-of-the-core\n')
  fs.writeFileSync(path.join(dataDir, 'authcore-api-key'), 'key-of-the-core\n')
  const { stream } = await createBackup({ db, dataDir, databaseFolder: 'pglite', filesRoot: path.join(dataDir, 'files'), appVersion: '1.0.716+test' })
  return buffer(stream)
}

// One backup for the file; each test restores it somewhere of its own.
const backup = await makeBackup(t)

const mode = (file: string) => fs.statSync(file).mode & 0o777

async function note(dataDir: string): Promise<string> {
  const db = await openPglite({ dataDir: path.join(dataDir, 'pglite') })
  try {
    return (await db.query<{ note: string }>('SELECT note FROM kept')).rows[0]!.note
  } finally {
    await db.close()
  }
}

t.test('a backup comes back whole into a fresh DATA_DIR, readable by its owner only', async (t) => {
  const dataDir = path.join(tempDir(t), 'data')
  const { manifest, movedAside } = await restoreBackup(Readable.from([backup]), { dataDir })
  t.equal(movedAside, undefined)
  t.match(manifest, { kind: 'softshelf-backup', appVersion: '1.0.716+test', files: { storage: 'disk', count: 1 }, secrets: ['authcore-secret', 'authcore-api-key'] })
  t.equal(await note(dataDir), 'from the backup')
  const object = path.join(dataDir, 'files', 'objects', 'cd', KEY)
  t.equal(fs.readFileSync(object, 'utf8'), 'drive bytes')
  t.equal(fs.readFileSync(path.join(dataDir, 'authcore-secret'), 'utf8'), 'secret-of-the-core\n')
  t.same([mode(object), mode(path.join(dataDir, 'authcore-secret')), mode(path.join(dataDir, 'authcore-api-key'))], [0o600, 0o600, 0o600])
  t.same([mode(path.join(dataDir, 'pglite')), mode(path.join(dataDir, 'files')), mode(path.join(dataDir, 'files', 'objects', 'cd'))], [0o700, 0o700, 0o700])
  t.notOk(fs.existsSync(path.join(dataDir, 'operator-token')), 'a secret the backup did not hold is not made up')
  t.same(fs.readdirSync(dataDir).sort(), ['authcore-api-key', 'authcore-secret', 'files', 'pglite'], 'nothing of the unpacking is left')
})

t.test('a DATA_DIR with data is refused, and with force moved aside, not deleted', async (t) => {
  const dataDir = tempDir(t)
  fs.mkdirSync(path.join(dataDir, 'pglite'))
  fs.writeFileSync(path.join(dataDir, 'pglite', 'PG_VERSION'), '17\n')
  fs.writeFileSync(path.join(dataDir, 'authcore-secret'), 'the old secret\n')
  fs.mkdirSync(path.join(dataDir, 'mail'))
  await t.rejects(restoreBackup(Readable.from([backup]), { dataDir }), {
    name: 'RestoreRefusedError',
    message: `${dataDir} already holds pglite, authcore-secret. Restore into an empty DATA_DIR, or add --force to move what is there aside (into ${dataDir}/before-restore-<time>) first.`,
  })
  t.same(fs.readdirSync(dataDir).sort(), ['authcore-secret', 'mail', 'pglite'], 'nothing changed')

  const { movedAside } = await restoreBackup(Readable.from([backup]), { dataDir, force: true, now: () => new Date('2027-01-02T03:04:05.678Z') })
  t.equal(movedAside, path.join(dataDir, 'before-restore-2027-01-02T03-04-05-678Z'))
  t.same(fs.readdirSync(movedAside!).sort(), ['authcore-secret', 'pglite'])
  t.equal(fs.readFileSync(path.join(movedAside!, 'authcore-secret'), 'utf8'), 'the old secret\n')
  t.equal(fs.readFileSync(path.join(dataDir, 'authcore-secret'), 'utf8'), 'secret-of-the-core\n')
  t.equal(await note(dataDir), 'from the backup')
  t.ok(fs.existsSync(path.join(dataDir, 'mail')), 'what a backup does not hold stays')
})

t.test('a file cut short, damaged or of a newer format changes nothing in DATA_DIR', async (t) => {
  const dataDir = tempDir(t)
  fs.writeFileSync(path.join(dataDir, 'operator-token'), 'the old token\n')
  await t.rejects(restoreBackup(Readable.from([backup.subarray(0, backup.length - 100)]), { dataDir, force: true }), { name: 'ArchiveError', message: /incomplete/ })
  const damaged = Buffer.from(backup)
  damaged[Math.floor(damaged.length / 3)]! ^= 0x55
  await t.rejects(restoreBackup(Readable.from([damaged]), { dataDir, force: true }), { name: 'ArchiveError', message: /damaged|incomplete/ })
  const manifest = Buffer.from(JSON.stringify({ kind: 'softshelf-backup', format: 2, appVersion: '9.0.0', database: { folder: 'pglite', bytes: 0 }, files: { storage: 's3' }, secrets: [] }))
  const newer = await buffer(writeArchive([{ name: 'softshelf-backup.json', size: manifest.length, body: manifest }]))
  await t.rejects(restoreBackup(Readable.from([newer]), { dataDir, force: true }), {
    name: 'ArchiveError',
    message: 'This backup has format 2, newer than this version of Softshelf reads (1): restore it with the version that made it (9.0.0) or a later one.',
  })
  const foreign = await buffer(writeArchive([{ name: 'notes.txt', size: 2, body: Buffer.from('hi') }]))
  await t.rejects(restoreBackup(Readable.from([foreign]), { dataDir, force: true }), { name: 'ArchiveError', message: 'This is not a Softshelf backup: it does not start with its manifest.' })
  t.same(fs.readdirSync(dataDir), ['operator-token'])
  t.equal(fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8'), 'the old token\n')
})
