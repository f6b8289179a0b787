import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { JsonObject } from '../../body-schema.ts'
import type { CoreServices } from '../../services.ts'
import { body } from '../../input.ts'
import { thirdPartySignInUp } from '../../users.ts'
import { isUniqueViolation, userOrFail } from './shared.ts'

// ThirdParty: sign-in or sign-up with an external provider's account (AUTH-CORE.md §3.5).

export default async function thirdPartyRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { db } = services

  app.post('/recipe/signinup', { schema: { body: Type.Object({ email: JsonObject, thirdPartyId: Type.String(), thirdPartyUserId: Type.String() }) } }, async (request) => {
    const input = request.body
    const email = input.email
    const data = {
      thirdPartyId: input.thirdPartyId,
      thirdPartyUserId: input.thirdPartyUserId,
      email: body.string(email, 'id'),
      isVerified: body.optBoolean(email, 'isVerified') ?? false,
    }
    const { appId, tenantId } = request.core
    const attempt = () => db.transaction((tx) => thirdPartySignInUp(tx, appId, tenantId, data))
    let result
    try {
      result = await attempt()
    } catch (error) {
      // The same first sign-in twice at once: the second finds the user the first made.
      if (!isUniqueViolation(error)) throw error
      result = await attempt()
    }
    if (result.status !== 'OK') return result
    return { status: 'OK', createdNewUser: result.createdNewUser, user: await userOrFail(db, appId, result.recipeUserId), recipeUserId: result.recipeUserId }
  })
}
