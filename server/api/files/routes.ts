import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { NoContent } from '../../http/openapi.ts'
import { ApiValidation } from '../errors.ts'
import { answerPrivately, type SessionGuard } from '../session-guard.ts'
import { folderArchive, selectionEntries } from './archive.ts'
import { dispositionFor, sendStoredFile, sendZip } from './downloads.ts'
import { FilesNotFound } from './errors.ts'
import type { FilesRepository } from './repository.ts'
import { FolderListing, TrashItem, Usage } from '../../../shared/files/schemas.ts'
import { ContentDocs, Disposition, Item, ItemId, ZipDocs } from './schemas.ts'

// The drive's HTTP contract: a fully signed-in user's files and folders, the trash, and
// downloads. Every route checks ownership through the repository (another user's id answers
// FILES_NOT_FOUND). Uploads (tus) are upload-routes.ts. Share links have their own routes (share-routes.ts). Every answer is
// private: Cache-Control no-store.

const ParentId = Type.Union([Type.Null(), ItemId])
// Long enough that an over-long name gets FILES_NAME_INVALID, with its explanation.
const Name = Type.String({ maxLength: 4096 })
/** At most this many items in one "download selected" zip. */
const MAX_SELECTION = 100
/** The zip of a selection: "files.zip". */
const ARCHIVE_NAME = 'files'

export interface FilesRouteOptions {
  guard: SessionGuard
  files: FilesRepository
}

async function filesRoutes(app: FastifyInstance, opts: FilesRouteOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const { guard, files } = opts
  const preHandler = guard.authenticate('complete')

  answerPrivately(app)

  api.get(
    '/api/files',
    {
      preHandler,
      schema: {
        querystring: Type.Object({ folder: Type.Optional(ItemId) }),
        response: { 200: FolderListing },
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

  api.delete('/api/files/:id', { preHandler, schema: { params: Type.Object({ id: ItemId }), response: { 204: NoContent } } }, async (request, reply) => {
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

  api.delete('/api/files/trash', { preHandler, schema: { response: { 204: NoContent } } }, async (request, reply) => {
    const user = await guard.activeUser(request)
    const deleted = await files.emptyTrash(user.id)
    request.log.info({ event: 'files-trash-emptied', deleted }, 'a user emptied the trash')
    return reply.code(204).send()
  })

  // A file's bytes (downloads.ts: ETag, Range, never run on our origin), or a folder as a zip of
  // everything live in it. `disposition=inline` previews the types we render ourselves; anything
  // else is an attachment whatever is asked.
  api.get(
    '/api/files/:id/content',
    { preHandler, schema: { params: Type.Object({ id: ItemId }), querystring: Type.Object({ disposition: Type.Optional(Disposition) }) }, config: { openapi: ContentDocs } },
    async (request, reply) => {
      const user = await guard.activeUser(request)
      const found = await files.storedFile(user.id, request.params.id)
      if ('folder' in found) {
        const archive = await folderArchive(app.db, user.id, request.params.id)
        if (!archive) throw new FilesNotFound()
        return sendZip(request, reply, archive.name, archive.entries, files.storage, request.log)
      }
      return sendStoredFile(request, reply, files.storage, found, dispositionFor(found.item.mimeType, request.query.disposition))
    },
  )

  // "Download selected": several items of one user as one zip, each at its root under its own name.
  api.get(
    '/api/files/archive',
    { preHandler, schema: { querystring: Type.Object({ items: Type.String({ minLength: 1, maxLength: 101 * MAX_SELECTION }) }) }, config: { openapi: ZipDocs } },
    async (request, reply) => {
      const user = await guard.activeUser(request)
      const ids = [...new Set(request.query.items.split(',').map((id) => id.trim()).filter((id) => id !== ''))]
      if (ids.length === 0 || ids.length > MAX_SELECTION) throw new ApiValidation(`items must name between 1 and ${MAX_SELECTION} items, separated by commas.`)
      const entries = await selectionEntries(app.db, user.id, ids)
      if (!entries) throw new FilesNotFound()
      return sendZip(request, reply, ARCHIVE_NAME, entries, files.storage, request.log)
    },
  )
}

export default fp(filesRoutes, { name: 'files-routes', encapsulate: true, decorators: { fastify: ['db'] } })
