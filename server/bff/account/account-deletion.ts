import type { FastifyInstance } from 'fastify'
import supertokens from 'supertokens-node'
import Session from 'supertokens-node/recipe/session'
import Totp from 'supertokens-node/recipe/totp'
import { Type } from 'typebox'
import { DELETION_COMMENT_MAX_LENGTH } from '../../../shared/constants.ts'
import { DELETION_REASONS, checkDeletionReason } from '../../../shared/account/profile.ts'
import { guardedWrite } from '../csrf.ts'
import { BffConfirmEmailMismatch, BffDeletionPending, BffTotpCodeRequired, BffValidation, TOTP_CODE_REQUIRED } from '../errors.ts'
import { checkTotpCode } from './authenticator.ts'
import { relayUpstream, upstreamHeaders } from '../routes/api-proxy.ts'
import type { LoginAttempts } from '../auth/login-attempts.ts'
import type { MailQuota } from '../mail/mail-quota.ts'
import type { RecoveryCodes } from './recovery-codes.ts'
import type { EmailChanges } from './email-change-store.ts'
import { clearFrontTokenOnRemove } from '../auth/page-session.ts'
import { NoContent, documented } from '../../http/openapi.ts'

// POST /api/user/delete. The BFF confirms it is the person — the account's email typed
// again, and a current authenticator code when the account has one — then the product API deletes
// the account (the auth-core user first, then the product's data, keeping only an anonymous
// reason; see server/api/users/deletions.ts). The BFF forgets what it keeps by email (login
// attempts, the mail cap) and by account (recovery codes, a
// pending email change) and signs this browser out; every other session is already refused.

interface Body {
  reason?: unknown
  comment?: unknown
  confirmEmail?: unknown
  totp?: unknown
}

// Checked by the route itself, each problem with its own code: documented only.
const BODY = Type.Object({
  reason: Type.Unsafe<string>({ type: 'string', enum: [...DELETION_REASONS] }),
  comment: Type.Optional(Type.Union([Type.String({ maxLength: DELETION_COMMENT_MAX_LENGTH }), Type.Null()], { description: 'Required when the reason is "other".' })),
  confirmEmail: Type.String({ description: 'The account\'s email, typed again.' }),
  totp: Type.Optional(Type.String({ description: 'A current code of the authenticator; required when the account has one.' })),
})

const normalised = (email: string) => email.trim().toLowerCase()

export function accountDeletionRoute(app: FastifyInstance, options: { appOrigin: string; https: boolean; rateLimitMax: number; attempts: LoginAttempts; mailQuota: MailQuota; recoveryCodes: RecoveryCodes; emailChanges: EmailChanges }): void {
  app.post<{ Body: Body }>(
    '/api/user/delete',
    { ...documented(guardedWrite(options.appOrigin, options.rateLimitMax), { body: { 'application/json': BODY } }), schema: { response: { 204: NoContent } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      const session = await Session.getSession(request, reply)
      const { reason, comment, confirmEmail, totp } = request.body ?? {}
      const checked = checkDeletionReason(reason, comment)
      if ('problem' in checked) throw new BffValidation(checked.problem)

      const userId = session.getUserId()
      const user = await supertokens.getUser(userId)
      if (!user) throw new BffValidation('There is no such account.')
      if (typeof confirmEmail !== 'string' || !user.emails.some((email) => normalised(email) === normalised(confirmEmail))) throw new BffConfirmEmailMismatch()

      const devices = await Totp.listDevices(userId)
      if (devices.status === 'OK' && devices.devices.some((device) => device.verified)) {
        const code = typeof totp === 'string' ? totp.replace(/\s/g, '') : ''
        if (!/^\d{6,8}$/.test(code)) throw new BffTotpCodeRequired(TOTP_CODE_REQUIRED.deleteAccount)
        await checkTotpCode(session.getTenantId(), userId, code)
      }

      const response = await app.upstreamApi.request({
        method: 'POST',
        path: '/api/user/delete',
        headers: { ...upstreamHeaders(request), 'content-type': 'application/json' },
        body: JSON.stringify({ reason: checked.reason, comment: checked.comment }),
      })
      // Anything but done or "going" (the core did not answer; the API finishes it within minutes): the API's answer, nothing deleted.
      if (response.status !== 204 && response.status !== 503) return relayUpstream(request, reply, response)
      const pending = response.status === 503 && errorCodeOf(response.body) === 'API_DELETION_PENDING'
      if (response.status === 503 && !pending) return relayUpstream(request, reply, response)

      await options.recoveryCodes.clear(userId)
      await options.emailChanges.cancel(userId)
      for (const email of user.emails) {
        await options.attempts.forget(email)
        await options.mailQuota.forget(email)
      }
      // Clears this browser's session cookies (the session itself is gone with the user).
      await session.revokeSession()
      clearFrontTokenOnRemove(reply, options.https)
      request.log.info({ event: 'account-deleted', pending }, pending ? 'account deletion requested; the API finishes it' : 'account deleted')
      if (pending) throw Object.assign(new BffDeletionPending(), { retryAfter: 60 })
      return reply.code(204).send()
    },
  )
}

function errorCodeOf(body: Buffer): string | undefined {
  try {
    return (JSON.parse(body.toString('utf8')) as { code?: string }).code
  } catch {
    return undefined
  }
}
