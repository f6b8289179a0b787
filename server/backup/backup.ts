import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import type { Database } from '../db/database.ts'
import { writeArchive, type ArchiveEntry } from './archive.ts'

// A backup of the embedded default (decision 020): one gzip'd tar holding a manifest,
// the PGlite data folder as PGlite dumps it, the drive's committed objects and the secrets kept
// under DATA_DIR. It is made by the process that has the database open — the running API, or the
// `npm run db` command when nothing runs — since PGlite is one process's database.

export const BACKUP_KIND = 'softshelf-backup'
/** The archive layout's version; a restore refuses a newer one. */
export const BACKUP_FORMAT = 1
export const MANIFEST_ENTRY = 'softshelf-backup.json'
export const DATABASE_ENTRY = 'database.tar'
export const FILES_PREFIX = 'files/'
export const SECRETS_PREFIX = 'secrets/'
/**
 * The secrets embedded mode keeps as files under DATA_DIR (server/operator-token.ts). Without the
 * auth core's secret the signing keys in the database cannot be decrypted: a backup carries it.
 */
export const SECRET_FILES = ['authcore-secret', 'authcore-api-key', 'operator-token'] as const

export interface BackupManifest {
  kind: typeof BACKUP_KIND
  format: number
  createdAt: string
  /** The app's version (package version + build id) that made it. */
  appVersion: string
  database: { folder: string; bytes: number }
  /** The drive's objects: in the archive, or kept in an S3 bucket and not in it. */
  files: { storage: 'disk'; count: number; bytes: number } | { storage: 's3' }
  /** Which of SECRET_FILES the archive holds (one given by the environment instead is not a file). */
  secrets: string[]
}

/** The backup is for the embedded database; PostgreSQL is backed up with pg_dump. */
export class BackupNotEmbeddedError extends Error {
  constructor() {
    super('Only the embedded database (PGlite) is backed up this way; for PostgreSQL use pg_dump.')
    this.name = 'BackupNotEmbeddedError'
  }
}

export interface BackupSource {
  db: Database
  dataDir: string
  /** The PGlite folder under DATA_DIR ('pglite' for `npm start`), restored under the same name. */
  databaseFolder: string
  /** The drive's folder (DATA_DIR/files), or null when the drive is an S3 bucket. */
  filesRoot: string | null
  appVersion: string
  now?: () => Date
}

/** Links (or, across file systems, copies) every file under `from` into `to`; their relative paths and sizes. */
async function linkTree(from: string, to: string): Promise<Array<{ name: string; size: number }>> {
  const found: Array<{ name: string; size: number }> = []
  const walk = async (relative: string): Promise<void> => {
    let entries: fs.Dirent[]
    try {
      entries = await fsp.readdir(path.join(from, relative), { withFileTypes: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const name = relative ? `${relative}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        await fsp.mkdir(path.join(to, name), { recursive: true, mode: 0o700 })
        await walk(name)
      } else if (entry.isFile()) {
        try {
          await fsp.link(path.join(from, name), path.join(to, name))
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code
          if (code === 'ENOENT') continue
          if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw error
          await fsp.copyFile(path.join(from, name), path.join(to, name))
        }
        found.push({ name, size: (await fsp.stat(path.join(to, name))).size })
      }
    }
  }
  await walk('')
  return found
}

async function readSecrets(dataDir: string): Promise<Array<{ name: string; bytes: Buffer }>> {
  const secrets = []
  for (const name of SECRET_FILES) {
    try {
      secrets.push({ name, bytes: await fsp.readFile(path.join(dataDir, name)) })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return secrets
}

/**
 * Takes a backup and answers it as a gzip'd tar stream, with its manifest. The database is dumped
 * in one quiet moment (no transaction open, Database.dump), and in the same moment the drive's
 * committed objects are hard-linked into a folder of their own: objects are never changed once
 * committed, only removed, and a removal comes after the row naming it is gone, so every object
 * the dumped rows name is in the archive even if it is deleted while the archive streams. The
 * folder goes when the stream ends, however it ends.
 */
export async function createBackup(source: BackupSource): Promise<{ manifest: BackupManifest; stream: Readable }> {
  const { db, dataDir } = source
  if (!db.dump) throw new BackupNotEmbeddedError()
  await fsp.mkdir(dataDir, { recursive: true, mode: 0o700 })
  const staging = await fsp.mkdtemp(path.join(dataDir, '.backup-'))
  const cleanup = () => fsp.rm(staging, { recursive: true, force: true })
  try {
    const filesRoot = source.filesRoot
    let objects: Array<{ name: string; size: number }> = []
    const dump = await db.dump(async () => {
      if (filesRoot) objects = await linkTree(path.join(filesRoot, 'objects'), path.join(staging, 'objects'))
    })
    const database = new Uint8Array(await dump.arrayBuffer())
    const secrets = await readSecrets(dataDir)
    const manifest: BackupManifest = {
      kind: BACKUP_KIND,
      format: BACKUP_FORMAT,
      createdAt: (source.now?.() ?? new Date()).toISOString(),
      appVersion: source.appVersion,
      database: { folder: source.databaseFolder, bytes: database.length },
      files: filesRoot ? { storage: 'disk', count: objects.length, bytes: objects.reduce((sum, object) => sum + object.size, 0) } : { storage: 's3' },
      secrets: secrets.map((secret) => secret.name),
    }
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
    const entries: ArchiveEntry[] = [
      { name: MANIFEST_ENTRY, size: manifestBytes.length, body: manifestBytes },
      ...secrets.map((secret) => ({ name: `${SECRETS_PREFIX}${secret.name}`, size: secret.bytes.length, body: secret.bytes })),
      { name: DATABASE_ENTRY, size: database.length, body: database },
      ...objects.map((object) => ({
        name: `${FILES_PREFIX}objects/${object.name}`,
        size: object.size,
        body: () => fs.createReadStream(path.join(staging, 'objects', object.name)),
      })),
    ]
    const stream = writeArchive(entries)
    stream.once('close', () => void cleanup())
    return { manifest, stream }
  } catch (error) {
    await cleanup()
    throw error
  }
}
