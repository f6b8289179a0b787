import ThirdParty from 'supertokens-node/recipe/thirdparty'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { validateSignUpExtras } from '../../../../shared/auth/sign-up.ts'
import { providerConfig, type RecipeContext } from './context.ts'

// ThirdParty in the BFF's SDK: the providers configured; an external sign-up makes the product record too.

export function thirdPartyRecipe({ settings }: RecipeContext) {
  return ThirdParty.init({
    signInAndUpFeature: { providers: settings.providers.map(providerConfig) as never },
    override: {
      apis: (original) => ({
        ...original,
        // An external sign-up makes the product record too, with the UTM record the browser
        // sends along (spec §7); a malformed one is left out rather than failing the sign-in.
        signInUpPOST: async (input) => {
          const result = await original.signInUpPOST!(input)
          if (result.status === 'OK') {
            const request = input.options.req.original as FastifyRequest
            const utm = (request.body as { utm?: unknown } | undefined)?.utm
            const usable = result.createdNewRecipeUser && utm !== undefined && utm !== null && validateSignUpExtras.utm(utm) === undefined
            if (result.createdNewRecipeUser && utm !== undefined && !usable) request.log.warn('external sign-up: the UTM record was malformed and is left out')
            await settings.ensureUserRecord(request, input.options.res.original as FastifyReply, result.session.getAccessToken(), { signInMethod: input.provider.id, ...(usable ? { utm } : {}) })
          }
          return result
        },
      }),
    },
  })
}
