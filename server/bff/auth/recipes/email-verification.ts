import EmailVerification from 'supertokens-node/recipe/emailverification'
import type { RecipeContext } from './context.ts'

// EmailVerification in the BFF's SDK: required before anything else, its mail through the outbox.

export function emailVerificationRecipe({ send }: RecipeContext) {
  return EmailVerification.init({
    mode: 'REQUIRED',
    emailDelivery: {
      override: (original) => ({
        ...original,
        sendEmail: async (input) => send('verify', input.user.email, input.emailVerifyLink, input.user.id, input.userContext),
      }),
    },
  })
}
