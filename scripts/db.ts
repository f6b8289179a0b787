// Operator command: back up or restore the embedded default (decision 020).
//   npm run db -- backup <file>             while the app runs (asks the API) or not (opens DATA_DIR itself)
//   npm run db -- restore <file> [--force]  with the app stopped, into DATA_DIR
// A backup is one gzip'd tar: the PGlite database, the drive's files under DATA_DIR/files and the
// secrets kept under DATA_DIR. With DATABASE_URL the database is PostgreSQL's: pg_dump's business.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { readArchive } from '../server/backup/archive.ts'
import { createBackup, MANIFEST_ENTRY, SECRET_FILES, type BackupManifest } from '../server/backup/backup.ts'
import { restoreBackup, RestoreRefusedError } from '../server/backup/restore.ts'
import { readBuildInfo } from '../server/build-info.ts'
import type { Config } from '../server/config.ts'
import { openPglite } from '../server/db/pglite.ts'
import { apiBase, fail, operatorConfig, operatorToken } from './operator.ts'

const USAGE = 'Usage: npm run db -- backup <file> | restore <file> [--force]'

/** The README's "Backups" section says the same. */
const POSTGRES_HELP = `DATABASE_URL is set: the database is PostgreSQL's, and PostgreSQL's own tools back it up.
  backup:  pg_dump -Fc --no-owner "$DATABASE_URL" > softshelf.dump
  restore: pg_restore --clean --if-exists --no-owner -d "$DATABASE_URL" softshelf.dump   (the app stopped)
Keep AUTH_CORE_SECRET with the dump (the signing keys in the database are encrypted with it), and
the drive's bucket (S3_URL) backed up by its provider.`

/** The folder `npm start` (role all) keeps PGlite in. */
const DATABASE_FOLDER = 'pglite'

function isRefused(error: unknown): boolean {
  return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED'
}

/** Whether something answers on the API's address (the app is running). */
async function apiAnswers(config: Config): Promise<boolean> {
  try {
    await fetch(`${apiBase(config)}/healthz`, { signal: AbortSignal.timeout(5_000) })
    return true
  } catch (error) {
    if (isRefused(error)) return false
    throw error
  }
}

/** Saves the running API's backup to `partial`; false when no API listens (the caller then opens the database). */
async function backupFromApi(config: Config, partial: string): Promise<boolean> {
  const token = operatorToken(config)
  if (!token) {
    if (await apiAnswers(config)) fail('The app is running, but there is no operator token: set OPERATOR_TOKEN, or run this on the machine whose DATA_DIR the app uses.')
    return false
  }
  // The answer starts once the database is dumped; the body then takes as long as it takes.
  const headers = new AbortController()
  const bound = setTimeout(() => headers.abort(new Error('the API did not start answering within 120 s')), 120_000)
  let response: Response
  try {
    response = await fetch(`${apiBase(config)}/internal/backup`, { headers: { authorization: `Bearer ${token}` }, signal: headers.signal })
  } catch (error) {
    if (isRefused(error)) return false
    throw error
  } finally {
    clearTimeout(bound)
  }
  if (!response.ok || !response.body) {
    const answer = (await response.json().catch(() => ({}))) as { message?: string }
    fail(`The API refused: ${answer.message ?? `HTTP ${response.status}`}`)
  }
  await pipeline(Readable.fromWeb(response.body as WebReadableStream), fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 }))
  return true
}

/** Nothing runs: this process opens the database (PGlite is one process's) and makes the archive. */
async function backupHere(config: Config, partial: string): Promise<void> {
  const databaseDir = path.join(config.dataDir, DATABASE_FOLDER)
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) fail(`There is no database at ${databaseDir}: nothing to back up (is DATA_DIR right?).`)
  const db = await openPglite({ dataDir: databaseDir })
  try {
    const { stream } = await createBackup({
      db,
      dataDir: config.dataDir,
      databaseFolder: DATABASE_FOLDER,
      filesRoot: config.files.s3 ? null : path.join(config.dataDir, 'files'),
      appVersion: readBuildInfo(config.buildId).version,
    })
    await pipeline(stream, fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 }))
  } finally {
    await db.close()
  }
}

/** Reads the written file through, as a restore would: it must be whole before it gets its name. */
async function verify(file: string): Promise<BackupManifest> {
  let manifest: BackupManifest | undefined
  for await (const entry of readArchive(fs.createReadStream(file))) {
    if (entry.name === MANIFEST_ENTRY) manifest = JSON.parse((await entry.bytes()).toString('utf8')) as BackupManifest
  }
  if (!manifest) throw new Error('the archive has no manifest')
  return manifest
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

async function backup(config: Config, file: string): Promise<void> {
  const target = path.resolve(file)
  const partial = `${target}.partial`
  await fsp.rm(partial, { force: true })
  let source = 'the running app'
  try {
    if (!(await backupFromApi(config, partial))) {
      source = `${config.dataDir} (the app is not running)`
      await backupHere(config, partial)
    }
    const manifest = await verify(partial)
    await fsp.rename(partial, target)
    const files = manifest.files.storage === 'disk' ? `${manifest.files.count} drive files (${megabytes(manifest.files.bytes)})` : 'no drive files (they are in the S3 bucket)'
    console.log(`Backup of ${source} written to ${target} (${megabytes(fs.statSync(target).size)}): the database, ${files}, secrets: ${manifest.secrets.join(', ') || 'none'}.`)
    const missing = SECRET_FILES.filter((name) => !manifest.secrets.includes(name))
    if (missing.includes('authcore-secret')) console.warn('Note: the auth core\'s secret is not a file under DATA_DIR here (AUTH_CORE_SECRET is set): keep it with the backup, the signing keys cannot be read without it.')
  } catch (error) {
    await fsp.rm(partial, { force: true })
    throw error
  }
}

async function restore(config: Config, file: string, force: boolean): Promise<void> {
  const source = path.resolve(file)
  if (!fs.existsSync(source)) fail(`There is no file ${source}.`)
  if (await apiAnswers(config)) fail(`The app is running (its API answers at ${apiBase(config)}): stop it first, then restore. To copy a running app, use "npm run db -- backup <file>".`)
  try {
    const { manifest, movedAside } = await restoreBackup(fs.createReadStream(source), { dataDir: config.dataDir, force })
    if (movedAside) console.log(`What ${config.dataDir} held was moved to ${movedAside}.`)
    const files = manifest.files.storage === 'disk' ? `${manifest.files.count} drive files` : 'no drive files (the backup\'s are in its S3 bucket)'
    console.log(`Restored the backup of ${manifest.createdAt} (Softshelf ${manifest.appVersion}) into ${config.dataDir}: the database, ${files}, secrets: ${manifest.secrets.join(', ') || 'none'}. Start the app with this DATA_DIR.`)
  } catch (error) {
    if (error instanceof RestoreRefusedError) fail(error.message)
    throw error
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const force = args.includes('--force')
  const [action, file, ...rest] = args.filter((arg) => arg !== '--force')
  if ((action !== 'backup' && action !== 'restore') || !file || rest.length > 0 || (force && action !== 'restore')) fail(USAGE, 2)
  // Before the configuration is read: with PostgreSQL it asks for settings this command needs none of.
  if (process.env.DATABASE_URL) fail(POSTGRES_HELP, 2)
  const config = operatorConfig()
  if (action === 'backup') await backup(config, file)
  else await restore(config, file, force)
}

main().catch((error: unknown) => fail(`db failed: ${error instanceof Error ? error.message : String(error)}`))
