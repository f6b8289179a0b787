import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { openPglite } from '../db/pglite.ts'
import { ArchiveError, readArchive, type ReadEntry } from './archive.ts'
import { BACKUP_FORMAT, BACKUP_KIND, DATABASE_ENTRY, FILES_PREFIX, MANIFEST_ENTRY, SECRET_FILES, SECRETS_PREFIX, type BackupManifest } from './backup.ts'

// Restoring a backup made by createBackup into DATA_DIR (decision 020). Run only while the app is
// stopped. Everything is unpacked and the database opened in a folder of its own first; only when
// all of it checked out does anything under DATA_DIR change, by renames — and what was there is
// moved aside, never deleted.

/** DATA_DIR already holds what the backup would replace, and --force was not given. */
export class RestoreRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RestoreRefusedError'
  }
}

export interface RestoreOptions {
  dataDir: string
  /** Move what DATA_DIR holds aside (to DATA_DIR/before-restore-<time>) instead of refusing. */
  force?: boolean
  now?: () => Date
}

export interface RestoreResult {
  manifest: BackupManifest
  /** Where what DATA_DIR held was moved, when it held something. */
  movedAside: string | undefined
}

const FOLDER = /^[A-Za-z0-9_-]+$/

function parseManifest(bytes: Buffer): BackupManifest {
  let manifest: Partial<BackupManifest>
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as Partial<BackupManifest>
  } catch {
    throw new ArchiveError('The backup file is damaged: its manifest is not JSON.')
  }
  if (manifest.kind !== BACKUP_KIND) throw new ArchiveError('This is not a Softshelf backup: its manifest does not say so.')
  if (typeof manifest.format !== 'number' || manifest.format > BACKUP_FORMAT) {
    throw new ArchiveError(`This backup has format ${String(manifest.format)}, newer than this version of Softshelf reads (${BACKUP_FORMAT}): restore it with the version that made it (${String(manifest.appVersion)}) or a later one.`)
  }
  if (!manifest.database || typeof manifest.database.folder !== 'string' || !FOLDER.test(manifest.database.folder)) {
    throw new ArchiveError('The backup file is damaged: its manifest names no database folder.')
  }
  if (!manifest.files || !Array.isArray(manifest.secrets)) throw new ArchiveError('The backup file is damaged: its manifest is incomplete.')
  return manifest as BackupManifest
}

async function exists(file: string): Promise<boolean> {
  return fsp.access(file).then(
    () => true,
    () => false,
  )
}

async function writeEntry(entry: ReadEntry, file: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  await pipeline(entry.chunks(), fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }))
}

interface Unpacked {
  manifest: BackupManifest
  /** The database's dump, in memory: PGlite loads it from a blob. */
  database: Buffer<ArrayBuffer> | undefined
  /** The drive's files written to the staging folder. */
  files: { count: number; bytes: number }
  /** The secrets written to the staging folder, by name. */
  secrets: string[]
  /** What of the backup's targets DATA_DIR already holds. */
  present: string[]
}

/** What DATA_DIR already holds of what the backup restores; refused unless `force`. */
async function presentTargets(manifest: BackupManifest, options: RestoreOptions): Promise<string[]> {
  const present: string[] = []
  for (const target of [manifest.database.folder, 'files', ...SECRET_FILES]) if (await exists(path.join(options.dataDir, target))) present.push(target)
  if (present.length > 0 && !options.force) {
    throw new RestoreRefusedError(
      `${options.dataDir} already holds ${present.join(', ')}. Restore into an empty DATA_DIR, or add --force to move what is there aside (into ${path.join(options.dataDir, 'before-restore-<time>')}) first.`,
    )
  }
  return present
}

/** Reads the archive: the manifest first (and the refusal, before the long part), then the database, the drive's files and the secrets into `staging`. */
async function unpack(input: Readable, staging: string, options: RestoreOptions): Promise<Unpacked> {
  let unpacked: Unpacked | undefined
  for await (const entry of readArchive(input)) {
    if (!unpacked) {
      if (entry.name !== MANIFEST_ENTRY) throw new ArchiveError('This is not a Softshelf backup: it does not start with its manifest.')
      const manifest = parseManifest(await entry.bytes())
      unpacked = { manifest, database: undefined, files: { count: 0, bytes: 0 }, secrets: [], present: await presentTargets(manifest, options) }
      continue
    }
    const { manifest, files, secrets } = unpacked
    const secret = entry.name.startsWith(SECRETS_PREFIX) ? entry.name.slice(SECRETS_PREFIX.length) : undefined
    if (entry.name === DATABASE_ENTRY && !unpacked.database) unpacked.database = await entry.bytes()
    else if (entry.name.startsWith(`${FILES_PREFIX}objects/`) && manifest.files.storage === 'disk') {
      await writeEntry(entry, path.join(staging, entry.name))
      unpacked.files = { count: files.count + 1, bytes: files.bytes + entry.size }
    } else if (secret !== undefined && (SECRET_FILES as readonly string[]).includes(secret) && !secrets.includes(secret)) {
      await writeEntry(entry, path.join(staging, entry.name))
      secrets.push(secret)
    } else throw new ArchiveError(`This is not a Softshelf backup of format ${BACKUP_FORMAT}: it holds "${entry.name}".`)
  }
  if (!unpacked) throw new ArchiveError('This is not a Softshelf backup: it is empty.')
  return unpacked
}

/** Everything the manifest promises is there, and the database opens: else nothing under DATA_DIR is touched. Returns the staged database's folder. */
async function verify(unpacked: Unpacked, staging: string): Promise<string> {
  const { manifest, database, files, secrets } = unpacked
  if (!database || database.length !== manifest.database.bytes) throw new ArchiveError('The backup file is damaged: its database is missing or not the size its manifest says.')
  if (manifest.files.storage === 'disk' && (files.count !== manifest.files.count || files.bytes !== manifest.files.bytes)) {
    throw new ArchiveError(`The backup file is damaged: it holds ${files.count} drive files (${files.bytes} bytes), its manifest says ${manifest.files.count} (${manifest.files.bytes} bytes).`)
  }
  if ([...secrets].sort().join() !== [...manifest.secrets].sort().join()) throw new ArchiveError('The backup file is damaged: its secrets are not the ones its manifest lists.')
  // PGlite recreates the folder from its dump and opens it: a dump it cannot use fails here.
  const databaseDir = path.join(staging, 'database')
  const db = await openPglite({ dataDir: databaseDir, loadDataDir: new Blob([database], { type: 'application/x-tar' }) })
  try {
    await db.query('SELECT 1')
  } finally {
    await db.close()
  }
  await fsp.chmod(databaseDir, 0o700)
  return databaseDir
}

/** Moves what DATA_DIR held aside (when forced), then the staged database, files and secrets in. Where it was moved. */
async function swapIn(unpacked: Unpacked, databaseDir: string, staging: string, options: RestoreOptions): Promise<string | undefined> {
  const { manifest, present, secrets } = unpacked
  const { dataDir } = options
  let movedAside: string | undefined
  if (present.length > 0) {
    movedAside = path.join(dataDir, `before-restore-${(options.now?.() ?? new Date()).toISOString().replace(/[:.]/g, '-')}`)
    await fsp.mkdir(movedAside, { mode: 0o700 })
    for (const target of present) await fsp.rename(path.join(dataDir, target), path.join(movedAside, target))
  }
  await fsp.rename(databaseDir, path.join(dataDir, manifest.database.folder))
  if (manifest.files.storage === 'disk') {
    await fsp.mkdir(path.join(staging, 'files'), { recursive: true, mode: 0o700 })
    await fsp.rename(path.join(staging, 'files'), path.join(dataDir, 'files'))
  }
  for (const name of secrets) await fsp.rename(path.join(staging, 'secrets', name), path.join(dataDir, name))
  return movedAside
}

/**
 * Restores a backup into DATA_DIR: the database folder it names, DATA_DIR/files and the secrets.
 * Refuses (RestoreRefusedError) when any of them is already there unless `force`; a damaged,
 * truncated or foreign file is refused (ArchiveError) before anything under DATA_DIR changes.
 */
export async function restoreBackup(input: Readable, options: RestoreOptions): Promise<RestoreResult> {
  await fsp.mkdir(options.dataDir, { recursive: true, mode: 0o700 })
  const staging = await fsp.mkdtemp(path.join(options.dataDir, '.restore-'))
  try {
    const unpacked = await unpack(input, staging, options)
    const databaseDir = await verify(unpacked, staging)
    return { manifest: unpacked.manifest, movedAside: await swapIn(unpacked, databaseDir, staging, options) }
  } finally {
    await fsp.rm(staging, { recursive: true, force: true })
  }
}
