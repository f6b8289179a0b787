import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { viewOnlyPreviewable } from '../../../shared/files/files.ts'
import { NoContent } from '../../http/openapi.ts'
import { answerPrivately, type SessionGuard } from '../session-guard.ts'
import { folderArchive } from './archive.ts'
import { dispositionFor, sendStoredFile, sendZip } from './downloads.ts'
import { FilesNotFound } from './errors.ts'
import type { FilesRepository } from './repository.ts'
import { ShareDownloadNotAllowed, ShareNotFound, SharePasswordRequired, SharePasswordWrong, SharePreviewTooLarge } from './share-errors.ts'
import { UNLOCK_TTL_MS, type ShareTokens } from './share-tokens.ts'
import { CreatedShare, SharedView, ShareSummary } from '../../../shared/files/schemas.ts'
import { ContentDocs, Disposition, ItemId as Id } from './schemas.ts'
import type { OpenShare, SharesRepository } from './shares.ts'

// Share links' HTTP contract (decision 016): the owner's routes under /api/files (a
// fully signed-in session, like the drive), and the visitor's under /api/sharing (no session).
// A password-protected link needs the token its unlock gave, as `x-share-token` (the BFF keeps it
// in an httpOnly cookie of that link). Every /api/sharing answer carries `Referrer-Policy:
// no-referrer` (the link must not leak to the sites a shared document links to) and
// `X-Robots-Tag: noindex, nofollow`; every answer of both is `no-store`, so a revoked or expired
// link is refused on every request rather than served from a cache.

// Links are 32 base64url characters; anything else cannot exist.
const Link = Type.String({ minLength: 1, maxLength: 64 })

export interface ShareRouteOptions {
  guard: SessionGuard
  files: FilesRepository
  shares: SharesRepository
  tokens: ShareTokens
  now: () => number
}

/**
 * The visitor's IP as the BFF saw it (it sets `x-forwarded-for` to the address it trusts, per
 * TRUST_PROXY, replacing whatever the browser sent); the API itself listens on loopback or a
 * private network only. Without the header: the connection's address.
 */
export function visitorIp(request: FastifyRequest): string {
  const forwarded = request.headers['x-forwarded-for']
  const first = typeof forwarded === 'string' ? forwarded.split(',')[0]?.trim() : undefined
  return first !== undefined && first !== '' && first.length <= 64 ? first : request.ip
}

async function shareRoutes(app: FastifyInstance, opts: ShareRouteOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const { guard, files, shares, tokens, now } = opts
  const preHandler = guard.authenticate('complete')

  answerPrivately(app)
  api.addHook('onSend', async (request, reply, payload) => {
    // By the matched route, not the URL's spelling.
    if (request.routeOptions.url?.startsWith('/api/sharing/')) {
      reply.header('referrer-policy', 'no-referrer')
      reply.header('x-robots-tag', 'noindex, nofollow')
    }
    return payload
  })

  // ---- The owner's side ----

  api.post(
    '/api/files/:id/shares',
    {
      preHandler,
      schema: {
        params: Type.Object({ id: Id }),
        body: Type.Object(
          {
            // Checked by the repository, so a wrong length gets its own code and message.
            password: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 4096 })])),
            expiresAt: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 64 })])),
            allowDownload: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedShare },
      },
    },
    async (request, reply) => {
      const user = await guard.activeUser(request)
      const created = await shares.create(user.id, request.params.id, request.body)
      request.log.info({ event: 'share-created', shareId: created.id, withPassword: request.body.password != null }, 'a user created a share link')
      return reply.code(201).send(created)
    },
  )

  api.get('/api/files/shares', { preHandler, schema: { response: { 200: Type.Object({ items: Type.Array(ShareSummary) }) } } }, async (request) => {
    const user = await guard.activeUser(request)
    return { items: await shares.list(user.id) }
  })

  api.delete('/api/files/shares/:id', { preHandler, schema: { params: Type.Object({ id: Id }), response: { 204: NoContent } } }, async (request, reply) => {
    const user = await guard.activeUser(request)
    await shares.revoke(user.id, request.params.id)
    request.log.info({ event: 'share-revoked', shareId: request.params.id }, 'a user revoked a share link')
    return reply.code(204).send()
  })

  // ---- The visitor's side ----

  /** A file of the share's owner; gone meanwhile (a race with a deletion), the share finds nothing. */
  const storedFileIn = async (share: OpenShare, itemId: string) => {
    try {
      return await files.storedFile(share.userId, itemId)
    } catch (error) {
      if (error instanceof FilesNotFound) throw new ShareNotFound()
      throw error
    }
  }

  /** The share behind the link, once its password (if any) has been proven by a token. */
  const unlocked = async (request: FastifyRequest, link: string): Promise<OpenShare> => {
    const share = await shares.open(link)
    if (share.passwordHash !== null) {
      const token = request.headers['x-share-token']
      if (!(await tokens.verify(typeof token === 'string' ? token : undefined, share.id, share.link, now()))) throw new SharePasswordRequired()
    }
    return share
  }

  api.get(
    '/api/sharing/:link',
    { schema: { params: Type.Object({ link: Link }), querystring: Type.Object({ folder: Type.Optional(Id) }), response: { 200: SharedView } } },
    async (request) => {
      const share = await unlocked(request, request.params.link)
      const summary = { name: share.itemName, type: share.itemType, allowDownload: share.allowDownload, expiresAt: share.expiresAt, hasPassword: share.passwordHash !== null }
      const folderId = request.query.folder
      if (share.itemType === 'file') {
        if (folderId !== undefined) throw new ShareNotFound()
        const found = await storedFileIn(share, share.itemId)
        if ('folder' in found) throw new ShareNotFound()
        await shares.countView(share.id)
        return { share: summary, item: found.item }
      }
      const path = folderId === undefined ? [{ id: share.itemId, name: share.itemName, type: 'folder' as const }] : await shares.pathWithin(share, folderId)
      const current = path?.at(-1)
      if (!path || !current || current.type !== 'folder') throw new ShareNotFound()
      const listing = await files.list(share.userId, current.id)
      // One view per opening of the link, not per folder browsed or file downloaded.
      if (folderId === undefined || folderId === share.itemId) await shares.countView(share.id)
      return {
        share: summary,
        folder: { id: current.id, name: current.name, path: path.map(({ id, name }) => ({ id, name })) },
        items: listing.items,
      }
    },
  )

  api.post(
    '/api/sharing/:link/unlock',
    {
      schema: {
        params: Type.Object({ link: Link }),
        body: Type.Object({ password: Type.String({ maxLength: 4096 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ ok: Type.Literal(true), token: Type.String(), expiresAt: Type.String() }) },
      },
    },
    async (request) => {
      const share = await shares.open(request.params.link)
      const expiresAtMs = Math.min(now() + UNLOCK_TTL_MS, share.expiresAt === null ? Infinity : Date.parse(share.expiresAt))
      if (share.passwordHash !== null) {
        const attempt = await shares.beginAttempt(share.id, visitorIp(request))
        const right = await shares.passwordMatches(share, request.body.password)
        await shares.settleAttempt(attempt, right)
        if (!right) {
          request.log.info({ event: 'share-password-wrong', shareId: share.id }, 'a wrong password was given for a share link')
          throw new SharePasswordWrong()
        }
      }
      return { ok: true as const, token: await tokens.issue(share.id, share.link, expiresAtMs), expiresAt: new Date(expiresAtMs).toISOString() }
    },
  )

  api.get(
    '/api/sharing/:link/content',
    { schema: { params: Type.Object({ link: Link }), querystring: Type.Object({ item: Type.Optional(Id), disposition: Type.Optional(Disposition) }) }, config: { openapi: ContentDocs } },
    async (request, reply) => {
      const share = await unlocked(request, request.params.link)
      const itemId = request.query.item ?? share.itemId
      const path = itemId === share.itemId ? [{ id: share.itemId, name: share.itemName, type: share.itemType }] : await shares.pathWithin(share, itemId)
      const target = path?.at(-1)
      if (!target) throw new ShareNotFound()
      if (target.type === 'folder') {
        // A zip is always a download.
        if (!share.allowDownload) throw new ShareDownloadNotAllowed()
        const archive = await folderArchive(app.db, share.userId, target.id)
        if (!archive) throw new ShareNotFound()
        return sendZip(request, reply, archive.name, archive.entries, files.storage, request.log)
      }
      const found = await storedFileIn(share, target.id)
      if ('folder' in found) throw new ShareNotFound()
      const disposition = dispositionFor(found.item.mimeType, request.query.disposition)
      // Without downloads, a preview of a type we render, up to a size, is still shown:
      // what a browser shows can be saved, so this is a deterrent, not DRM (decision 016).
      if (!share.allowDownload && disposition === 'attachment') throw new ShareDownloadNotAllowed()
      if (!share.allowDownload && !viewOnlyPreviewable(found.item)) throw new SharePreviewTooLarge()
      return sendStoredFile(request, reply, files.storage, found, disposition)
    },
  )
}

export default fp(shareRoutes, { name: 'files-share-routes', encapsulate: true, decorators: { fastify: ['db'] } })
