import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { AVATAR_FILE_PATTERN } from '../../../shared/account/avatar.ts'
import { binaryBody } from '../../http/openapi.ts'
import { ApiAvatarNotFound } from '../errors.ts'
import { avatarImage } from './repository.ts'

// GET /api/avatars/{hash}.webp: an avatar we encoded, by its content hash. The hash is
// the only key (unguessable: it covers the account and the image), so the URL can be cached for
// ever; a new avatar has a new URL, a removed one answers 404.
async function avatarRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const docs = { response: { 200: { description: 'The image (cached for ever: a new avatar has a new URL).', content: { 'image/webp': binaryBody('A WebP image.') } } } }
  api.get('/api/avatars/:file', { schema: { params: Type.Object({ file: Type.String({ pattern: AVATAR_FILE_PATTERN }) }) }, config: { openapi: docs } }, async (request, reply) => {
    const hash = request.params.file.slice(0, -'.webp'.length)
    const image = await avatarImage(app.db, hash)
    if (!image) throw new ApiAvatarNotFound()
    reply.header('cache-control', 'public, max-age=31536000, immutable')
    reply.header('etag', `"${hash}"`)
    reply.header('x-content-type-options', 'nosniff')
    // Opened on its own, the image may not run or load anything.
    reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
    reply.type('image/webp')
    return reply.send(Buffer.from(image.buffer, image.byteOffset, image.byteLength))
  })
}

export default fp(avatarRoutes, { name: 'users-avatar-routes', encapsulate: true, decorators: { fastify: ['db'] } })
