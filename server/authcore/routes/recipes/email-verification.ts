import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { CoreServices } from '../../services.ts'
import { BadRequest, query } from '../../input.ts'
import { consumeEmailVerificationToken, createEmailVerificationToken } from '../../tokens.ts'
import { normaliseEmail } from '../../users.ts'

// EmailVerification: tokens, verifying, and what is verified (AUTH-CORE.md §3.4).

export default async function emailVerificationRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { db } = services

  app.post('/recipe/user/email/verify/token', { schema: { body: Type.Object({ userId: Type.String(), email: Type.String() }) } }, async (request) => {
    const input = request.body
    return createEmailVerificationToken(
      db,
      { appId: request.core.appId, tenantId: request.core.tenantId, lifetimeMs: request.core.settings.emailVerificationTokenLifetime },
      input.userId,
      input.email,
    )
  })

  app.post('/recipe/user/email/verify', { schema: { body: Type.Object({ method: Type.String(), token: Type.String() }) } }, async (request) => {
    const input = request.body
    if (input.method !== 'token') throw new BadRequest('Unsupported method for email verification')
    return consumeEmailVerificationToken(db, request.core, input.token)
  })

  app.get('/recipe/user/email/verify', async (request) => {
    const { rowCount } = await db.query('SELECT 1 FROM authcore.email_verified WHERE app_id = $1 AND user_id = $2 AND email = $3', [
      request.core.appId,
      query.string(request.query, 'userId'),
      query.string(request.query, 'email'),
    ])
    return { status: 'OK', isVerified: rowCount > 0 }
  })

  app.post('/recipe/user/email/verify/token/remove', { schema: { body: Type.Object({ userId: Type.String(), email: Type.String() }) } }, async (request) => {
    const input = request.body
    await db.query('DELETE FROM authcore.email_verification_tokens WHERE app_id = $1 AND tenant_id = $2 AND user_id = $3 AND email = $4', [
      request.core.appId,
      request.core.tenantId,
      input.userId,
      normaliseEmail(input.email),
    ])
    return { status: 'OK' }
  })

  app.post('/recipe/user/email/verify/remove', { schema: { body: Type.Object({ userId: Type.String(), email: Type.String() }) } }, async (request) => {
    const input = request.body
    await db.query('DELETE FROM authcore.email_verified WHERE app_id = $1 AND user_id = $2 AND email = $3', [
      request.core.appId,
      input.userId,
      normaliseEmail(input.email),
    ])
    return { status: 'OK' }
  })
}
