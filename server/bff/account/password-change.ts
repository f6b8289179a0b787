import type { FastifyInstance } from 'fastify'
import supertokens from 'supertokens-node'
import EmailPassword from 'supertokens-node/recipe/emailpassword'
import Session from 'supertokens-node/recipe/session'
import { Type } from 'typebox'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, validatePassword } from '../../../shared/auth/sign-up.ts'
import { documented } from '../../http/openapi.ts'
import { guardedWrite } from '../csrf.ts'
import { BffNoPassword, BffPasswordBlocked, BffPasswordInvalid, BffWrongPassword } from '../errors.ts'
import { commonPasswordProblem } from '../auth/common-passwords.ts'
import { checkCurrentPassword } from './current-password.ts'
import type { LoginAttempts } from '../auth/login-attempts.ts'
import type { SecurityNotices } from './security-notices.ts'

// POST /api/user/password: a signed-in user changes their password. The current one
// is checked like a sign-in — counted by login-attempt blocking, so this cannot be used to guess
// it — and once the new one is stored every other session of the account ends (SECURITY.md: a
// password change ends every other session); this one lives on, and the account's address is told
//. Answered by the BFF, which holds
// the SDK; the product API never sees a password.

interface Body {
  currentPassword?: unknown
  newPassword?: unknown
}

// Checked by the route itself, each problem with its own code: documented only.
const BODY = Type.Object({
  currentPassword: Type.String({ description: 'Checked like a sign-in: counted by login-attempt blocking.' }),
  newPassword: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, description: 'Not a common password, and not the current one.' }),
})
const ANSWER = Type.Object({ status: Type.Literal('OK'), sessionsEnded: Type.Integer({ description: 'The other sessions of the account, all ended.' }) })

export function passwordChangeRoute(app: FastifyInstance, options: { attempts: LoginAttempts; notices: Pick<SecurityNotices, 'send'>; appOrigin: string; rateLimitMax: number }): void {
  app.post<{ Body: Body }>(
    '/api/user/password',
    { ...documented(guardedWrite(options.appOrigin, options.rateLimitMax), { body: { 'application/json': BODY } }), schema: { response: { 200: ANSWER } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      // A fully signed-in session: verified email and every factor done (the global validators).
      const session = await Session.getSession(request, reply)
      const { currentPassword, newPassword } = request.body ?? {}
      if (typeof currentPassword !== 'string' || currentPassword === '') throw new BffWrongPassword()
      const rule = validatePassword(newPassword) ?? commonPasswordProblem(newPassword as string)
      if (rule) throw new BffPasswordInvalid(rule)
      if (newPassword === currentPassword) throw new BffPasswordInvalid('The new password must differ from the current one.')

      const user = await supertokens.getUser(session.getUserId())
      const recipeUserId = session.getRecipeUserId()
      const method = user?.loginMethods.find((m) => m.recipeId === 'emailpassword' && m.recipeUserId.getAsString() === recipeUserId.getAsString())
      if (!method?.email) throw new BffNoPassword()

      await checkCurrentPassword({
        attempts: options.attempts,
        request,
        tenantId: session.getTenantId(),
        email: method.email,
        password: currentPassword,
        event: 'password-change',
        refused: 'password change',
        blocked: (message) => new BffPasswordBlocked(message),
      })

      const updated = await EmailPassword.updateEmailOrPassword({ recipeUserId, password: newPassword as string, tenantIdForPasswordPolicy: session.getTenantId() })
      if (updated.status === 'PASSWORD_POLICY_VIOLATED_ERROR') throw new BffPasswordInvalid(updated.failureReason)
      if (updated.status !== 'OK') throw new Error(`the core did not store the new password: ${updated.status}`)
      const others = (await Session.getAllSessionHandlesForUser(session.getUserId())).filter((handle) => handle !== session.getHandle())
      const ended = others.length > 0 ? await Session.revokeMultipleSessions(others) : []
      request.log.info({ event: 'password-change', outcome: 'changed', sessionsEnded: ended.length }, 'password changed')
      await options.notices.send(request, 'passwordChanged', { userId: session.getUserId(), to: method.email, accessToken: session.getAccessToken() })
      return { status: 'OK', sessionsEnded: ended.length }
    },
  )
}
