import type { FastifyInstance } from 'fastify'
import type { CoreServices } from '../services.ts'
import accountLinkingRoutes from './recipes/account-linking.ts'
import emailPasswordRoutes from './recipes/email-password.ts'
import emailVerificationRoutes from './recipes/email-verification.ts'
import thirdPartyRoutes from './recipes/third-party.ts'
import totpRoutes from './recipes/totp.ts'
import userMetadataRoutes from './recipes/user-metadata.ts'

// Recipe endpoints (AUTH-CORE.md §3.3–§3.7, §3.10), one module per recipe in recipes/.

export default async function recipeRoutes(app: FastifyInstance, options: { services: CoreServices }): Promise<void> {
  for (const routes of [emailPasswordRoutes, emailVerificationRoutes, thirdPartyRoutes, userMetadataRoutes, totpRoutes, accountLinkingRoutes]) await app.register(routes, options)
}
