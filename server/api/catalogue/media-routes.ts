import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { PROGRAM_LOGO_FILE_PATTERN, SCREENSHOT_FILE_PATTERN } from '../../../shared/catalogue/media.ts'
import { binaryBody } from '../../http/openapi.ts'
import { ApiImageNotFound } from '../errors.ts'
import { logoFile, screenshotFile, uploadedLogoIndex } from './media-repository.ts'

// Programs' uploaded images, public: screenshots (GET /api/screenshots/{hash}.webp)
// and logos (GET /api/program-logos/{hash}.svg|webp) by their content hash, cached for ever like
// avatars (a new image is a new URL), and the index of uploaded logos the BFF serves in place of
// the generated marks (GET /api/program-logos).

/** Opened on its own, an image may not run or load anything (an SVG is a document). */
const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"

function sendImage(reply: FastifyReply, hash: string, type: string, image: Uint8Array) {
  reply.header('cache-control', 'public, max-age=31536000, immutable')
  reply.header('etag', `"${hash}"`)
  reply.header('x-content-type-options', 'nosniff')
  reply.header('content-security-policy', IMAGE_CSP)
  reply.type(type)
  return reply.send(Buffer.from(image.buffer, image.byteOffset, image.byteLength))
}

async function mediaRoutes(plugin: FastifyInstance): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()

  const webp = { response: { 200: { description: 'The image (cached for ever: a new image has a new URL).', content: { 'image/webp': binaryBody('A WebP image.') } } } }
  app.get('/api/screenshots/:file', { schema: { params: Type.Object({ file: Type.String({ pattern: SCREENSHOT_FILE_PATTERN }) }) }, config: { openapi: webp } }, async (request, reply) => {
    const hash = request.params.file.slice(0, -'.webp'.length)
    const image = await screenshotFile(app.db, hash)
    if (!image) throw new ApiImageNotFound()
    return sendImage(reply, hash, 'image/webp', image)
  })

  const logo = {
    response: {
      200: { description: 'The uploaded logo (cached for ever: a new logo has a new URL).', content: { 'image/svg+xml': binaryBody('A sanitised SVG.'), 'image/webp': binaryBody('A WebP image.') } },
    },
  }
  app.get('/api/program-logos/:file', { schema: { params: Type.Object({ file: Type.String({ pattern: PROGRAM_LOGO_FILE_PATTERN }) }) }, config: { openapi: logo } }, async (request, reply) => {
    const [hash, extension] = request.params.file.split('.') as [string, string]
    const file = await logoFile(app.db, hash)
    if (!file || (extension === 'svg') !== (file.contentType === 'image/svg+xml')) throw new ApiImageNotFound()
    return sendImage(reply, hash, file.contentType === 'image/svg+xml' ? 'image/svg+xml; charset=utf-8' : file.contentType, file.image)
  })

  const LogoIndex = Type.Object({
    logos: Type.Array(Type.Object({ programId: Type.String(), contentType: Type.String(), url: Type.String({ description: 'GET /api/program-logos/{file}' }) }), {
      description: 'Every program with an uploaded logo, by id; the others show the generated one.',
    }),
  })
  app.get('/api/program-logos', { schema: { response: { 200: LogoIndex } } }, async (_request, reply) => {
    reply.header('cache-control', 'no-cache')
    return { logos: (await uploadedLogoIndex(app.db)).map(({ programId, contentType, url }) => ({ programId, contentType, url })) }
  })
}

export default fp(mediaRoutes, { name: 'catalogue-media-routes', encapsulate: true, decorators: { fastify: ['db'] } })
