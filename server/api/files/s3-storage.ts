import { randomBytes } from 'node:crypto'
import { PassThrough, Readable } from 'node:stream'
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { ObjectMissingError, ObjectTooLargeError, OffsetMismatchError, isBodyFailure, type ByteRange, type FileStorage } from './storage.ts'

// The drive's bytes in any S3-compatible bucket (decision 015). S3 has no append and no
// rename, so a temporary object is a list of segments, one per write, named by the offset it starts
// at (`tmp/<tempKey>/<offset, 16 digits>`, so names sort in byte order), and a commit is a
// server-side copy (one segment) or a multipart upload that assembles the segments — either way the
// final object (`objects/<ab>/<key>`) appears whole or not at all. No object is ever held in
// memory: writes go through lib-storage's Upload in parts of bounded size, reads are streamed.
// One file over 500 lines: the segments' naming, the commit and the reads are one protocol over
// the bucket, and each half is only right with the other in view.

export interface S3StorageOptions {
  /** The endpoint (S3_URL), e.g. https://s3.eu-central-1.amazonaws.com or http://127.0.0.1:9000. */
  url: string
  bucket: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  /** Keys are kept under this folder of the bucket (S3_PREFIX), so a bucket can be shared. */
  prefix?: string | undefined
}

/** S3's smallest part but the last, and the largest a CopyObject or a part may be. */
export const MIN_PART_BYTES = 5 * 1024 * 1024
export const MAX_COPY_BYTES = 5 * 1024 * 1024 * 1024
/** The largest part streamed through this process at commit: a failed part is retried from its start, so keep it modest. */
const MAX_STREAMED_PART_BYTES = 64 * 1024 * 1024
const MAX_PARTS = 10_000
/** Upload's buffer: one part being filled and QUEUE_SIZE in flight, so memory is about (1 + QUEUE_SIZE) × part size. */
const UPLOAD_PART_BYTES = 8 * 1024 * 1024
const UPLOAD_QUEUE_SIZE = 2
const MAX_UPLOAD_PART_BYTES = 64 * 1024 * 1024

const KEY = /^[0-9a-f]{32}$/
const SEGMENT = /^\d{16}$/

function assertKey(key: string): void {
  // Keys are ours; anything else reaching here is a bug, and must never become an object name.
  if (!KEY.test(key)) throw new Error('Invalid storage key')
}

function newRandomKey(): string {
  return randomBytes(16).toString('hex')
}

function errorName(error: unknown): string | undefined {
  return (error as { name?: string; Code?: string } | undefined)?.name ?? (error as { Code?: string } | undefined)?.Code
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode
}

function isNotFound(error: unknown): boolean {
  const name = errorName(error)
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(error) === 404
}

/** The server does not do this (s3rver: UploadPartCopy, ListMultipartUploads, AbortMultipartUpload). */
function isUnsupported(error: unknown): boolean {
  const name = errorName(error)
  return name === 'NotImplemented' || name === 'MethodNotAllowed' || statusOf(error) === 501 || statusOf(error) === 405
}

/** One piece of a temporary object: the bytes written by one `put` or `append`. */
interface Segment {
  name: string
  offset: number
  size: number
  modifiedAt: Date
}

/** A byte range of one segment, both ends included. */
interface Slice {
  segment: Segment
  start: number
  end: number
}

/** A part of the final object: copied by the server from one segment, or streamed through from several. */
export type PartPlan = { copy: Slice } | { stream: Slice[]; size: number }

/**
 * The parts that assemble `segments` into one object. S3 wants every part but the last to be at
 * least 5 MiB and at most 5 GiB: a segment that large is copied by the server (UploadPartCopy, no
 * byte through this process); small segments are gathered and streamed through as one part; a run
 * of small ones before a large one borrows the large one's first bytes to reach 5 MiB. Exported
 * for its tests; `copyable` false (a server without UploadPartCopy) streams everything.
 */
export function planParts(segments: ReadonlyArray<Pick<Segment, 'size'> & Partial<Segment>>, copyable: boolean, limits = { minPart: MIN_PART_BYTES, maxCopy: MAX_COPY_BYTES, maxStream: MAX_STREAMED_PART_BYTES }): PartPlan[] {
  const { minPart, maxCopy, maxStream } = limits
  const parts: PartPlan[] = []
  let group: Slice[] = []
  let groupSize = 0
  const flush = () => {
    if (groupSize > 0) parts.push({ stream: group, size: groupSize })
    group = []
    groupSize = 0
  }
  const gather = (segment: Segment, start: number, end: number) => {
    while (start < end) {
      const take = Math.min(end - start, maxStream - groupSize)
      group.push({ segment, start, end: start + take - 1 })
      groupSize += take
      start += take
      if (groupSize === maxStream) flush()
    }
  }
  for (const each of segments) {
    const segment = each as Segment
    let position = 0
    if (copyable && segment.size >= minPart) {
      if (groupSize > 0 && groupSize < minPart) {
        position = minPart - groupSize
        gather(segment, 0, position)
      }
      flush()
      while (segment.size - position >= minPart) {
        let chunk = Math.min(segment.size - position, maxCopy)
        const rest = segment.size - position - chunk
        // Leave either nothing or a whole part behind, never a sliver that could not stand alone.
        if (rest > 0 && rest < minPart) chunk = segment.size - position - minPart
        parts.push({ copy: { segment, start: position, end: position + chunk - 1 } })
        position += chunk
      }
    }
    if (position < segment.size) gather(segment, position, segment.size)
  }
  flush()
  return parts
}

export class S3Storage implements FileStorage {
  private readonly client: S3Client
  private readonly url: string
  private readonly bucket: string
  private readonly prefix: string
  /** Learnt from the server's first refusal (s3rver has no UploadPartCopy): stream the parts instead. */
  private partCopyUnsupported = false

  constructor(options: S3StorageOptions) {
    this.url = options.url
    this.bucket = options.bucket
    const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '')
    this.prefix = prefix === '' ? '' : `${prefix}/`
    this.client = new S3Client({
      endpoint: options.url,
      region: options.region,
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      // Bucket in the path: what every S3-compatible server understands, and no DNS per bucket.
      forcePathStyle: true,
      // A server that does not answer fails the start (or the readiness probe) soon, not after minutes.
      requestHandler: { connectionTimeout: 5_000 },
      // By default the SDK sends streamed bodies aws-chunked with a trailing checksum; servers that
      // do not speak it (s3rver, some others) store the chunk framing inside the object.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
  }

  newTempKey(): string {
    return newRandomKey()
  }

  newKey(): string {
    return newRandomKey()
  }

  private tempFolder(tempKey: string): string {
    assertKey(tempKey)
    return `${this.prefix}tmp/${tempKey}/`
  }

  private segmentName(tempKey: string, offset: number): string {
    return `${this.tempFolder(tempKey)}${String(offset).padStart(16, '0')}`
  }

  private objectName(key: string): string {
    assertKey(key)
    return `${this.prefix}objects/${key.slice(0, 2)}/${key}`
  }

  /** The bucket answers to these credentials (at start, and for /readyz); else why not, never the secret. */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }))
    } catch (error) {
      const status = statusOf(error)
      const reason = status === 403 ? 'access denied (check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)' : status === 404 ? 'no such bucket' : `${errorName(error) ?? 'error'}: ${(error as Error).message}`
      throw new Error(`The S3 bucket "${this.bucket}" at ${this.url} cannot be used: ${reason}`, { cause: error })
    }
  }

  /** Closes the client's idle connections. */
  close(): void {
    this.client.destroy()
  }

  private async *list(prefix: string, delimiter?: string): AsyncIterable<{ key?: string; folder?: string; size: number; modifiedAt: Date }> {
    let token: string | undefined
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token }))
      for (const folder of page.CommonPrefixes ?? []) if (folder.Prefix) yield { folder: folder.Prefix, size: 0, modifiedAt: new Date(0) }
      for (const object of page.Contents ?? []) if (object.Key) yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }

  /**
   * The segments of a temporary object, in order, as one chain from offset 0: each starts where the
   * one before ends. Anything else found there (a segment left by a write that lost a race) is not
   * part of the object and goes with it at commit or discard. null: no temporary object.
   */
  private async segments(tempKey: string): Promise<{ chain: Segment[]; size: number; all: string[] } | null> {
    const folder = this.tempFolder(tempKey)
    const found: Segment[] = []
    const all: string[] = []
    for await (const object of this.list(folder)) {
      if (!object.key) continue
      all.push(object.key)
      const name = object.key.slice(folder.length)
      if (SEGMENT.test(name)) found.push({ name: object.key, offset: Number(name), size: object.size, modifiedAt: object.modifiedAt })
    }
    if (all.length === 0) return null
    found.sort((a, b) => a.offset - b.offset)
    const chain: Segment[] = []
    let size = 0
    for (const segment of found) {
      if (segment.offset !== size) break
      chain.push(segment)
      size += segment.size
    }
    return { chain, size, all }
  }

  /**
   * Writes one segment from `body`, streamed through Upload in bounded parts. With `keepPrefix`,
   * what the body gives before it fails or passes `maxBytes` is written (the stream handed to
   * Upload is ended cleanly) and the failure returned for the caller to judge; without it, the
   * upload is abandoned and nothing appears. A storage failure writes nothing and throws.
   */
  private async writeSegment(name: string, body: Readable, maxBytes: number | undefined, keepPrefix: boolean): Promise<{ size: number; failure: unknown }> {
    const sink = new PassThrough()
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: name, Body: sink, ContentType: 'application/octet-stream' },
      // 8 MiB unless S3's 10,000 parts need more to hold maxBytes (over 78 GiB), and never so much
      // that memory is not modest; no limit: 8 MiB (objects up to 78 GiB).
      partSize: maxBytes === undefined ? UPLOAD_PART_BYTES : Math.min(Math.max(UPLOAD_PART_BYTES, Math.ceil(maxBytes / MAX_PARTS)), MAX_UPLOAD_PART_BYTES),
      queueSize: UPLOAD_QUEUE_SIZE,
    })
    const uploaded = upload.done()
    let settled = false
    const stopped = uploaded.then(
      () => void (settled = true),
      () => void (settled = true),
    )
    let size = 0
    let failure: unknown
    try {
      for await (const chunk of body) {
        const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
        if (maxBytes !== undefined && size + bytes.length > maxBytes) {
          failure = new ObjectTooLargeError(maxBytes)
          break
        }
        size += bytes.length
        // Backpressure: Upload takes a part at a time, so about a part waits here; an Upload that
        // failed takes nothing more, and its error is heard below.
        if (!sink.write(bytes)) await Promise.race([new Promise((resolve) => sink.once('drain', resolve)), stopped])
        if (settled) break
      }
    } catch (error) {
      failure = error
    }
    body.destroy()
    if (failure !== undefined && !keepPrefix) {
      sink.destroy(failure as Error)
      await stopped
      throw failure
    }
    sink.end()
    await uploaded
    return { size, failure }
  }

  async put(tempKey: string, body: Readable, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    // One segment, whole or nothing: on any failure the upload is abandoned before it completes.
    const { size } = await this.writeSegment(this.segmentName(tempKey, 0), body, options.maxBytes, false)
    return { size }
  }

  async append(tempKey: string, offset: number, body: Readable, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    // S3 cannot append or refuse a write on a condition every server knows, so the check and the
    // write are two steps: the caller holds the upload's lock (tus), as it must on disk too.
    const actual = (await this.segments(tempKey))?.size ?? null
    if ((actual ?? 0) !== offset) {
      body.destroy()
      throw new OffsetMismatchError(offset, actual ?? 0)
    }
    const { size, failure } = await this.writeSegment(this.segmentName(tempKey, offset), body, options.maxBytes === undefined ? undefined : Math.max(0, options.maxBytes - offset), true)
    // An empty segment says nothing, except at 0 where it makes the (empty) temporary object exist.
    if (size === 0 && offset > 0) await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.segmentName(tempKey, offset) }))
    // A body cut off keeps what arrived; anything else is the caller's to hear about.
    if (failure instanceof ObjectTooLargeError) throw new ObjectTooLargeError(options.maxBytes ?? failure.maxBytes)
    if (failure !== undefined && !isBodyFailure(failure)) throw failure
    return { size: offset + size }
  }

  async tempSize(tempKey: string): Promise<number | null> {
    return (await this.segments(tempKey))?.size ?? null
  }

  async commit(tempKey: string, key: string): Promise<void> {
    const target = this.objectName(key)
    const found = await this.segments(tempKey)
    if (!found) throw new ObjectMissingError(tempKey)
    const [only] = found.chain
    if (found.chain.length === 1 && only && only.size <= MAX_COPY_BYTES) {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: target, CopySource: this.copySource(only.name) }))
    } else if (found.chain.length === 0) {
      throw new ObjectMissingError(tempKey)
    } else {
      await this.assemble(found.chain, target)
    }
    await this.deleteAll(found.all)
  }

  private copySource(name: string): string {
    // The SDK sends it as given; our names are safe, S3_PREFIX is checked, but escape all the same.
    return `${this.bucket}/${name.split('/').map(encodeURIComponent).join('/')}`
  }

  /** One multipart upload from the segments; completed (the object appears whole) or aborted. */
  private async assemble(chain: Segment[], target: string): Promise<void> {
    const plan = planParts(chain, !this.partCopyUnsupported)
    if (plan.length > MAX_PARTS) throw new Error(`The temporary object has too many segments to assemble (${plan.length} parts)`)
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: target, ContentType: 'application/octet-stream' }))
    if (!UploadId) throw new Error('The S3 server started a multipart upload without an id')
    try {
      const parts: CompletedPart[] = []
      for (const [index, part] of plan.entries()) {
        const PartNumber = index + 1
        parts.push({ PartNumber, ETag: await this.uploadPart(target, UploadId, PartNumber, part) })
      }
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: target, UploadId, MultipartUpload: { Parts: parts } }))
    } catch (error) {
      // Servers without abort (s3rver) keep the parts; a bucket lifecycle rule or sweepIncomplete clears them elsewhere.
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: target, UploadId })).catch(() => {})
      throw error
    }
  }

  private async uploadPart(target: string, UploadId: string, PartNumber: number, part: PartPlan): Promise<string | undefined> {
    if ('copy' in part) {
      const { segment, start, end } = part.copy
      if (!this.partCopyUnsupported) {
        try {
          const copied = await this.client.send(
            new UploadPartCopyCommand({ Bucket: this.bucket, Key: target, UploadId, PartNumber, CopySource: this.copySource(segment.name), CopySourceRange: `bytes=${start}-${end}` }),
          )
          return copied.CopyPartResult?.ETag
        } catch (error) {
          if (!isUnsupported(error)) throw error
          this.partCopyUnsupported = true
        }
      }
      return this.streamPart(target, UploadId, PartNumber, [part.copy], end - start + 1)
    }
    return this.streamPart(target, UploadId, PartNumber, part.stream, part.size)
  }

  /** A part made of segment ranges read in turn: one range's bytes in flight at a time. */
  private async streamPart(target: string, UploadId: string, PartNumber: number, slices: Slice[], size: number): Promise<string | undefined> {
    const read = async function* (this: S3Storage) {
      for (const { segment, start, end } of slices) {
        const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: segment.name, Range: `bytes=${start}-${end}` }))
        yield* answer.Body as Readable
      }
    }
    const uploaded = await this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key: target, UploadId, PartNumber, Body: Readable.from(read.call(this), { objectMode: false }), ContentLength: size }))
    return uploaded.ETag
  }

  private async deleteAll(names: string[]): Promise<void> {
    // One at a time: DeleteObjects needs a Content-MD5 some servers insist on; segments are few.
    for (const name of names) await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: name }))
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectName(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }))
      const body = answer.Body as Readable
      if (!range) return body
      // The caller has promised the client exactly these bytes; a server that reads a range
      // otherwise (s3rver takes "bytes=0-0" for the whole object) must not break that promise.
      const given = /^bytes (\d+)-(\d+)\//.exec(answer.ContentRange ?? '')
      if (!given || Number(given[1]) !== range.start) {
        body.destroy()
        throw new Error(`The S3 server answered range ${range.start}-${range.end} with ${answer.ContentRange ?? 'the whole object'}`)
      }
      return Number(given[2]) > range.end ? Readable.from(limitTo(body, range.end - range.start + 1), { objectMode: false }) : body
    } catch (error) {
      if (isNotFound(error)) throw new ObjectMissingError(key)
      throw error
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectName(key) }))
      return head.ContentLength ?? 0
    } catch (error) {
      if (isNotFound(error)) return null
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectName(key) }))
  }

  async discard(tempKey: string): Promise<void> {
    const names: string[] = []
    for await (const object of this.list(this.tempFolder(tempKey))) if (object.key) names.push(object.key)
    await this.deleteAll(names)
  }

  async *listTemp(before: Date): AsyncIterable<string> {
    const folder = `${this.prefix}tmp/`
    for await (const entry of this.list(folder, '/')) {
      const tempKey = entry.folder?.slice(folder.length, -1)
      if (!tempKey || !KEY.test(tempKey)) continue
      // Abandoned when even its newest segment is older than `before`.
      let newest = 0
      for await (const object of this.list(entry.folder!)) newest = Math.max(newest, object.modifiedAt.getTime())
      if (newest < before.getTime()) yield tempKey
    }
  }

  async *listObjects(): AsyncIterable<{ key: string; modifiedAt: Date }> {
    const folder = `${this.prefix}objects/`
    for await (const object of this.list(folder)) {
      const [shard, key, ...rest] = (object.key ?? '').slice(folder.length).split('/')
      if (rest.length > 0 || !key || !KEY.test(key) || key.slice(0, 2) !== shard) continue
      yield { key, modifiedAt: object.modifiedAt }
    }
  }

  /**
   * Aborts multipart uploads started before `before` under our prefix: a process that died in a
   * large write or a commit leaves its parts stored (and billed) but invisible. Servers without
   * ListMultipartUploads (s3rver) are left to a bucket lifecycle rule; how many were aborted.
   */
  async sweepIncomplete(before: Date): Promise<number> {
    let aborted = 0
    let KeyMarker: string | undefined
    let UploadIdMarker: string | undefined
    try {
      do {
        const page = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.prefix || undefined, KeyMarker, UploadIdMarker }))
        for (const upload of page.Uploads ?? []) {
          if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated >= before) continue
          await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }))
          aborted += 1
        }
        const more = page.IsTruncated === true
        KeyMarker = more ? page.NextKeyMarker : undefined
        UploadIdMarker = more ? page.NextUploadIdMarker : undefined
      } while (KeyMarker)
    } catch (error) {
      if (isUnsupported(error)) return aborted
      throw error
    }
    return aborted
  }
}

/** Passes the first `bytes` bytes of a stream, then ends it. */
async function* limitTo(source: AsyncIterable<Buffer>, bytes: number): AsyncIterable<Buffer> {
  let left = bytes
  for await (const chunk of source) {
    yield chunk.length <= left ? chunk : chunk.subarray(0, left)
    left -= chunk.length
    if (left <= 0) break
  }
}
