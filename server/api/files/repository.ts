import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import { FILES_TRASH_RETENTION_DAYS } from '../../../shared/constants.ts'
import { checkFileName, nameCandidates } from '../../../shared/files/names.ts'
import type { FileItem, FolderInfo, TrashItem, Usage } from '../../../shared/files/files.ts'
import type { Database, Queryable } from '../../db/database.ts'
import { FilesMoveIntoItself, FilesNameInvalid, FilesNameTaken, FilesNotAFolder, FilesNotFound, FilesQuotaExceeded, FilesTooLarge, FilesUploadNotFound } from './errors.ts'
import { mimeTypeOf } from './mime-types.ts'
import { ObjectMissingError, ObjectTooLargeError, OffsetMismatchError, type FileStorage } from './storage.ts'

// The drive's metadata over `api.file_items`, and the one place that pairs rows with
// stored objects. Three rules hold everywhere:
// - Every change to a user's drive runs in a transaction that first takes that user's advisory
//   lock, so two requests cannot both take the last free bytes, the same name, or move two
//   folders into each other.
// - Nobody sees a file before its bytes are in place: the row is written 'pending' (counted
//   against the quota, holding its name), the object committed, then the row made 'ready'.
// - Rows go before objects: a crash between leaves an object without a row, which nobody sees
//   and the sweep removes — never an item whose bytes are gone.
// One file over 500 lines on purpose: those rules hold only if every statement that pairs rows with
// stored objects is written under them, so they are all here (folders, files, trash, quota, the
// sweep, uploads' state); the routes, shares, downloads and uploads' protocol live beside it.

export interface FilesLimits {
  quotaBytes: number
  maxFileBytes: number
}

export type { FileItem, FolderInfo, TrashItem, Usage }

export interface StoredFile {
  item: FileItem
  storageKey: string
}

export interface SweepReport {
  purged: number
  pendingRemoved: number
  tempRemoved: number
  orphansRemoved: number
  uploadsExpired: number
}

/** Where a resumable upload's file goes, checked (upload-metadata.ts). */
export interface UploadTarget {
  /** The file's name. */
  name: string
  /** The folder given at creation; null: the root. */
  parentId: string | null
  /** Folders to find or make under it, top first (relativePath without the file's own name). */
  folders: string[]
  /** A $RECYCLE.BIN upload: its bytes are dropped, nothing is stored, counted or made. */
  sink: boolean
}

/** A resumable upload's state (api.file_uploads), as the tus store needs it. */
export interface UploadState {
  id: string
  userId: string
  length: number
  received: number
  metadata: Record<string, string | null>
  sink: boolean
  tempKey: string | null
  state: 'receiving' | 'committing' | 'finished'
  /** The file made when it finished. */
  fileId: string | null
  expiresAt: number
}

interface UploadRow {
  id: string
  user_id: string
  length: number | string | bigint
  received: number | string | bigint
  metadata: Record<string, string | null> | string
  parent_id: string | null
  folders: string[] | string
  name: string
  sink: boolean
  temp_key: string | null
  state: UploadState['state']
  file_id: string | null
  storage_key: string | null
  expires_at: Date | string
}

const UPLOAD_COLUMNS = 'id, user_id, length, received, metadata, parent_id, folders, name, sink, temp_key, state, file_id, storage_key, expires_at'

function json<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value
}

function toUpload(row: UploadRow): UploadState {
  return {
    id: row.id,
    userId: row.user_id,
    length: Number(row.length),
    received: Number(row.received),
    metadata: json(row.metadata),
    sink: row.sink,
    tempKey: row.temp_key,
    state: row.state,
    fileId: row.file_id,
    expiresAt: new Date(row.expires_at).getTime(),
  }
}

interface Row {
  id: string
  parent_id: string | null
  type: 'file' | 'folder'
  name: string
  size: number | string | bigint
  mime_type: string | null
  storage_key: string | null
  updated_at: Date | string
  trashed_at: Date | string | null
}

const COLUMNS = 'id, parent_id, type, name, size, mime_type, storage_key, updated_at, trashed_at'
const TRASH_RETENTION_MS = FILES_TRASH_RETENTION_DAYS * 24 * 60 * 60_000
/** A write (temporary object, pending row) untouched this long was abandoned by a crash. */
export const STALE_WRITE_MS = 60 * 60_000
/** Advisory lock namespace of the drive: (this, hashtext(user id)) is one user's lock. */
const LOCK_NAMESPACE = 1_200_012
/** An unfinished upload untouched this long expires (tus expiration; Upload-Expires); a finished one is remembered as long. */
export const UPLOAD_EXPIRY_MS = 24 * 60 * 60_000
/** Names tried at once when the wanted one is taken. */
const CANDIDATE_BATCH = 32

function iso(value: Date | string): string {
  return new Date(value).toISOString()
}

function toItem(row: Row, folderSize?: number): FileItem {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    size: row.type === 'folder' ? (folderSize ?? 0) : Number(row.size),
    mimeType: row.mime_type,
    updatedAt: iso(row.updated_at),
  }
}

function newItemId(): string {
  return randomBytes(16).toString('base64url')
}

function checkedName(input: string): string {
  const checked = checkFileName(input)
  if ('problem' in checked) throw new FilesNameInvalid(checked.message)
  return checked.name
}

function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

export class FilesRepository {
  constructor(
    private readonly db: Database,
    readonly storage: FileStorage,
    readonly limits: FilesLimits,
    private readonly now: () => number,
    private readonly log: FastifyBaseLogger,
  ) {}

  private stamp(): string {
    return new Date(this.now()).toISOString()
  }

  /** A transaction holding the user's drive lock. */
  private locked<T>(userId: string, work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_NAMESPACE, userId])
      return work(tx)
    })
  }

  /**
   * Bytes counted against the quota: every row (live, trash, pending) and the declared length of
   * every upload still receiving — reserved at its creation, so two uploads cannot both take the
   * last free bytes. A finishing upload swaps its reservation for its file's row in one transaction.
   */
  private async usedBytes(q: Queryable, userId: string): Promise<number> {
    const { rows } = await q.query<{ used: number | string | null }>(
      `SELECT (SELECT coalesce(sum(size), 0) FROM api.file_items WHERE user_id = $1)
            + (SELECT coalesce(sum(length), 0) FROM api.file_uploads WHERE user_id = $1 AND state = 'receiving' AND NOT sink) AS used`,
      [userId],
    )
    return Number(rows[0]?.used ?? 0)
  }

  /** Bytes the user's drive holds, the trash, writes and uploads under way included, against the quota. */
  async usage(userId: string): Promise<Usage> {
    return { used: await this.usedBytes(this.db, userId), quota: this.limits.quotaBytes }
  }

  /** A live, visible item of this user, or FILES_NOT_FOUND (another user's item is not found either). */
  private async liveItem(q: Queryable, userId: string, id: string): Promise<Row> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM api.file_items WHERE id = $1 AND user_id = $2 AND trashed_at IS NULL AND state = 'ready'`, [id, userId])
    if (!rows[0]) throw new FilesNotFound()
    return rows[0]
  }

  /** The folder id to put something in (null: the root), checked. */
  private async liveFolder(q: Queryable, userId: string, id: string | null): Promise<string | null> {
    if (id === null) return null
    const folder = await this.liveItem(q, userId, id)
    if (folder.type !== 'folder') throw new FilesNotAFolder()
    return folder.id
  }

  /** The first of `name`, "name (2)", … that no live item in the folder has (any letter case). */
  private async freeName(q: Queryable, userId: string, parentId: string | null, name: string, isFolder: boolean, exceptId = ''): Promise<string> {
    const candidates = nameCandidates(name, isFolder)
    for (;;) {
      const batch = Array.from({ length: CANDIDATE_BATCH }, () => candidates.next().value as string)
      // Compared by the database's lower(), as the unique index compares them.
      const { rows } = await q.query<{ name: string }>(
        `SELECT c.name FROM jsonb_array_elements_text($4::jsonb) WITH ORDINALITY AS c(name, n)
         WHERE NOT EXISTS (SELECT 1 FROM api.file_items i
           WHERE i.user_id = $1 AND coalesce(i.parent_id, '') = $2 AND lower(i.name) = lower(c.name) AND i.trashed_at IS NULL AND i.id <> $3)
         ORDER BY c.n LIMIT 1`,
        [userId, parentId ?? '', exceptId, JSON.stringify(batch)],
      )
      if (rows[0]) return rows[0].name
    }
  }

  /** Folder sizes: the files at any depth under each folder among `folderIds` (live ones only). */
  private async folderSizes(q: Queryable, folderIds: string[]): Promise<Map<string, number>> {
    if (folderIds.length === 0) return new Map()
    const { rows } = await q.query<{ top: string; size: number | string }>(
      `WITH RECURSIVE tree AS (
         SELECT id AS top, id, size FROM api.file_items WHERE id = ANY($1::text[])
         UNION ALL
         SELECT t.top, c.id, c.size FROM api.file_items c JOIN tree t ON c.parent_id = t.id WHERE c.trashed_at IS NULL AND c.state = 'ready'
       )
       SELECT top, coalesce(sum(size), 0) AS size FROM tree GROUP BY top`,
      [folderIds],
    )
    return new Map(rows.map((row) => [row.top, Number(row.size)]))
  }

  /** A folder's contents (null: the root), folders first, then by name. */
  async list(userId: string, folderId: string | null): Promise<{ folder: FolderInfo; items: FileItem[]; usage: Usage }> {
    let folder: FolderInfo = { id: null, name: '', parentId: null, path: [] }
    if (folderId !== null) {
      const row = await this.liveItem(this.db, userId, folderId)
      if (row.type !== 'folder') throw new FilesNotAFolder()
      const { rows: path } = await this.db.query<{ id: string; name: string; depth: number }>(
        `WITH RECURSIVE up AS (
           SELECT id, name, parent_id, 0 AS depth FROM api.file_items WHERE id = $1 AND user_id = $2
           UNION ALL
           SELECT p.id, p.name, p.parent_id, up.depth + 1 FROM api.file_items p JOIN up ON p.id = up.parent_id WHERE p.user_id = $2
         )
         SELECT id, name, depth FROM up ORDER BY depth DESC`,
        [row.id, userId],
      )
      folder = { id: row.id, name: row.name, parentId: row.parent_id, path: path.map(({ id, name }) => ({ id, name })) }
    }
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM api.file_items
       WHERE user_id = $1 AND coalesce(parent_id, '') = $2 AND trashed_at IS NULL AND state = 'ready'
       ORDER BY type = 'file', lower(name), name`,
      [userId, folderId ?? ''],
    )
    const sizes = await this.folderSizes(this.db, rows.filter((row) => row.type === 'folder').map((row) => row.id))
    return { folder, items: rows.map((row) => toItem(row, sizes.get(row.id))), usage: await this.usage(userId) }
  }

  /** A new folder; a name already used there becomes "name (2)". */
  async createFolder(userId: string, parentId: string | null, rawName: string): Promise<FileItem> {
    const wanted = checkedName(rawName)
    return this.locked(userId, async (tx) => {
      const parent = await this.liveFolder(tx, userId, parentId)
      const name = await this.freeName(tx, userId, parent, wanted, true)
      const stamp = this.stamp()
      const { rows } = await tx.query<Row>(
        `INSERT INTO api.file_items (id, user_id, parent_id, type, name, created_at, updated_at)
         VALUES ($1, $2, $3, 'folder', $4, $5, $5) RETURNING ${COLUMNS}`,
        [newItemId(), userId, parent, name, stamp],
      )
      return toItem(rows[0]!, 0)
    })
  }

  /**
   * Renames and/or moves (`parentId` null: to the root). A name the caller gives must be free in
   * the destination (FILES_NAME_TAKEN); an item moved under its own name is made unique there,
   * as a file manager's "keep both" does. A folder cannot go into itself or below itself.
   */
  async update(userId: string, id: string, change: { name?: string; parentId?: string | null }): Promise<FileItem> {
    const wanted = change.name === undefined ? undefined : checkedName(change.name)
    return this.locked(userId, async (tx) => {
      const item = await this.liveItem(tx, userId, id)
      const parent = change.parentId === undefined ? item.parent_id : await this.liveFolder(tx, userId, change.parentId)
      if (item.type === 'folder' && parent !== null && parent !== item.parent_id) {
        const { rows } = await tx.query(
          `WITH RECURSIVE up AS (
             SELECT id, parent_id FROM api.file_items WHERE id = $1
             UNION ALL
             SELECT p.id, p.parent_id FROM api.file_items p JOIN up ON p.id = up.parent_id
           )
           SELECT 1 FROM up WHERE id = $2`,
          [parent, item.id],
        )
        if (rows.length > 0) throw new FilesMoveIntoItself()
      }
      let name = item.name
      if (wanted !== undefined) {
        const free = await this.freeName(tx, userId, parent, wanted, item.type === 'folder', item.id)
        if (free !== wanted) throw new FilesNameTaken(wanted)
        name = wanted
      } else if (parent !== item.parent_id) {
        name = await this.freeName(tx, userId, parent, item.name, item.type === 'folder', item.id)
      }
      // A file's type follows its name, as it was first given by it.
      const mimeType = item.type === 'file' ? mimeTypeOf(name) : null
      const { rows } = await tx.query<Row>(`UPDATE api.file_items SET name = $2, parent_id = $3, mime_type = $4 WHERE id = $1 RETURNING ${COLUMNS}`, [item.id, name, parent, mimeType])
      const sizes = item.type === 'folder' ? await this.folderSizes(tx, [item.id]) : new Map<string, number>()
      return toItem(rows[0]!, sizes.get(item.id))
    })
  }

  /** Moves an item, and everything live below it, to the trash as one group. */
  async trash(userId: string, id: string): Promise<void> {
    await this.locked(userId, async (tx) => {
      const item = await this.liveItem(tx, userId, id)
      await tx.query(
        `WITH RECURSIVE subtree AS (
           SELECT id FROM api.file_items WHERE id = $1
           UNION ALL
           SELECT c.id FROM api.file_items c JOIN subtree s ON c.parent_id = s.id WHERE c.trashed_at IS NULL
         )
         UPDATE api.file_items SET trashed_at = $2, trashed_with = $1 WHERE id IN (SELECT id FROM subtree)`,
        [item.id, this.stamp()],
      )
    })
  }

  /** What the user deleted (one entry per deletion, a folder with what was in it), newest first. */
  async listTrash(userId: string): Promise<{ items: TrashItem[]; usage: Usage }> {
    const { rows } = await this.db.query<Row & { group_size: number | string }>(
      `SELECT ${COLUMNS.split(', ').map((column) => `i.${column}`).join(', ')},
         (SELECT coalesce(sum(g.size), 0) FROM api.file_items g WHERE g.trashed_with = i.id) AS group_size
       FROM api.file_items i
       WHERE i.user_id = $1 AND i.trashed_with = i.id
       ORDER BY i.trashed_at DESC, lower(i.name)`,
      [userId],
    )
    const items = rows.map((row) => {
      const trashedAt = iso(row.trashed_at!)
      return {
        ...toItem(row, Number(row.group_size)),
        trashedAt,
        purgeAt: new Date(Date.parse(trashedAt) + TRASH_RETENTION_MS).toISOString(),
        originalParentId: row.parent_id,
      }
    })
    return { items, usage: await this.usage(userId) }
  }

  /** Brings a deleted item (with its group) back where it was, or to the root when that folder is gone; a taken name becomes "name (2)". */
  async restore(userId: string, id: string): Promise<FileItem> {
    return this.locked(userId, async (tx) => {
      const { rows } = await tx.query<Row>(`SELECT ${COLUMNS} FROM api.file_items WHERE id = $1 AND user_id = $2 AND trashed_with = id`, [id, userId])
      const item = rows[0]
      if (!item) throw new FilesNotFound()
      let parent: string | null = null
      if (item.parent_id !== null) {
        const { rows: live } = await tx.query(`SELECT 1 FROM api.file_items WHERE id = $1 AND user_id = $2 AND type = 'folder' AND trashed_at IS NULL AND state = 'ready'`, [item.parent_id, userId])
        if (live.length > 0) parent = item.parent_id
      }
      const name = await this.freeName(tx, userId, parent, item.name, item.type === 'folder')
      // Named and placed while still in the trash (outside the live-name index), then all of it back.
      await tx.query('UPDATE api.file_items SET name = $2, parent_id = $3 WHERE id = $1', [item.id, name, parent])
      await tx.query('UPDATE api.file_items SET trashed_at = NULL, trashed_with = NULL WHERE trashed_with = $1', [item.id])
      const restored = await this.liveItem(tx, userId, item.id)
      const sizes = restored.type === 'folder' ? await this.folderSizes(tx, [restored.id]) : new Map<string, number>()
      return toItem(restored, sizes.get(restored.id))
    })
  }

  /** Deletes everything in the user's trash for good, stored bytes included; how many items went. */
  async emptyTrash(userId: string): Promise<number> {
    const keys = await this.locked(userId, async (tx) => {
      const { rows } = await tx.query<{ storage_key: string | null }>('DELETE FROM api.file_items WHERE user_id = $1 AND trashed_at IS NOT NULL RETURNING storage_key', [userId])
      return rows.map((row) => row.storage_key)
    })
    await this.deleteObjects(keys)
    return keys.length
  }

  /** Deletes every item of the user and its bytes (account deletion); may be repeated. */
  async removeAllOf(userId: string): Promise<void> {
    const uploads = await this.db.query<{ temp_key: string | null }>('DELETE FROM api.file_uploads WHERE user_id = $1 RETURNING temp_key', [userId])
    for (const { temp_key: tempKey } of uploads.rows) if (tempKey !== null) await this.storage.discard(tempKey).catch(() => {})
    const { rows } = await this.db.query<{ storage_key: string | null }>('DELETE FROM api.file_items WHERE user_id = $1 RETURNING storage_key', [userId])
    await this.deleteObjects(rows.map((row) => row.storage_key))
  }

  /** Stored objects whose rows are gone; a failure leaves an orphan for the sweep, never an error for the caller. */
  private async deleteObjects(keys: Array<string | null>): Promise<void> {
    for (const key of keys) {
      if (key === null) continue
      try {
        await this.storage.delete(key)
      } catch (err) {
        this.log.warn({ err }, 'a stored object could not be deleted; the sweep will remove it')
      }
    }
  }

  /**
   * A new file from a stream (tests and tools call it; resumable uploads end in finishUpload,
   * which shares the last two steps). The bytes go to a temporary object first; then, in one
   * transaction under the user's lock, the quota is checked (the trash and other writes under way
   * count) and a pending row takes the name ("name (2).ext" when taken); then the object is
   * committed and the row made visible. `size`, when known, is checked before any byte is stored
   * and must match the stream.
   */
  async addFile(userId: string, parentId: string | null, rawName: string, body: Readable, size?: number): Promise<FileItem> {
    const wanted = checkedName(rawName)
    const { quotaBytes, maxFileBytes } = this.limits
    if (size !== undefined) {
      if (size > maxFileBytes) throw this.tooLargeError()
      if ((await this.usedBytes(this.db, userId)) + size > quotaBytes) throw this.quotaError()
    }
    const tempKey = this.storage.newTempKey()
    let stored: number
    try {
      stored = (await this.storage.put(tempKey, body, { maxBytes: size ?? maxFileBytes })).size
    } catch (error) {
      if (error instanceof ObjectTooLargeError) {
        throw size !== undefined ? new Error('The body is longer than its declared size') : this.tooLargeError()
      }
      throw error
    }
    const key = this.storage.newKey()
    let row: Row
    try {
      if (size !== undefined && stored !== size) throw new Error('The body is shorter than its declared size')
      row = await this.locked(userId, async (tx) => {
        const parent = await this.liveFolder(tx, userId, parentId)
        if ((await this.usedBytes(tx, userId)) + stored > quotaBytes) throw this.quotaError()
        return this.insertPendingFile(tx, userId, parent, wanted, stored, key)
      })
    } catch (error) {
      await this.storage.discard(tempKey).catch(() => {})
      throw error
    }
    return this.revealFile(row.id, tempKey, key, async () => {
      await this.db.query("DELETE FROM api.file_items WHERE id = $1 AND state = 'pending'", [row.id]).catch(() => {})
      await this.storage.discard(tempKey).catch(() => {})
      await this.storage.delete(key).catch(() => {})
    })
  }

  /** A file's pending row (counted, holding a free name, not yet visible) in `tx`, under the user's lock. */
  private async insertPendingFile(tx: Queryable, userId: string, parent: string | null, wanted: string, size: number, key: string): Promise<Row> {
    const name = await this.freeName(tx, userId, parent, wanted, false)
    const stamp = this.stamp()
    const { rows } = await tx.query<Row>(
      `INSERT INTO api.file_items (id, user_id, parent_id, type, name, size, mime_type, storage_key, state, created_at, updated_at)
       SELECT $1, u.id, $3, 'file', $4, $5, $6, $7, 'pending', $8, $8 FROM api.users u WHERE u.id = $2
       RETURNING ${COLUMNS}`,
      [newItemId(), userId, parent, name, size, mimeTypeOf(name), key, stamp],
    )
    // The account is gone (deleted a moment ago).
    if (!rows[0]) throw new FilesNotFound()
    return rows[0]
  }

  /**
   * The last step of every new file: the temporary object becomes the final `key`, then the
   * pending row becomes visible. A commit that fails runs `undo`; one that finds its temporary
   * object gone while the final object is there was done already (an upload finished twice at
   * once, or retried after a crash), and goes on.
   */
  private async revealFile(rowId: string, tempKey: string, key: string, undo: () => Promise<void>): Promise<FileItem> {
    try {
      await this.storage.commit(tempKey, key)
    } catch (error) {
      const done = error instanceof ObjectMissingError && (await this.storage.size(key).catch(() => null)) !== null
      if (!done) {
        await undo()
        throw error
      }
    }
    const { rows } = await this.db.query<Row>(`UPDATE api.file_items SET state = 'ready' WHERE id = $1 RETURNING ${COLUMNS}`, [rowId])
    if (!rows[0]) {
      // Emptied from the trash (its folder was deleted meanwhile) or its account deleted: the bytes go too.
      await this.storage.delete(key).catch(() => {})
      throw new FilesNotFound()
    }
    return toItem(rows[0])
  }

  /** FILES_TOO_LARGE, saying the limit. */
  tooLargeError(): Error {
    return new FilesTooLarge(`A file can be at most ${formatBytes(this.limits.maxFileBytes)}.`)
  }

  // Resumable uploads (tus, decision 014). The protocol is @tus/server's (upload-routes.ts); the
  // state, the reservation and the finish are here, beside the files they become.

  /**
   * A new upload of `length` bytes: checked against the size limit, then, under the user's lock,
   * its folder and the quota — the drive plus every unfinished upload's declared length — and
   * reserved by inserting its row in the same transaction. Nothing of a sink is checked or counted
   * but the size limit (it still has to end, as the protocol says).
   */
  async reserveUpload(userId: string, id: string, length: number, metadata: Record<string, string | null>, target: UploadTarget): Promise<UploadState> {
    if (length > this.limits.maxFileBytes) throw this.tooLargeError()
    const stamp = this.now()
    return this.locked(userId, async (tx) => {
      if (!target.sink) {
        await this.liveFolder(tx, userId, target.parentId)
        if ((await this.usedBytes(tx, userId)) + length > this.limits.quotaBytes) throw this.quotaError()
      }
      const { rows } = await tx.query<UploadRow>(
        `INSERT INTO api.file_uploads (id, user_id, length, metadata, parent_id, folders, name, sink, temp_key, created_at, updated_at, expires_at)
         SELECT $1, u.id, $3, $4::jsonb, $5, $6::jsonb, $7, $8, $9, $10, $10, $11 FROM api.users u WHERE u.id = $2
         RETURNING ${UPLOAD_COLUMNS}`,
        [
          id,
          userId,
          length,
          JSON.stringify(metadata),
          target.sink ? null : target.parentId,
          JSON.stringify(target.sink ? [] : target.folders),
          target.name,
          target.sink,
          target.sink ? null : this.storage.newTempKey(),
          new Date(stamp).toISOString(),
          new Date(stamp + UPLOAD_EXPIRY_MS).toISOString(),
        ],
      )
      if (!rows[0]) throw new FilesNotFound()
      return toUpload(rows[0])
    })
  }

  /** One of this user's uploads (expired or not), or null: another user's upload is not found either. */
  async upload(userId: string, id: string): Promise<UploadState | null> {
    const { rows } = await this.db.query<UploadRow>(`SELECT ${UPLOAD_COLUMNS} FROM api.file_uploads WHERE id = $1 AND user_id = $2`, [id, userId])
    return rows[0] ? toUpload(rows[0]) : null
  }

  /** Bytes now stored for an upload still receiving; the upload lives another UPLOAD_EXPIRY_MS from now. */
  async recordReceived(id: string, received: number): Promise<UploadState | null> {
    const stamp = this.now()
    const { rows } = await this.db.query<UploadRow>(
      `UPDATE api.file_uploads SET received = $2, updated_at = $3, expires_at = $4 WHERE id = $1 AND state = 'receiving' RETURNING ${UPLOAD_COLUMNS}`,
      [id, received, new Date(stamp).toISOString(), new Date(stamp + UPLOAD_EXPIRY_MS).toISOString()],
    )
    return rows[0] ? toUpload(rows[0]) : null
  }

  /** Cancels an unfinished upload (tus termination): its reservation and its bytes go. */
  async removeUpload(userId: string, id: string): Promise<void> {
    const { rows } = await this.db.query<{ temp_key: string | null }>("DELETE FROM api.file_uploads WHERE id = $1 AND user_id = $2 AND state = 'receiving' RETURNING temp_key", [id, userId])
    if (!rows[0]) throw new FilesUploadNotFound()
    if (rows[0].temp_key !== null) await this.storage.discard(rows[0].temp_key).catch(() => {})
  }

  /**
   * Makes the file of an upload whose bytes have all arrived; safe to run twice at once (two
   * instances, a retry after a failure) — the second finds the work done or finishes it. Under the
   * user's lock, in one transaction: the folders along relativePath are found (any letter case) or
   * made, the file's pending row is inserted exactly as addFile's, and the upload leaves
   * 'receiving' — its reservation stops counting as the row starts to. Then addFile's last step.
   */
  async finishUpload(upload: UploadState): Promise<UploadState> {
    if (upload.state === 'finished') return upload
    if (upload.sink) return (await this.markUploadFinished(upload.id, null)) ?? upload
    const tempKey = upload.tempKey!
    // An empty file never received a PATCH: its (empty) temporary object is made here.
    if (upload.length === 0 && upload.state === 'receiving' && (await this.storage.tempSize(tempKey)) === null) {
      // Made by a finish running at the same moment: nothing to do.
      await this.storage.append(tempKey, 0, Readable.from([])).catch((error: unknown) => {
        if (!(error instanceof OffsetMismatchError)) throw error
      })
    }
    const placed = await this.locked(upload.userId, async (tx) => {
      const { rows } = await tx.query<UploadRow>(`SELECT ${UPLOAD_COLUMNS} FROM api.file_uploads WHERE id = $1`, [upload.id])
      const row = rows[0]
      if (!row) throw new FilesUploadNotFound()
      if (row.state === 'committing') {
        // Its pending row swept after a crash (an hour untouched): placed again from the start.
        const { rows: file } = await tx.query('SELECT 1 FROM api.file_items WHERE id = $1', [row.file_id])
        if (file.length > 0) return { state: row.state, fileId: row.file_id!, key: row.storage_key! }
      } else if (row.state === 'finished') {
        return { state: row.state, fileId: row.file_id!, key: row.storage_key! }
      }
      if (Number(row.received) !== Number(row.length)) throw new Error('The upload is not complete')
      const parent = await this.uploadFolder(tx, row)
      const key = this.storage.newKey()
      const file = await this.insertPendingFile(tx, row.user_id, parent, row.name, Number(row.length), key)
      await tx.query("UPDATE api.file_uploads SET state = 'committing', file_id = $2, storage_key = $3 WHERE id = $1", [row.id, file.id, key])
      return { state: 'committing' as const, fileId: file.id, key }
    })
    if (placed.state === 'finished') return (await this.upload(upload.userId, upload.id)) ?? upload
    await this.revealFile(placed.fileId, tempKey, placed.key, async () => {
      // The bytes stay in the temporary object and the reservation comes back: a later HEAD or PATCH finishes it.
      await this.db.transaction(async (tx) => {
        await tx.query("DELETE FROM api.file_items WHERE id = $1 AND state = 'pending'", [placed.fileId])
        await tx.query("UPDATE api.file_uploads SET state = 'receiving', file_id = NULL, storage_key = NULL WHERE id = $1 AND state = 'committing'", [upload.id])
      })
    })
    return (await this.markUploadFinished(upload.id, placed.fileId)) ?? upload
  }

  private async markUploadFinished(id: string, fileId: string | null): Promise<UploadState | null> {
    const stamp = this.now()
    const { rows } = await this.db.query<UploadRow>(
      `UPDATE api.file_uploads SET state = 'finished', file_id = coalesce(file_id, $2), updated_at = $3, expires_at = $4
       WHERE id = $1 AND received = length RETURNING ${UPLOAD_COLUMNS}`,
      [id, fileId, new Date(stamp).toISOString(), new Date(stamp + UPLOAD_EXPIRY_MS).toISOString()],
    )
    return rows[0] ? toUpload(rows[0]) : null
  }

  /**
   * The folder an upload's file goes to: the one given at creation (the root when it has gone
   * since), then each folder of relativePath under it — an existing live folder of that name, in
   * any letter case, or a new one. Two files of one dropped folder finishing at once (on two
   * instances) take turns under the user's lock, so the second finds the folder the first made.
   * A file holding a folder's name moves the folder on to "name (2)", where the next file finds it.
   */
  private async uploadFolder(tx: Queryable, row: UploadRow): Promise<string | null> {
    const userId = row.user_id
    let parent: string | null = null
    if (row.parent_id !== null) {
      const { rows } = await tx.query(`SELECT 1 FROM api.file_items WHERE id = $1 AND user_id = $2 AND type = 'folder' AND trashed_at IS NULL AND state = 'ready'`, [row.parent_id, userId])
      if (rows.length > 0) parent = row.parent_id
    }
    for (const segment of json<string[]>(row.folders)) {
      for (const candidate of nameCandidates(segment, true)) {
        const { rows } = await tx.query<{ id: string; type: string; state: string }>(
          `SELECT id, type, state FROM api.file_items WHERE user_id = $1 AND coalesce(parent_id, '') = $2 AND lower(name) = lower($3) AND trashed_at IS NULL`,
          [userId, parent ?? '', candidate],
        )
        const found = rows[0]
        if (found?.type === 'folder') {
          parent = found.id
          break
        }
        if (found) continue
        const stamp = this.stamp()
        const made = await tx.query<{ id: string }>(
          `INSERT INTO api.file_items (id, user_id, parent_id, type, name, created_at, updated_at) VALUES ($1, $2, $3, 'folder', $4, $5, $5) RETURNING id`,
          [newItemId(), userId, parent, candidate, stamp],
        )
        parent = made.rows[0]!.id
        break
      }
    }
    return parent
  }

  /** Unfinished uploads past their expiry and finished ones remembered long enough, with their bytes; how many went. */
  async sweepUploads(): Promise<number> {
    const { rows } = await this.db.query<{ temp_key: string | null; state: string }>('DELETE FROM api.file_uploads WHERE expires_at <= $1 RETURNING temp_key, state', [this.stamp()])
    for (const row of rows) {
      if (row.temp_key !== null && row.state === 'receiving') await this.storage.discard(row.temp_key).catch(() => {})
    }
    // Leases of instances that died holding them.
    await this.db.query("DELETE FROM api.file_upload_locks WHERE expires_at < now() - interval '1 hour'")
    return rows.length
  }

  private quotaError(): Error {
    return new FilesQuotaExceeded(`Your drive is full: it holds at most ${formatBytes(this.limits.quotaBytes)}, the trash included. Empty the trash or delete files to make room.`)
  }

  /** A live file of this user and where its bytes are. */
  async storedFile(userId: string, id: string): Promise<StoredFile | { folder: true }> {
    const row = await this.liveItem(this.db, userId, id)
    if (row.type === 'folder') return { folder: true }
    return { item: toItem(row), storageKey: row.storage_key! }
  }

  /** Keys of `listed` that no row names (`named` selects the named ones as `key`), removed in batches of 500; how many. */
  private async removeUnnamed(listed: AsyncIterable<string>, named: string, remove: (key: string) => Promise<void>): Promise<number> {
    let removed = 0
    let batch: string[] = []
    const settle = async () => {
      const { rows } = await this.db.query<{ key: string }>(named, [batch])
      const kept = new Set(rows.map((row) => row.key))
      for (const key of batch) {
        if (kept.has(key)) continue
        await remove(key)
        removed += 1
      }
      batch = []
    }
    for await (const key of listed) {
      batch.push(key)
      if (batch.length >= 500) await settle()
    }
    if (batch.length > 0) await settle()
    return removed
  }

  /** Final objects written before `before`. */
  private async *oldObjects(before: Date): AsyncIterable<string> {
    for await (const object of this.storage.listObjects()) if (object.modifiedAt < before) yield object.key
  }

  /**
   * Clears what time and crashes leave: trash older than 30 days (all of it, bytes included),
   * uploads past their expiry (sweepUploads), writes abandoned for STALE_WRITE_MS (pending rows
   * with their objects, temporary objects no upload holds), and objects no row names. Run at start and every hour; safe on several instances at once.
   */
  async sweep(): Promise<SweepReport> {
    const now = this.now()
    const report: SweepReport = { purged: 0, pendingRemoved: 0, tempRemoved: 0, orphansRemoved: 0, uploadsExpired: 0 }
    report.uploadsExpired = await this.sweepUploads()
    const purged = await this.db.query<{ storage_key: string | null }>('DELETE FROM api.file_items WHERE trashed_at IS NOT NULL AND trashed_at < $1 RETURNING storage_key', [
      new Date(now - TRASH_RETENTION_MS).toISOString(),
    ])
    report.purged = purged.rowCount
    await this.deleteObjects(purged.rows.map((row) => row.storage_key))

    const staleBefore = new Date(now - STALE_WRITE_MS)
    const pending = await this.db.query<{ storage_key: string | null }>("DELETE FROM api.file_items WHERE state = 'pending' AND created_at < $1 RETURNING storage_key", [staleBefore.toISOString()])
    report.pendingRemoved = pending.rowCount
    await this.deleteObjects(pending.rows.map((row) => row.storage_key))

    // A resumable upload's temporary object stays as long as its upload (paused uploads resume for a day).
    report.tempRemoved += await this.removeUnnamed(
      this.storage.listTemp(staleBefore),
      'SELECT temp_key AS key FROM api.file_uploads WHERE temp_key = ANY($1::text[])',
      (tempKey) => this.storage.discard(tempKey),
    )
    // S3: multipart uploads a crash left open (stored, billed, never seen).
    report.tempRemoved += (await this.storage.sweepIncomplete?.(staleBefore)) ?? 0

    // An object appears only after its row; one without a row is left from a deletion cut short.
    // The age margin keeps this safe should a later writer commit before it writes its row.
    report.orphansRemoved += await this.removeUnnamed(
      this.oldObjects(staleBefore),
      'SELECT storage_key AS key FROM api.file_items WHERE storage_key = ANY($1::text[])',
      (key) => this.storage.delete(key),
    )

    if (report.purged + report.pendingRemoved + report.tempRemoved + report.orphansRemoved + report.uploadsExpired > 0) this.log.info({ event: 'files-sweep', ...report }, 'the drive sweep removed leftovers')
    return report
  }
}
