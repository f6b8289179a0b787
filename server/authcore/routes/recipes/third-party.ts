import type { FastifyInstance } from 'fastify'
import type { CoreServices } from '../../services.ts'
import { asObject, body } from '../../input.ts'
import { thirdPartySignInUp } from '../../users.ts'
import { isUniqueViolation, userOrFail } from './shared.ts'

// ThirdParty: sign-in or sign-up with an external provider's account (AUTH-CORE.md §3.5).

export default async function thirdPartyRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { db } = services

  app.post('/recipe/signinup', async (request) => {
    const input = asObject(request.body)
    const email = body.object(input, 'email')
    const data = {
      thirdPartyId: body.string(input, 'thirdPartyId'),
      thirdPartyUserId: body.string(input, 'thirdPartyUserId'),
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
