import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ApiValidation } from '../errors.ts'
import type { SessionGuard } from '../session-guard.ts'
import { FilesIsAFolder, FilesRangeNotSatisfiable } from './errors.ts'
import { attachmentDisposition, ifRangeHolds, noneMatchHolds, parseRange, type RangeAnswer } from './http-content.ts'
import { DEFAULT_MIME_TYPE } from './mime-types.ts'
import type { FilesRepository } from './repository.ts'

// The drive's HTTP contract (issue 12): a fully signed-in user's files and folders, the trash, and
// downloads. Every route checks ownership through the repository (another user's id answers
// FILES_NOT_FOUND). Uploads (tus) come in the next step; until then files are made by
// FilesRepository.addFile. Every answer is private: Cache-Control no-store.

// Ids are opaque; a longer one cannot exist, so it is not found rather than invalid.
const ItemId = Type.String({ minLength: 1, maxLength: 100 })
const ParentId = Type.Union([Type.Null(), ItemId])
// Long enough that an over-long name gets FILES_NAME_INVALID, with its explanation.
const Name = Type.String({ maxLength: 4096 })

const Item = Type.Object({
  id: Type.String(),
  type: Type.Union([Type.Literal('file'), Type.Literal('folder')]),
  name: Type.String(),
  size: Type.Number(),
  mimeType: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.String(),
})
const Usage = Type.Object({ used: Type.Number(), quota: Type.Number() })
const Folder = Type.Object({
  id: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()]),
  path: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
})
const TrashItem = Type.Intersect([Item, Type.Object({ trashedAt: Type.String(), purgeAt: Type.String(), originalParentId: Type.Union([Type.String(), Type.Null()]) })])

export interface FilesRouteOptions {
  guard: SessionGuard
  files: FilesRepository
}

export default async function filesRoutes(app: FastifyInstance, opts: FilesRouteOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const { guard, files } = opts
  const preHandler = guard.authenticate('complete')

  api.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store')
    return payload
  })

  api.get(
    '/api/files',
    {
      preHandler,
      schema: {
        querystring: Type.Object({ folder: Type.Optional(ItemId) }),
        response: { 200: Type.Object({ folder: Folder, items: Type.Array(Item), usage: Usage }) },
      },
    },
    async (request) => {
      const user = await guard.activeUser(request)
      return files.list(user.id, request.query.folder ?? null)
    },
  )

  api.post(
    '/api/files/folders',
    {
      preHandler,
      schema: {
        body: Type.Object({ parentId: Type.Optional(ParentId), name: Name }, { additionalProperties: false }),
        response: { 201: Item },
      },
    },
    async (request, reply) => {
      const user = await guard.activeUser(request)
      const folder = await files.createFolder(user.id, request.body.parentId ?? null, request.body.name)
      return reply.code(201).send(folder)
    },
  )

  api.patch(
    '/api/files/:id',
    {
      preHandler,
      schema: {
        params: Type.Object({ id: ItemId }),
        body: Type.Object({ name: Type.Optional(Name), parentId: Type.Optional(ParentId) }, { additionalProperties: false }),
        response: { 200: Item },
      },
    },
    async (request) => {
      const user = await guard.activeUser(request)
      const { name, parentId } = request.body
      if (name === undefined && parentId === undefined) throw new ApiValidation('Give a name or a parentId to change.')
      return files.update(user.id, request.params.id, { ...(name !== undefined ? { name } : {}), ...(parentId !== undefined ? { parentId } : {}) })
    },
  )

  api.delete('/api/files/:id', { preHandler, schema: { params: Type.Object({ id: ItemId }) } }, async (request, reply) => {
    const user = await guard.activeUser(request)
    await files.trash(user.id, request.params.id)
    return reply.code(204).send()
  })

  api.get('/api/files/trash', { preHandler, schema: { response: { 200: Type.Object({ items: Type.Array(TrashItem), usage: Usage }) } } }, async (request) => {
    const user = await guard.activeUser(request)
    return files.listTrash(user.id)
  })

  api.post('/api/files/:id/restore', { preHandler, schema: { params: Type.Object({ id: ItemId }), response: { 200: Item } } }, async (request) => {
    const user = await guard.activeUser(request)
    return files.restore(user.id, request.params.id)
  })

  api.delete('/api/files/trash', { preHandler }, async (request, reply) => {
    const user = await guard.activeUser(request)
    const deleted = await files.emptyTrash(user.id)
    request.log.info({ event: 'files-trash-emptied', deleted }, 'a user emptied the trash')
    return reply.code(204).send()
  })

  // A file's bytes. The stored object never changes under its key, so the key is a strong ETag.
  // Always an attachment, never sniffed, and sandboxed should a browser render it anyway: an
  // uploaded HTML or SVG file can never run script on our origin (SECURITY.md "Uploads").
  api.get('/api/files/:id/content', { preHandler, schema: { params: Type.Object({ id: ItemId }) } }, async (request, reply) => {
    const user = await guard.activeUser(request)
    const found = await files.storedFile(user.id, request.params.id)
    if ('folder' in found) throw new FilesIsAFolder()
    const { item, storageKey } = found
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
    const body = await files.storage.get(storageKey, range)
    reply.header('content-disposition', attachmentDisposition(item.name))
    reply.header('x-content-type-options', 'nosniff')
    reply.header('content-security-policy', "default-src 'none'; sandbox")
    reply.header('content-type', item.mimeType ?? DEFAULT_MIME_TYPE)
    if (range) {
      reply.code(206)
      reply.header('content-range', `bytes ${range.start}-${range.end}/${item.size}`)
      reply.header('content-length', String(range.end - range.start + 1))
    } else {
      reply.header('content-length', String(item.size))
    }
    return reply.send(body)
  })
}
