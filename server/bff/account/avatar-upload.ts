import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import Session from 'supertokens-node/recipe/session'
import { avatarDeclaredTypeAllowed, avatarImageType } from '../../../shared/account/avatar.ts'
import { AVATAR_MAX_BYTES } from '../../../shared/constants.ts'
import { AvatarTooLarge, AvatarUnsupportedType } from '../../http/avatar-errors.ts'
import { binaryBody, type OpenApiDocs } from '../../http/openapi.ts'
import { guardedWrite } from '../csrf.ts'
import { relayUpstream, upstreamHeaders } from '../routes/api-proxy.ts'

// PUT /api/user/avatar. The avatar limits are the BFF's own (DESIGN.md): the session is
// checked before the body is read, then the declared type (none, octet-stream or one
// of the three images), a Content-Length over 5 MiB is refused before a byte of the body is read
// and a body that grows past it while streaming is cut off there (Fastify's body limit: at most
// the limit is ever held), and only PNG, JPEG or WebP by content goes on to the product API,
// which decodes and re-encodes it.

// The bytes are the body, and the answer is the API's, relayed: documented only.
const image = binaryBody('PNG, JPEG or WebP by content (a declared type other than these three or application/octet-stream is 415), at most 5 MiB.')
const DOCS: OpenApiDocs = {
  body: { 'image/png': image, 'image/jpeg': image, 'image/webp': image, 'application/octet-stream': image },
  response: { 200: { description: 'Stored, re-encoded as WebP.', content: { 'application/json': { type: 'object', required: ['avatarUrl'], properties: { avatarUrl: { type: 'string', description: 'The new avatar\'s URL (GET /api/avatars/{file}).' } } } } } },
}

export function avatarUploadRoute(app: FastifyInstance, options: { appOrigin: string; rateLimitMax: number }): void {
  const write = guardedWrite(options.appOrigin, options.rateLimitMax)
  void app.register(async (scope) => {
    // Every declared type reaches the route: its onRequest refuses one it does not take with the avatar's own 415, and the bytes decide the rest.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: AVATAR_MAX_BYTES }, (_request, body, done) => done(null, body))
    scope.put(
      '/api/user/avatar',
      {
        bodyLimit: AVATAR_MAX_BYTES,
        config: { ...write.config, openapi: DOCS },
        onRequest: [
          write.onRequest,
          // Fully signed in (verified email, every factor), before the body is read.
          async (request: FastifyRequest, reply: FastifyReply) => void (await Session.getSession(request, reply)),
          // A declared type outside PNG, JPEG and WebP is refused before the body is read (SECURITY.md "Uploads").
          async (request: FastifyRequest) => {
            if (!avatarDeclaredTypeAllowed(request.headers['content-type'])) throw new AvatarUnsupportedType()
          },
        ],
        errorHandler: (error) => {
          throw (error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? new AvatarTooLarge() : error
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store')
        const upload = request.body instanceof Buffer ? request.body : Buffer.alloc(0)
        if (avatarImageType(upload) === null) throw new AvatarUnsupportedType()
        const headers = { ...upstreamHeaders(request), 'content-type': 'application/octet-stream' }
        const response = await app.upstreamApi.request({ method: 'PUT', path: '/api/user/avatar', headers, body: upload })
        return relayUpstream(request, reply, response)
      },
    )
  })
}
