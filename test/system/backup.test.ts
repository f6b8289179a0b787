import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { root, tempDir } from '../helpers.ts'
import { exited, startApp, tab, until, lastMailLink } from './support.ts'

// Backups, end to end as an operator does it: the built app runs and has a user (signed
// up, verified through the local mailbox, a program in the library, a file in the drive);
// `npm run db -- backup` copies it while it runs; the app stops; `npm run db -- restore` puts the
// copy into a fresh DATA_DIR; the app started there signs the same person in, with their things.
// Needs dist/ (npm test builds it first).

const EMAIL = 'kept@example.com'
const PASSWORD = 'correct horse battery'
const FILE_BYTES = Buffer.from('the bytes of a file in the drive, to find again after the restore\n')

function db(env: NodeJS.ProcessEnv, ...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'db.ts'), ...args], { env, cwd: root, encoding: 'utf8', timeout: 120_000 })
}

t.test('a backup taken while the app runs, restored into a fresh DATA_DIR, signs the same person in', async (t) => {
  const dataDir = tempDir(t)
  const app = await startApp(t, dataDir)

  // A person signs up as the browser would, opens the emailed link, accepts the terms, keeps a program and a file.
  const browser = tab(app.url, app.origin)
  const signUp = await browser.post('/auth/signup', { formFields: [{ id: 'email', value: EMAIL }, { id: 'password', value: PASSWORD }] })
  t.match(await signUp.json(), { status: 'OK' }, 'signed up')
  const token = await until('the verification mail', async () => lastMailLink(dataDir, EMAIL).searchParams.get('token') ?? undefined, 10_000)
  t.match(await (await browser.post('/auth/user/email/verify', { method: 'token', token })).json(), { status: 'OK' }, 'email verified')
  t.equal((await browser.post('/api/user/accept-tos', { isInMailList: false })).status, 200)
  t.match(await (await browser.post('/api/user/program/blender')).json(), { inLibrary: true, librarySize: 1 })
  const tus = { 'tus-resumable': '1.0.0' }
  const creation = await browser.post('/api/files/uploads', undefined, { ...tus, 'upload-length': String(FILE_BYTES.length), 'upload-metadata': `filename ${Buffer.from('kept.txt').toString('base64')}` })
  t.equal(creation.status, 201, 'an upload begins')
  const written = await browser.patch(creation.headers.get('location')!, FILE_BYTES, { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' })
  t.equal(written.status, 204, 'and ends')

  // While it runs: the backup comes from the running API.
  const backupFile = path.join(tempDir(t), 'softshelf.tar.gz')
  const backup = db(app.env, 'backup', backupFile)
  t.equal(backup.status, 0, backup.stderr)
  t.match(backup.stdout, new RegExp(`^Backup of the running app written to ${backupFile.replace(/[.]/g, '\\.')} \\([\\d.]+ MB\\): the database, 1 drive files \\(0\\.0 MB\\), secrets: authcore-secret, authcore-api-key, operator-token\\.`))
  t.equal(fs.statSync(backupFile).mode & 0o777, 0o600, 'the backup is readable by its owner only')
  t.notOk(fs.existsSync(`${backupFile}.partial`))
  t.equal((await fetch(`${app.url}/readyz`)).status, 200, 'the app kept running')

  // Restoring while an app answers on the API's address is refused.
  const freshDir = path.join(tempDir(t), 'restored')
  const refused = db({ ...app.env, DATA_DIR: freshDir }, 'restore', backupFile)
  t.equal(refused.status, 1)
  t.match(refused.stderr, /The app is running \(its API answers at http:\/\/127\.0\.0\.1:\d+\): stop it first, then restore\./)
  t.notOk(fs.existsSync(path.join(freshDir, 'pglite')), 'nothing was restored')
  const postgres = db({ ...app.env, DATABASE_URL: 'postgres://softshelf@127.0.0.1:1/softshelf' }, 'backup', backupFile)
  t.equal(postgres.status, 2, 'with DATABASE_URL the command points at pg_dump')
  t.match(postgres.stderr, /pg_dump -Fc --no-owner "\$DATABASE_URL" > softshelf\.dump/)

  app.child.kill('SIGTERM')
  t.equal(await exited(app.child), 0, 'the app stopped cleanly')

  const restored = db({ ...app.env, DATA_DIR: freshDir }, 'restore', backupFile)
  t.equal(restored.status, 0, restored.stderr)
  t.match(restored.stdout, /^Restored the backup of \d{4}-\d\d-\d\dT[\d:.]+Z \(Softshelf [^)]+\) into .*restored: the database, 1 drive files, secrets: authcore-secret, authcore-api-key, operator-token\./)
  const again = db({ ...app.env, DATA_DIR: freshDir }, 'restore', backupFile)
  t.equal(again.status, 1, 'a second restore over it is refused without --force')
  t.match(again.stderr, /already holds pglite, files, authcore-secret, authcore-api-key, operator-token\. .*add --force/)

  // The restored copy: the same person signs in with the same password and finds their things.
  const copy = await startApp(t, freshDir)
  const person = tab(copy.url, copy.origin)
  const signIn = await person.post('/auth/signin', { formFields: [{ id: 'email', value: EMAIL }, { id: 'password', value: PASSWORD }] })
  t.match(await signIn.json(), { status: 'OK', user: { emails: [EMAIL] } }, 'signed in on the restored copy')
  const user = await person.get('/api/user')
  t.equal(user.status, 200, 'a complete session: verified and terms accepted, as before')
  t.match(await user.json(), { email: EMAIL, librarySize: 1, isTosAccepted: true })
  t.same(await (await person.get('/api/user/program-ids')).json(), { programIds: ['blender'], ownedIds: [] })
  const files = (await (await person.get('/api/files')).json()) as { items: Array<{ id: string; name: string }> }
  t.match(files.items, [{ name: 'kept.txt' }])
  const content = await person.get(`/api/files/${files.items[0]!.id}/content`)
  t.equal(content.status, 200)
  t.ok(Buffer.from(await content.arrayBuffer()).equals(FILE_BYTES), 'the drive file has its bytes')
  const wrong = await tab(copy.url, copy.origin).post('/auth/signin', { formFields: [{ id: 'email', value: EMAIL }, { id: 'password', value: 'not the password' }] })
  t.match(await wrong.json(), { status: 'WRONG_CREDENTIALS_ERROR' }, 'and only with the password')

  copy.child.kill('SIGTERM')
  t.equal(await exited(copy.child), 0)

  // With nothing running, the command opens the database itself.
  const offline = db({ ...copy.env }, 'backup', path.join(freshDir, 'offline.tar.gz'))
  t.equal(offline.status, 0, offline.stderr)
  t.match(offline.stdout, /^Backup of .*restored \(the app is not running\) written to .*offline\.tar\.gz/)
})
