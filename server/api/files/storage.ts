import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'

// Where the bytes of the drive's files live (DESIGN §4.16): one small interface, so the
// directory below and an S3-compatible bucket (next step) are interchangeable. Keys are random ids
// made here — never a user's file name — and a write is never visible half-done: bytes land in a
// temporary object (`put`), which `commit` turns into the final one in one atomic step (a rename
// on disk; a copy then a delete of the temporary object on S3, where the final key appears whole).
// What a crash leaves behind (temporary objects, objects whose row is gone) is found by the lists.

/** A byte range, both ends included (as in HTTP's `Range: bytes=start-end`). */
export interface ByteRange {
  start: number
  end: number
}

/** `put` stopped: the body passed `maxBytes`. Nothing is kept. */
export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The object is larger than ${maxBytes} bytes`)
    this.name = 'ObjectTooLargeError'
  }
}

/** `append` was told an offset the temporary object does not end at. Nothing is written. */
export class OffsetMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`The temporary object holds ${actual} bytes, not ${expected}`)
    this.name = 'OffsetMismatchError'
  }
}

/** `get` or `commit` found no such object. */
export class ObjectMissingError extends Error {
  constructor(key: string) {
    super(`No stored object ${key}`)
    this.name = 'ObjectMissingError'
  }
}

export interface FileStorage {
  /** A new temporary key for `put`. */
  newTempKey(): string
  /** A new key for a final object. */
  newKey(): string
  /** Writes `body` to a temporary object; its size in bytes. Past `maxBytes` (or on any failure) nothing is kept and it throws. */
  put(tempKey: string, body: Readable, options?: { maxBytes?: number }): Promise<{ size: number }>
  /**
   * Adds `body` to the end of the temporary object `tempKey` (a resumable upload: tus PATCH). The
   * object is created by the first call, at offset 0; it must hold exactly `offset` bytes, else
   * OffsetMismatchError and nothing is written. Bytes that arrived before `body` failed or was cut
   * off are kept and counted, so an upload continues after them; the call then still resolves with
   * the new size. Past `maxBytes` in all, ObjectTooLargeError; what was written before the limit stays.
   */
  append(tempKey: string, offset: number, body: Readable, options?: { maxBytes?: number }): Promise<{ size: number }>
  /** The size of a temporary object (made by `put` or `append`), or null when there is none. */
  tempSize(tempKey: string): Promise<number | null>
  /** Makes the temporary object the final object `key` at once; the temporary one is gone. */
  commit(tempKey: string, key: string): Promise<void>
  /** The object's bytes, or the range of them; ObjectMissingError when there is none. */
  get(key: string, range?: ByteRange): Promise<Readable>
  /** The object's size in bytes, or null when there is none. */
  size(key: string): Promise<number | null>
  /** Removes a final object; nothing happens when there is none. */
  delete(key: string): Promise<void>
  /** Removes a temporary object; nothing happens when there is none. */
  discard(tempKey: string): Promise<void>
  /** Temporary objects last written before `before` (abandoned writes, for the sweep). */
  listTemp(before: Date): AsyncIterable<string>
  /** Every final object, with when it was written (objects whose row is gone, for the sweep). */
  listObjects(): AsyncIterable<{ key: string; modifiedAt: Date }>
  /** A store behind a network (S3): throws, saying why, when it cannot be used. Checked at start and by /readyz. */
  check?(): Promise<void>
  /** Clears writes a crash left half-way inside the store itself (S3 multipart uploads) begun before `before`; how many. */
  sweepIncomplete?(before: Date): Promise<number>
  /** Lets go of connections when the API stops. */
  close?(): void
}

const KEY = /^[0-9a-f]{32}$/

function newRandomKey(): string {
  return randomBytes(16).toString('hex')
}

function assertKey(key: string): void {
  // Keys are ours; anything else reaching here is a bug, and must never become a path.
  if (!KEY.test(key)) throw new Error('Invalid storage key')
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT'
}

/**
 * The embedded default: `DATA_DIR/files/tmp/<key>` while written, `DATA_DIR/files/objects/<ab>/<key>`
 * once committed (a level of 256 folders keeps any one folder small). Both under one root, so a
 * commit is a rename on one file system — atomic — and the folder is synced after it, so a
 * committed object survives a power cut as the database row that names it does.
 */
export class DiskStorage implements FileStorage {
  private readonly tempDir: string
  private readonly objectsDir: string

  /** `root`: the folder holding `tmp/` and `objects/` (a backup copies `objects/`). */
  constructor(readonly root: string) {
    this.tempDir = path.join(root, 'tmp')
    this.objectsDir = path.join(root, 'objects')
  }

  newTempKey(): string {
    return newRandomKey()
  }

  newKey(): string {
    return newRandomKey()
  }

  private tempPath(key: string): string {
    assertKey(key)
    return path.join(this.tempDir, key)
  }

  private objectPath(key: string): string {
    assertKey(key)
    return path.join(this.objectsDir, key.slice(0, 2), key)
  }

  async put(tempKey: string, body: Readable, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    const file = this.tempPath(tempKey)
    const maxBytes = options.maxBytes ?? Number.MAX_SAFE_INTEGER
    await fs.mkdir(this.tempDir, { recursive: true })
    const handle = await fs.open(file, 'wx', 0o600)
    let size = 0
    try {
      // One chunk at a time, each written before the next is read: memory stays flat.
      for await (const chunk of body) {
        const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
        size += bytes.length
        if (size > maxBytes) throw new ObjectTooLargeError(maxBytes)
        for (let offset = 0; offset < bytes.length; ) offset += (await handle.write(bytes, offset)).bytesWritten
      }
      await handle.sync()
    } catch (error) {
      await handle.close().catch(() => {})
      await fs.rm(file, { force: true })
      body.destroy()
      throw error
    }
    await handle.close()
    return { size }
  }

  async append(tempKey: string, offset: number, body: Readable, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    const file = this.tempPath(tempKey)
    const maxBytes = options.maxBytes ?? Number.MAX_SAFE_INTEGER
    await fs.mkdir(this.tempDir, { recursive: true })
    let handle: fs.FileHandle
    try {
      // 'wx' when starting (two starts cannot both win), 'r+' when continuing (it must exist).
      // An upload made before its first byte exists empty: offset 0 continues it (size checked below).
      handle = await fs.open(file, offset === 0 ? 'wx' : 'r+', 0o600).catch((error: unknown) => {
        if (offset === 0 && (error as NodeJS.ErrnoException).code === 'EEXIST') return fs.open(file, 'r+')
        throw error
      })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST' || isMissing(error)) {
        body.destroy()
        throw new OffsetMismatchError(offset, (await this.tempSize(tempKey)) ?? 0)
      }
      throw error
    }
    let size = offset
    try {
      const actual = (await handle.stat()).size
      if (actual !== offset) throw new OffsetMismatchError(offset, actual)
      try {
        for await (const chunk of body) {
          const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
          if (size + bytes.length > maxBytes) throw new ObjectTooLargeError(maxBytes)
          for (let written = 0; written < bytes.length; ) written += (await handle.write(bytes, written, bytes.length - written, size + written)).bytesWritten
          size += bytes.length
        }
      } catch (error) {
        // A body cut off keeps what arrived; anything else is the caller's to hear about.
        if (error instanceof ObjectTooLargeError || !isBodyFailure(error)) throw error
      }
      await handle.sync()
    } catch (error) {
      body.destroy()
      throw error
    } finally {
      await handle.close().catch(() => {})
    }
    return { size }
  }

  async tempSize(tempKey: string): Promise<number | null> {
    try {
      return (await fs.stat(this.tempPath(tempKey))).size
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
  }

  async commit(tempKey: string, key: string): Promise<void> {
    const target = this.objectPath(key)
    const folder = path.dirname(target)
    await fs.mkdir(folder, { recursive: true })
    try {
      await fs.rename(this.tempPath(tempKey), target)
    } catch (error) {
      if (isMissing(error)) throw new ObjectMissingError(tempKey)
      throw error
    }
    await syncFolder(folder)
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    let handle: fs.FileHandle
    try {
      handle = await fs.open(this.objectPath(key), 'r')
    } catch (error) {
      if (isMissing(error)) throw new ObjectMissingError(key)
      throw error
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {})
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await fs.stat(this.objectPath(key))).size
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.objectPath(key), { force: true })
  }

  async discard(tempKey: string): Promise<void> {
    await fs.rm(this.tempPath(tempKey), { force: true })
  }

  async *listTemp(before: Date): AsyncIterable<string> {
    for (const name of await readdirOrNone(this.tempDir)) {
      if (!KEY.test(name)) continue
      const stat = await fs.stat(path.join(this.tempDir, name)).catch(() => null)
      if (stat && stat.mtime < before) yield name
    }
  }

  async *listObjects(): AsyncIterable<{ key: string; modifiedAt: Date }> {
    for (const shard of await readdirOrNone(this.objectsDir)) {
      for (const name of await readdirOrNone(path.join(this.objectsDir, shard))) {
        if (!KEY.test(name) || name.slice(0, 2) !== shard) continue
        const stat = await fs.stat(path.join(this.objectsDir, shard, name)).catch(() => null)
        if (stat) yield { key: name, modifiedAt: stat.mtime }
      }
    }
  }
}

/** The request body failed (the client went away mid-upload), not our write. */
export function isBodyFailure(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (error as Error | undefined)?.name === 'AbortError' || (error as Error | undefined)?.message === 'aborted'
}

async function readdirOrNone(folder: string): Promise<string[]> {
  try {
    return (await fs.readdir(folder)).sort()
  } catch (error) {
    if (isMissing(error)) return []
    throw error
  }
}

/** Makes a rename in `folder` durable (a no-op where folders cannot be opened, as on Windows). */
async function syncFolder(folder: string): Promise<void> {
  let handle: fs.FileHandle | undefined
  try {
    handle = await fs.open(folder, 'r')
    await handle.sync()
  } catch {
    // Best effort: the rename itself has happened.
  } finally {
    await handle?.close()
  }
}
