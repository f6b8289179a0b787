import fp from 'fastify-plugin'
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ERRORS, Server, TUS_RESUMABLE } from '@tus/server'
import type { Database } from '../../db/database.ts'
import { binaryBody, type OpenApiDocs } from '../../http/openapi.ts'
import { answerPrivately, type SessionGuard } from '../session-guard.ts'
import {
  FilesUploadBeyondLength,
  FilesUploadExpired,
  FilesUploadFinished,
  FilesUploadInvalid,
  FilesUploadLocked,
  FilesUploadNotFound,
  FilesUploadOffsetMismatch,
  FilesUploadVersion,
} from './errors.ts'
import type { FilesRepository } from './repository.ts'
import { DEFAULT_LOCK_TIMINGS, PostgresLocker, type LockTimings } from './upload-locker.ts'
import { uploadTarget } from './upload-metadata.ts'
import { DriveUploadStore, uploadRequests, type UploadRequestContext } from './upload-store.ts'

// Resumable uploads: tus 1.0.0 with creation, creation-with-upload, termination and
// expiration, at /api/files/uploads, spoken by @tus/server over our store and lock (decision 014).
// Our routes come first — the session's user, fully signed in, before a byte is read — then tus
// handles the request as a web Request whose body is the raw stream, and its answer is ours to
// send: the protocol's headers pass, its plain-text failures become our JSON errors.

export const UPLOADS_PATH = '/api/files/uploads'

/** Request headers tus reads; nothing else reaches it. */
const TUS_REQUEST_HEADERS = ['tus-resumable', 'upload-length', 'upload-defer-length', 'upload-offset', 'upload-metadata', 'upload-concat', 'content-type', 'content-length'] as const
/** Answer headers of the protocol (tus's CORS headers stay out: the drive is same-origin only). */
const TUS_RESPONSE_HEADERS = new Set(['tus-version', 'tus-extension', 'tus-max-size', 'upload-offset', 'upload-length', 'upload-metadata', 'upload-expires', 'location'])

// The protocol in the document (docs/API.md "Uploads"): its headers and raw bodies, which tus reads
// itself, are documentation only (config.openapi).
const header = (description: string, type: 'string' | 'integer' = 'string') => ({ type, description })
const TUS_RESUMABLE_HEADER = { 'tus-resumable': { ...header('The protocol version: 1.0.0.'), enum: ['1.0.0'] } }
const CHUNK = { 'application/offset+octet-stream': binaryBody('The bytes, from Upload-Offset on.') }
const UPLOAD_DOCS: Record<'post' | 'options' | 'head' | 'patch' | 'delete', OpenApiDocs> = {
  post: {
    headers: {
      type: 'object',
      required: ['tus-resumable', 'upload-length'],
      properties: {
        ...TUS_RESUMABLE_HEADER,
        'upload-length': header('The file\'s size in bytes (a deferred length is not accepted).', 'integer'),
        'upload-metadata': header('Comma-separated "key base64(value)" pairs: filename, and the target folder (docs/API.md).'),
      },
    },
    body: CHUNK,
    bodyRequired: false,
    response: {
      201: {
        description: 'The upload is made (creation-with-upload: with the bytes sent); continue it at Location.',
        headers: { location: header('/api/files/uploads/{id}, same-origin.'), 'upload-expires': header('When an unfinished upload is dropped (HTTP date).'), 'upload-offset': header('Bytes stored, when some were sent.', 'integer') },
      },
    },
  },
  options: { response: { 204: { description: 'What the server speaks.', headers: { 'tus-version': header('1.0.0'), 'tus-extension': header('creation,creation-with-upload,termination,expiration'), 'tus-max-size': header('The largest file, in bytes.', 'integer') } } } },
  head: {
    headers: { type: 'object', required: ['tus-resumable'], properties: TUS_RESUMABLE_HEADER },
    response: { 200: { description: 'Where the upload stands (no body).', headers: { 'upload-offset': header('Bytes stored.', 'integer'), 'upload-length': header('The declared size.', 'integer'), 'upload-metadata': header('As sent.'), 'upload-expires': header('While unfinished (HTTP date).') } } },
  },
  patch: {
    headers: { type: 'object', required: ['tus-resumable', 'upload-offset'], properties: { ...TUS_RESUMABLE_HEADER, 'upload-offset': header('Where the bytes go: the current offset (HEAD says it).', 'integer') } },
    body: CHUNK,
    response: { 204: { description: 'Stored; the PATCH that completes the upload answers once the file exists.', headers: { 'upload-offset': header('The new offset.', 'integer'), 'upload-expires': header('While unfinished (HTTP date).') } } },
  },
  delete: {
    headers: { type: 'object', required: ['tus-resumable'], properties: TUS_RESUMABLE_HEADER },
    response: { 204: { description: 'Cancelled: the bytes and the reservation are gone.' } },
  },
}

export interface UploadRouteOptions {
  guard: SessionGuard
  files: FilesRepository
  db: Database
  now: () => number
  lockTimings?: LockTimings
}

/** tus's failures, answered with our codes and the statuses tus gives them. */
function driveError(error: unknown, files: FilesRepository): Error | undefined {
  switch (error) {
    case ERRORS.INVALID_OFFSET:
      return new FilesUploadOffsetMismatch('Upload-Offset is not where the upload stands: ask with HEAD where to continue.')
    case ERRORS.FILE_NOT_FOUND:
      return new FilesUploadNotFound()
    case ERRORS.FILE_NO_LONGER_EXISTS:
      return new FilesUploadExpired()
    case ERRORS.ERR_SIZE_EXCEEDED:
      return new FilesUploadBeyondLength()
    case ERRORS.ERR_MAX_SIZE_EXCEEDED:
      return files.tooLargeError()
    case ERRORS.INVALID_TERMINATION:
      return new FilesUploadFinished()
    case ERRORS.ERR_LOCK_TIMEOUT:
    case ERRORS.ABORTED:
      return new FilesUploadLocked()
    case ERRORS.MISSING_OFFSET:
      return new FilesUploadInvalid('A PATCH must say where its bytes go: send Upload-Offset.')
    case ERRORS.INVALID_CONTENT_TYPE:
      return new FilesUploadInvalid('A PATCH carries bytes as "Content-Type: application/offset+octet-stream".')
    case ERRORS.INVALID_LENGTH:
    case ERRORS.UNSUPPORTED_CREATION_DEFER_LENGTH_EXTENSION:
      return new FilesUploadInvalid('A new upload must declare its size in Upload-Length; uploads of a length not known yet are not accepted.')
    case ERRORS.INVALID_METADATA:
      return new FilesUploadInvalid('Upload-Metadata is not valid: comma-separated pairs of a key and a base64 value.')
    case ERRORS.UNSUPPORTED_CONCATENATION_EXTENSION:
      return new FilesUploadInvalid('Uploads in parallel parts (tus concatenation) are not supported: send the file as one upload.')
  }
  // Ours (FILES_*), or a fault that our error handler logs and answers as a 500.
  return error instanceof Error ? error : undefined
}

/** A failure tus wrote itself, without an error object: a wrong protocol version or malformed headers. */
function writtenError(status: number, text: string): Error {
  if (status === 412) return new FilesUploadVersion()
  if (status === 404) return new FilesUploadNotFound()
  if (status === 400) {
    const names = /^Invalid (.+)$/.exec(text.trim())?.[1]
    return new FilesUploadInvalid(names ? `These headers are not valid for tus 1.0.0: ${names}.` : 'The request is not a valid tus 1.0.0 request.')
  }
  return new Error(`tus answered ${status}: ${text.slice(0, 200)}`)
}

function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers()
  for (const name of TUS_REQUEST_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers.set(name, value)
  }
  const withBody = request.method === 'PATCH' || request.method === 'POST'
  return new Request(new URL(request.url, 'http://api.invalid'), {
    method: request.method,
    headers,
    // The socket's stream itself: bytes reach the store as they arrive, memory stays flat.
    body: withBody ? (Readable.toWeb(request.raw) as ReadableStream<Uint8Array>) : null,
    duplex: 'half',
  } as RequestInit)
}

async function uploadRoutes(app: FastifyInstance, opts: UploadRouteOptions): Promise<void> {
  const { guard, files } = opts
  const store = new DriveUploadStore(files, opts.now)
  const tus = new Server({
    path: UPLOADS_PATH,
    datastore: store,
    locker: new PostgresLocker(opts.db, opts.lockTimings ?? DEFAULT_LOCK_TIMINGS, (id) => store.settled(id)),
    // Time a holder asked to give way has to end its write on its own before it is cut.
    lockDrainTimeout: opts.lockTimings?.heartbeatMs ?? DEFAULT_LOCK_TIMINGS.heartbeatMs,
    // Location: /api/files/uploads/<id>, the same path through the BFF.
    relativeLocation: true,
    respectForwardedHeaders: false,
    maxSize: files.limits.maxFileBytes,
    namingFunction: () => randomBytes(16).toString('base64url'),
    disableTerminationForFinishedUploads: true,
    onUploadCreate: async (_request, upload) => {
      const context = uploadRequests.getStore()!
      context.target = uploadTarget(upload.metadata ?? {})
      return {}
    },
    onUploadFinish: async (_request, upload) => {
      await store.finish(upload.id)
      return {}
    },
    onResponseError: (_request, error) => {
      const context = uploadRequests.getStore()
      if (context) context.error = driveError(error, files)
      return undefined
    },
  })

  // Bodies are not parsed: tus reads the raw stream, after the session check.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, _payload, done) => done(null))
  answerPrivately(app)
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('tus-resumable', TUS_RESUMABLE)
    return payload
  })

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await guard.activeUser(request)
    const context: UploadRequestContext = { userId: user.id }
    const response = await uploadRequests.run(context, () => tus.handleWeb(toWebRequest(request)))
    const text = await response.text()
    if (response.status >= 400) {
      // A refused body still on its way is not read to its end: the connection closes instead.
      if (!request.raw.readableEnded) reply.header('connection', 'close')
      throw context.error ?? writtenError(response.status, text)
    }
    for (const [name, value] of response.headers) {
      if (TUS_RESPONSE_HEADERS.has(name)) reply.header(name, value)
    }
    // Upload-Expires as it stands after this request (tus reckons a PATCH's from before it), on every
    // answer about an unfinished upload, HEAD included.
    if (context.expiresAt !== undefined && !context.finished && request.method !== 'DELETE') reply.header('upload-expires', new Date(context.expiresAt).toUTCString())
    else reply.removeHeader('upload-expires')
    if (response.headers.get('connection') === 'close') reply.header('connection', 'close')
    return reply.code(response.status).send()
  }

  const preHandler = guard.authenticate('complete')
  const Id = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 100 } }, required: ['id'] } as const
  // Bytes may take minutes to arrive (a slow line): no body deadline, the idle timeout still holds.
  const config = { longBody: true }
  // One route a method, so that each has its own description in the document.
  for (const method of ['POST', 'OPTIONS'] as const) {
    app.route({ method, url: UPLOADS_PATH, preHandler, config: { ...config, openapi: UPLOAD_DOCS[method.toLowerCase() as Lowercase<typeof method>] }, handler: handle })
  }
  for (const method of ['HEAD', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
    const docs = UPLOAD_DOCS[method.toLowerCase() as Lowercase<typeof method>]
    // A HEAD route of its own is left out of the document unless it asks (there is no GET beside it).
    const swagger = method === 'HEAD' ? { swagger: { exposeHeadRoute: true } } : {}
    app.route({ method, url: `${UPLOADS_PATH}/:id`, preHandler, config: { ...config, ...swagger, openapi: docs }, schema: { params: Id }, handler: handle })
  }
}

export default fp(uploadRoutes, { name: 'files-upload-routes', encapsulate: true })
