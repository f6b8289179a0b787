import supertokens from 'supertokens-node'
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth'
import UserMetadata from 'supertokens-node/recipe/usermetadata'
import UserRoles from 'supertokens-node/recipe/userroles'
import type { FastifyRequest } from 'fastify'

import { recipeContext } from './recipes/context.ts'
import { emailPasswordRecipe } from './recipes/email-password.ts'
import { emailVerificationRecipe } from './recipes/email-verification.ts'
import { sessionRecipe } from './recipes/session.ts'
import { thirdPartyRecipe } from './recipes/third-party.ts'
import { totpRecipe } from './recipes/totp.ts'
import { APP_NAME, type AuthSettings } from './sdk-settings.ts'

// supertokens-node in the BFF (DESIGN.md §4.3): EmailPassword with the extra sign-up fields,
// EmailVerification REQUIRED, cookie sessions with the custom-header anti-CSRF, MFA with TOTP,
// UserMetadata, UserRoles, and ThirdParty with the providers configured. The SDK is a process-wide
// singleton: one BFF per process (tests reset it between apps, see resetForTests).
// Each recipe's overrides are a module of recipes/, given the BFF's state (sdk-settings.ts) and the
// mail senders they share (recipes/context.ts).

export { APP_NAME } from './sdk-settings.ts'

let initialised = false

export function initSupertokens(settings: AuthSettings): void {
  if (initialised) throw new Error('supertokens-node is already initialised in this process: one BFF per process')
  const context = recipeContext(settings)
  supertokens.init({
    framework: 'fastify',
    // No calls to SuperTokens' servers: our core is the only network peer of the SDK.
    telemetry: false,
    supertokens: {
      connectionURI: settings.coreUrl,
      ...(settings.coreApiKey ? { apiKey: settings.coreApiKey } : {}),
      // The browser's request id goes with every call to the core, so the core's log lines carry it.
      networkInterceptor: (call, userContext) => {
        const request = supertokens.getRequestFromUserContext(userContext)?.original as FastifyRequest | undefined
        return request ? { ...call, headers: { ...call.headers, 'x-request-id': request.id } } : call
      },
    },
    appInfo: { appName: APP_NAME, apiDomain: settings.appUrl, websiteDomain: settings.appUrl, apiBasePath: '/auth', websiteBasePath: '/' },
    recipeList: [
      emailPasswordRecipe(context),
      emailVerificationRecipe(context),
      thirdPartyRecipe(context),
      sessionRecipe(context),
      MultiFactorAuth.init({ firstFactors: ['emailpassword', 'thirdparty'] }),
      totpRecipe(context),
      UserMetadata.init(),
      // The access token carries the account's roles (`st-role`) and their permissions
      // (`st-perm`) from sign-in on; the operator check reads them again when they change
      // (operator-access.ts, the role-change feed).
      UserRoles.init(),
    ],
  })
  initialised = true
}

/**
 * Tests build several BFFs in one process, one after the other (and test files run one after
 * another in one process, some of which set the SDK up themselves): the SDK and its recipes keep
 * their configuration in module state, which only its test mode (TEST_MODE=testing) can reset.
 * Resets whoever initialised it.
 */
export async function resetSupertokensForTests(): Promise<void> {
  const recipes = ['emailpassword', 'emailverification', 'multifactorauth', 'session', 'thirdparty', 'totp', 'usermetadata', 'userroles', 'multitenancy', 'accountlinking', 'dashboard']
  for (const recipe of recipes) {
    const module = (await import(`supertokens-node/lib/build/recipe/${recipe}/recipe`)) as { default: { default?: { reset(): void }; reset?(): void } }
    const Recipe = module.default.default ?? module.default
    Recipe.reset?.()
  }
  const core = (await import('supertokens-node/lib/build/supertokens')) as { default: { default?: { reset(): void }; reset?(): void } }
  ;(core.default.default ?? core.default).reset?.()
  initialised = false
}
