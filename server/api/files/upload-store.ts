import type { Readable } from 'node:stream'
import { DataStore, ERRORS, Upload } from '@tus/server'
import { IdleAsyncScope } from '../../async-scope.ts'
import { FilesUploadExpired, FilesUploadNotFound } from './errors.ts'
import { UPLOAD_EXPIRY_MS, type FilesRepository, type UploadState, type UploadTarget } from './repository.ts'
import { isBodyFailure, OffsetMismatchError } from './storage.ts'

// @tus/server's DataStore over the drive (decision 014): the upload's state is a row of
// api.file_uploads (FilesRepository), its bytes a temporary object of our FileStorage that each
// PATCH appends to. Nothing is kept in this process between requests, so any API instance that
// shares the database and the storage continues any upload.

/** What one upload request knows beyond tus: whose it is, and what the store found out for the answer. */
export interface UploadRequestContext {
  userId: string
  /** A creation's checked metadata (upload-metadata.ts). */
  target?: UploadTarget
  /** When the upload expires as of this request, and whether it is complete (no Upload-Expires then). */
  expiresAt?: number
  finished?: boolean
  /** Our error behind tus's failure answer, answered instead of tus's text. */
  error?: Error
}

/** The request a store call belongs to; tus calls the store inside it. */
export const uploadRequests = new IdleAsyncScope<UploadRequestContext>()

function current(): UploadRequestContext {
  const context = uploadRequests.getStore()
  if (!context) throw new Error('An upload store call outside an upload request')
  return context
}

export class DriveUploadStore extends DataStore {
  constructor(
    private readonly files: FilesRepository,
    private readonly now: () => number,
  ) {
    super()
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration']
  }

  override getExpiration(): number {
    return UPLOAD_EXPIRY_MS
  }

  /** tus reckons expiry as creation_date + getExpiration(); ours slides with every PATCH, so the date given is the one that yields it. */
  private toUpload(state: UploadState): Upload {
    const context = current()
    context.expiresAt = state.expiresAt
    context.finished = state.state === 'finished'
    return new Upload({
      id: state.id,
      size: state.length,
      offset: state.received,
      metadata: state.metadata,
      creation_date: new Date(state.expiresAt - UPLOAD_EXPIRY_MS).toISOString(),
    })
  }

  override async create(upload: Upload): Promise<Upload> {
    const context = current()
    // Upload-Length is required: the routes refuse a deferred length before tus runs.
    const state = await this.files.reserveUpload(context.userId, upload.id, upload.size!, upload.metadata ?? {}, context.target!)
    upload.creation_date = this.toUpload(state).creation_date
    return upload
  }

  /** The user's own upload; one whose bytes have all arrived but whose file is not made yet (a failure, a crash) is finished first. */
  private async state(id: string): Promise<UploadState> {
    const state = await this.files.upload(current().userId, id)
    if (!state) throw new FilesUploadNotFound()
    if (state.state !== 'finished' && state.expiresAt <= this.now()) throw new FilesUploadExpired()
    return state
  }

  override async getUpload(id: string): Promise<Upload> {
    let state = await this.state(id)
    if (state.state !== 'finished' && state.received === state.length) state = await this.files.finishUpload(state)
    return this.toUpload(state)
  }

  /** The finish of a complete upload (tus's onUploadFinish): the answer waits for the file to exist. */
  async finish(id: string): Promise<void> {
    this.toUpload(await this.files.finishUpload(await this.state(id)))
  }

  /** Writes running in this process, by upload: a lock is not given up before its write has recorded what it stored. */
  private readonly writing = new Map<string, Promise<unknown>>()

  /**
   * Resolves when this process's write to the upload has ended. tus gives its lock up as soon as
   * the request's body fails (the client went away) — the append may still be storing and
   * recording what arrived — so the lock's release waits for this (upload-locker.ts).
   */
  async settled(id: string): Promise<void> {
    await this.writing.get(id)
  }

  override write(body: Readable, id: string, offset: number): Promise<number> {
    const work = this.append(body, id, offset)
    const tracked = work.catch(() => undefined)
    this.writing.set(id, tracked)
    void tracked.then(() => {
      if (this.writing.get(id) === tracked) this.writing.delete(id)
    })
    return work
  }

  private async append(body: Readable, id: string, offset: number): Promise<number> {
    const state = await this.state(id)
    if (state.state !== 'receiving') {
      // Complete already: an empty PATCH at the end only asks for the finish (tus calls it next).
      if (offset === state.length) return offset
      throw ERRORS.INVALID_OFFSET
    }
    if (state.sink) return this.drop(body, state, offset)
    const tempKey = state.tempKey!
    const storage = this.files.storage
    // A first PATCH cut before its first byte leaves an empty object: starting again at 0 replaces it.
    if (offset === 0 && (await storage.tempSize(tempKey)) === 0) await storage.discard(tempKey)
    let size: number
    try {
      size = (await storage.append(tempKey, offset, body, { maxBytes: state.length })).size
    } catch (error) {
      // The stored bytes are the truth: what arrived before any failure counts, so the client resumes after it.
      const stored = error instanceof OffsetMismatchError ? error.actual : await storage.tempSize(tempKey).catch(() => null)
      if (stored !== null && stored !== state.received && stored <= state.length) await this.files.recordReceived(id, stored)
      throw error instanceof OffsetMismatchError ? ERRORS.INVALID_OFFSET : error
    }
    const recorded = await this.files.recordReceived(id, size)
    if (recorded) this.toUpload(recorded)
    return size
  }

  /** A sink reads its bytes and keeps none; only how many arrived, so the client can finish. */
  private async drop(body: Readable, state: UploadState, offset: number): Promise<number> {
    let size = offset
    try {
      for await (const chunk of body) size += (chunk as Buffer).length
    } catch (error) {
      if (!isBodyFailure(error)) throw error
    }
    const recorded = await this.files.recordReceived(state.id, Math.min(size, state.length))
    if (recorded) this.toUpload(recorded)
    return size
  }

  override async remove(id: string): Promise<void> {
    await this.files.removeUpload(current().userId, id)
  }

  override async deleteExpired(): Promise<number> {
    return this.files.sweepUploads()
  }
}
