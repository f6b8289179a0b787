import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { zipStream, type ArchiveEntry } from './archive.ts'
import { FilesRangeNotSatisfiable } from './errors.ts'
import { contentDisposition, ifRangeHolds, noneMatchHolds, parseRange, type RangeAnswer } from './http-content.ts'
import { previewKindOf } from '../../../shared/files/files.ts'
import { downloadContentType } from './mime-types.ts'
import type { StoredFile } from './repository.ts'
import type { FileStorage } from './storage.ts'

// Sending the drive's bytes, for the owner's routes and the share links alike: one
// file with ETag and Range, or a folder as a zip. Every answer is user content: never sniffed,
// sandboxed should a browser render it, and `inline` only for the few types we preview ourselves.

export type Disposition = 'inline' | 'attachment'

/**
 * `inline` when asked for and the type is one the pages preview themselves (shared/files/files.ts:
 * PNG, JPEG, GIF, WebP, PDF, plain text — never HTML or SVG); `attachment` otherwise.
 */
export function dispositionFor(mimeType: string | null, asked: string | undefined): Disposition {
  return asked === 'inline' && previewKindOf(mimeType) !== null ? 'inline' : 'attachment'
}

function userContentHeaders(reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff')
  reply.header('content-security-policy', "default-src 'none'; sandbox")
}

/**
 * One stored file. The object never changes under its key, so the key is a strong ETag;
 * `If-None-Match` → 304, one `Range` → 206 (past the end → 416), `If-Range` honoured.
 */
export async function sendStoredFile(request: FastifyRequest, reply: FastifyReply, storage: FileStorage, file: StoredFile, disposition: Disposition): Promise<FastifyReply> {
  const { item, storageKey } = file
  const etag = `"${storageKey}"`
  reply.header('etag', etag)
  reply.header('accept-ranges', 'bytes')
  if (noneMatchHolds(request.headers['if-none-match'], etag)) return reply.code(304).send()
  const ifRange = request.headers['if-range']
  const answer: RangeAnswer = ifRangeHolds(typeof ifRange === 'string' ? ifRange : undefined, etag) ? parseRange(request.headers.range, item.size) : { kind: 'full' }
  if (answer.kind === 'unsatisfiable') {
    reply.header('content-range', `bytes */${item.size}`)
    throw new FilesRangeNotSatisfiable()
  }
  const range = answer.kind === 'partial' ? answer.range : undefined
  const body = await storage.get(storageKey, range)
  reply.header('content-disposition', contentDisposition(disposition, item.name))
  userContentHeaders(reply)
  reply.header('content-type', downloadContentType(item.mimeType))
  if (range) {
    reply.code(206)
    reply.header('content-range', `bytes ${range.start}-${range.end}/${item.size}`)
    reply.header('content-length', String(range.end - range.start + 1))
  } else {
    reply.header('content-length', String(item.size))
  }
  return reply.send(body)
}

/**
 * A zip of `entries`, always an attachment called "<name>.zip". No length, ETag or ranges: the
 * archive is made as it is sent. A HEAD answers the headers without reading a stored byte.
 */
export function sendZip(request: FastifyRequest, reply: FastifyReply, name: string, entries: ArchiveEntry[], storage: FileStorage, log: FastifyBaseLogger): FastifyReply {
  reply.header('content-type', 'application/zip')
  reply.header('content-disposition', contentDisposition('attachment', `${name}.zip`))
  userContentHeaders(reply)
  if (request.method === 'HEAD') return reply.send()
  return reply.send(zipStream(entries, storage, log))
}
