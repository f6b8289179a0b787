import type { Readable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import { ZipFile } from 'yazl'
import { nameCandidates } from '../../../shared/files/names.ts'
import type { Queryable } from '../../db/database.ts'
import type { FileStorage } from './storage.ts'

// Folders downloaded as one zip (decision 016). The archive is written as it is sent:
// yazl pulls one stored object at a time, with backpressure, so neither memory nor disk ever holds
// the whole archive; past 4 GiB yazl switches to Zip64 by itself. Entry names are the stored names
// (NFC, `/` between folders, relative to the folder downloaded), flagged UTF-8; names are unique in
// a folder in any letter case, so no two entries collide and the zip unpacks on any system.

export interface ArchiveEntry {
  /** Relative to the archive's root; a folder's ends without "/" (yazl adds it). */
  path: string
  type: 'file' | 'folder'
  size: number
  mimeType: string | null
  updatedAt: Date
  storageKey: string | null
}

interface EntryRow {
  id: string
  parent_id: string | null
  type: 'file' | 'folder'
  name: string
  size: number | string
  mime_type: string | null
  storage_key: string | null
  updated_at: Date | string
}

/**
 * Types whose bytes are compressed already (images, audio, video, archives, office files that are
 * zips, PDFs): deflating them again costs CPU for nothing, so they are stored as they are.
 * Everything else (text, source, unknown binaries) is deflated.
 */
const ALREADY_COMPRESSED = [
  /^image\/(png|jpeg|gif|webp|avif|heic)$/,
  /^(audio|video)\//,
  /^application\/(zip|gzip|x-bzip2|x-xz|x-7z-compressed|vnd\.rar|epub\+zip|pdf|vnd\.android\.package-archive|x-apple-diskimage|vnd\.debian\.binary-package|x-rpm)$/,
  /^application\/vnd\.(openxmlformats-officedocument|oasis\.opendocument)\./,
]

export function isAlreadyCompressed(mimeType: string | null): boolean {
  return mimeType !== null && ALREADY_COMPRESSED.some((pattern) => pattern.test(mimeType))
}

/**
 * Everything live below `folderId` (not the folder itself), at any depth, as archive entries:
 * parents before their children. Items in the trash, and everything below them, are left out;
 * so are writes not finished yet.
 */
export async function folderEntries(q: Queryable, userId: string, folderId: string): Promise<ArchiveEntry[]> {
  const { rows } = await q.query<EntryRow>(
    `WITH RECURSIVE tree AS (
       SELECT id, parent_id, type, name, size, mime_type, storage_key, updated_at FROM api.file_items
       WHERE parent_id = $1 AND user_id = $2 AND trashed_at IS NULL AND state = 'ready'
       UNION ALL
       SELECT c.id, c.parent_id, c.type, c.name, c.size, c.mime_type, c.storage_key, c.updated_at FROM api.file_items c JOIN tree t ON c.parent_id = t.id
       WHERE c.user_id = $2 AND c.trashed_at IS NULL AND c.state = 'ready'
     )
     SELECT * FROM tree`,
    [folderId, userId],
  )
  const byId = new Map(rows.map((row) => [row.id, row]))
  const pathOf = (row: EntryRow): string => {
    const parent = row.parent_id === folderId || row.parent_id === null ? undefined : byId.get(row.parent_id)
    return parent ? `${pathOf(parent)}/${row.name}` : row.name
  }
  return rows
    .map((row) => ({
      path: pathOf(row),
      type: row.type,
      size: Number(row.size),
      mimeType: row.mime_type,
      updatedAt: new Date(row.updated_at),
      storageKey: row.storage_key,
    }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** A live folder of this user, named, with what is in it; null when `folderId` is no such folder. */
export async function folderArchive(q: Queryable, userId: string, folderId: string): Promise<{ name: string; entries: ArchiveEntry[] } | null> {
  const { rows } = await q.query<{ name: string }>(
    `SELECT name FROM api.file_items WHERE id = $1 AND user_id = $2 AND type = 'folder' AND trashed_at IS NULL AND state = 'ready'`,
    [folderId, userId],
  )
  if (!rows[0]) return null
  return { name: rows[0].name, entries: await folderEntries(q, userId, folderId) }
}

/**
 * Several live items of one user (a selection): each at the archive's root under its own name —
 * made unique ("name (2).ext") should two come from different folders — with, for a folder,
 * everything in it. Null when one of them is not a live item of this user.
 */
export async function selectionEntries(q: Queryable, userId: string, ids: string[]): Promise<ArchiveEntry[] | null> {
  const { rows } = await q.query<EntryRow>(
    `SELECT id, parent_id, type, name, size, mime_type, storage_key, updated_at FROM api.file_items
     WHERE id = ANY($1::text[]) AND user_id = $2 AND trashed_at IS NULL AND state = 'ready'`,
    [ids, userId],
  )
  if (rows.length !== new Set(ids).size) return null
  const taken = new Set<string>()
  const entries: ArchiveEntry[] = []
  for (const id of new Set(ids)) {
    const row = rows.find((candidate) => candidate.id === id)!
    let name = row.name
    for (const candidate of nameCandidates(row.name, row.type === 'folder')) {
      name = candidate
      if (!taken.has(candidate.toLowerCase())) break
    }
    taken.add(name.toLowerCase())
    entries.push({ path: name, type: row.type, size: Number(row.size), mimeType: row.mime_type, updatedAt: new Date(row.updated_at), storageKey: row.storage_key })
    if (row.type === 'folder') {
      for (const inner of await folderEntries(q, userId, row.id)) entries.push({ ...inner, path: `${name}/${inner.path}` })
    }
  }
  return entries
}

/**
 * The zip of `entries`, written as it is read. A stored object that is missing or fails part-way
 * ends the archive at once with an error (logged): the response is cut off, which a client sees
 * as a failed download, rather than hanging or ending in a zip that silently lacks a file. A
 * client that goes away stops the reading of the object under way.
 */
export function zipStream(entries: ArchiveEntry[], storage: FileStorage, log: FastifyBaseLogger): Readable {
  const zip = new ZipFile()
  const output = zip.outputStream as Readable
  let current: Readable | undefined
  let failed = false
  const fail = (err: unknown, path: string) => {
    if (failed) return
    failed = true
    log.error({ err, event: 'files-zip-failed', entry: path }, 'a stored object could not be read while writing a zip; the download was cut off')
    current?.destroy()
    output.destroy(err instanceof Error ? err : new Error(String(err)))
  }
  output.on('close', () => current?.destroy())
  for (const entry of entries) {
    if (entry.type === 'folder') {
      zip.addEmptyDirectory(entry.path, { mtime: entry.updatedAt })
      continue
    }
    const compress = !isAlreadyCompressed(entry.mimeType)
    zip.addReadStreamLazy(entry.path, { mtime: entry.updatedAt, size: entry.size, compress }, (done) => {
      if (failed) return
      storage.get(entry.storageKey!).then(
        (body) => {
          current = body
          // yazl pipes the object without listening for its errors; a read that fails part-way
          // would otherwise leave the archive waiting for bytes that never come.
          body.once('error', (err) => fail(err, entry.path))
          done(null, body)
        },
        (err: unknown) => fail(err, entry.path),
      )
    })
  }
  // yazl's own errors (a stored object shorter or longer than its row says).
  zip.on('error', (err: unknown) => fail(err, '(archive)'))
  zip.end()
  return output
}
