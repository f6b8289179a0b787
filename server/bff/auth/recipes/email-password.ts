import { randomUUID } from 'node:crypto'
import EmailPassword from 'supertokens-node/recipe/emailpassword'
import EmailVerification from 'supertokens-node/recipe/emailverification'
import Multitenancy from 'supertokens-node/recipe/multitenancy'
import Session from 'supertokens-node/recipe/session'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { BffMailUnavailable } from '../../errors.ts'
import { commonPasswordProblem } from '../common-passwords.ts'
import { validatePassword, validateSignUpExtras } from '../../../../shared/auth/sign-up.ts'
import { accountLocale, localeOf, MAIL_ATTEMPTED, MAIL_MAY_WAIT, PASSWORD_CHECKED, type RecipeContext } from './context.ts'

// EmailPassword in the BFF's SDK: the sign-up and sign-in with the extra sign-up fields, the password rules, the reset mail.

export function emailPasswordRecipe({ settings, send, checkMailer }: RecipeContext) {
  return EmailPassword.init({
    signUpFeature: {
      formFields: [
        // Also the rule of the reset form, which takes the sign-up form's password field.
        { id: 'password', validate: async (value) => validatePassword(value) ?? commonPasswordProblem(value as string) },
        { id: 'isInMailList', optional: true, validate: async (value) => validateSignUpExtras.isInMailList(value) },
        { id: 'utm', optional: true, validate: async (value) => validateSignUpExtras.utm(value) },
      ],
    },
    override: {
      // Which sign-ins reached the core's password check (see signInPOST).
      functions: (original) => ({
        ...original,
        signIn: async (input) => {
          input.userContext[PASSWORD_CHECKED] = true
          return original.signIn(input)
        },
        verifyCredentials: async (input) => {
          input.userContext[PASSWORD_CHECKED] = true
          return original.verifyCredentials(input)
        },
      }),
      apis: (original) => ({
        ...original,
        // Login-attempt blocking counts and settles every sign-in here, in the API the SDK calls
        // only for a request it routed as a sign-in, after its own form checks, with the email
        // trimmed as it will use it: no spelling of the path or padding of the email reaches the
        // password check uncounted. A success also (re)makes the product record.
        signInPOST: async (input) => {
          const request = input.options.req.original as FastifyRequest
          const email = input.formFields.find((field) => field.id === 'email')?.value
          if (typeof email !== 'string') throw new Error('the SDK validated the sign-in form without an email')
          const refused = await settings.reserveSignIn(request, email)
          if (refused) return refused as never
          let result: Awaited<ReturnType<NonNullable<typeof original.signInPOST>>>
          try {
            result = await original.signInPOST!(input)
          } catch (error) {
            await settings.settleSignIn(request, 'ERROR')
            throw error
          }
          // The SDK answers an email without an account (or a generated one) before the core
          // checks any password: 5–10 times faster than a wrong password for a real account,
          // which told who has one. The core verifies a decoy of the app's own hash
          // for an email it does not know, so it is asked here too, after the tenant lookup the
          // SDK's checks make for a real account, and its answers are ignored.
          if (result.status === 'WRONG_CREDENTIALS_ERROR' && input.userContext[PASSWORD_CHECKED] !== true) {
            const password = input.formFields.find((field) => field.id === 'password')?.value
            try {
              await Multitenancy.getTenant(input.tenantId, input.userContext)
              if (typeof password === 'string') await input.options.recipeImplementation.verifyCredentials({ email, password, tenantId: input.tenantId, userContext: input.userContext })
            } catch (err) {
              request.log.warn({ err }, 'the decoy password check failed')
            }
          }
          const blocked = await settings.settleSignIn(request, result.status)
          if (blocked) return blocked as typeof result
          if (result.status === 'OK') await settings.ensureUserRecord(request, input.options.res.original as FastifyReply, result.session.getAccessToken(), { signInMethod: 'password' })
          return result
        },
        // A reset link asked for an address without an account sends nothing, yet does the work
        // a sent one does (11 ms against 31 ms told who has an account): the core
        // looks for the user, the mail is rendered, the cap is read, and the mailer is asked
        // whether it could take a message; while mail is down that answers 503 all the same.
        generatePasswordResetTokenPOST: async (input) => {
          const result = await original.generatePasswordResetTokenPOST!(input)
          if (result.status === 'OK' && input.userContext[MAIL_ATTEMPTED] !== true) {
            const email = input.formFields.find((field) => field.id === 'email')?.value
            if (typeof email === 'string') {
              // A user id nobody has: the core answers UNKNOWN_USER_ID_ERROR after its lookup.
              await EmailPassword.createResetPasswordToken(input.tenantId, randomUUID(), email, input.userContext)
              // As a sent one reads the account's language, from the core too.
              const locale = (await accountLocale(randomUUID(), input.options.req.original as FastifyRequest)) ?? localeOf(input.userContext)
              settings.emails.render('reset', locale, email, `${settings.appUrl}/reset-password?token=${'x'.repeat(64)}&tenantId=${input.tenantId}`)
              await settings.mailQuota.count(email)
            }
            await checkMailer(input.options.req.original as FastifyRequest)
          }
          return result
        },
        // A new password ends every session of the account, the thief's first, and
        // any sign-in block of its email: the link proved the mailbox.
        passwordResetPOST: async (input) => {
          const result = await original.passwordResetPOST!(input)
          if (result.status === 'OK') {
            await Session.revokeAllSessionsForUser(result.user.id, true, undefined, input.userContext)
            await settings.unblockSignIn(input.options.req.original as FastifyRequest, result.email)
            // A spent link cannot reset twice: one notice per reset.
            const request = input.options.req.original as FastifyRequest
            await settings.notices.send(request, 'passwordReset', { userId: result.user.id, to: result.email })
          }
          return result
        },
        // The verification mail leaves with the sign-up itself; /email-not-verified resends.
        signUpPOST: async (input) => {
          const result = await original.signUpPOST!(input)
          if (result.status === 'OK') {
            const field = (id: string) => input.formFields.find((f) => f.id === id)?.value
            const isInMailList = field('isInMailList')
            await settings.ensureUserRecord(input.options.req.original as FastifyRequest, input.options.res.original as FastifyReply, result.session.getAccessToken(), {
              signInMethod: 'password',
              ...(typeof isInMailList === 'boolean' ? { isInMailList } : {}),
              ...(field('utm') !== undefined ? { utm: field('utm') } : {}),
            })
            const method = result.user.loginMethods.find((m) => m.recipeUserId.getAsString() === result.session.getRecipeUserId().getAsString())
            // A mail server that is down must not turn the sign-up into an error (the account
            // exists): the mail waits in the outbox, and /check-email says so.
            input.userContext[MAIL_MAY_WAIT] = true
            try {
              await EmailVerification.sendEmailVerificationEmail(input.tenantId, result.user.id, result.session.getRecipeUserId(), method?.email, input.userContext)
            } catch (error) {
              // Only when not even the outbox could take it (logged in send); /check-email resends on request.
              if (!(error instanceof BffMailUnavailable)) throw error
            } finally {
              delete input.userContext[MAIL_MAY_WAIT]
            }
          }
          return result
        },
      }),
    },
    emailDelivery: {
      override: (original) => ({
        ...original,
        sendEmail: async (input) => send('reset', input.user.email, input.passwordResetLink, input.user.id, input.userContext),
      }),
    },
  })
}
