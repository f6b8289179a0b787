import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import supertokens from 'supertokens-node'
import EmailPassword from 'supertokens-node/recipe/emailpassword'
import EmailVerification from 'supertokens-node/recipe/emailverification'
import Session, { type SessionContainer } from 'supertokens-node/recipe/session'
import { Type } from 'typebox'
import { isLocale, negotiateLocale, type Locale } from '../../../shared/locales.ts'
import { normaliseEmail, validateEmail } from '../../../shared/auth/sign-up.ts'
import { guardedWrite } from '../csrf.ts'
import type { UpstreamApi } from '../upstream-api.ts'
import {
  BffEmailChangeBlocked,
  BffEmailInvalid,
  BffEmailLinkExpired,
  BffEmailLinkInvalid,
  BffEmailTaken,
  BffEmailUnchanged,
  mailUnavailable,
  BffNoPassword,
  BffNoPendingEmail,
  BffWrongPassword,
} from '../errors.ts'
import { checkCurrentPassword } from './current-password.ts'
import type { EmailChanges, PendingEmailChange } from './email-change-store.ts'
import type { EmailTexts } from '../mail/emails.ts'
import type { SecurityNotices } from './security-notices.ts'
import type { LoginAttempts } from '../auth/login-attempts.ts'
import { recipientHash, type MailGrant } from '../mail/mail-quota.ts'
import { mailServerUnreachable, type MailOutbox } from '../mail/mail-outbox.ts'
import { NoContent, documented } from '../../http/openapi.ts'
import { EMAIL_MAX_LENGTH } from '../../../shared/auth/sign-up.ts'

const Pending = Type.Object({ pendingEmail: Type.String(), expiresAt: Type.String({ description: 'ISO time the link stops working.' }) })
const NullableString = Type.Union([Type.String(), Type.Null()])
// The bodies are checked by the routes themselves, each problem with its own code: documented only.
const CHANGE_BODY = Type.Object({
  newEmail: Type.String({ maxLength: EMAIL_MAX_LENGTH }),
  currentPassword: Type.String({ description: 'Checked like a sign-in: counted by login-attempt blocking.' }),
})
const CONFIRM_BODY = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'The token of the link sent to the new address.' }) })

// Changing the account's email, answered by the BFF, which holds the SDK:
//
//   POST   /api/user/email            { newEmail, currentPassword } → 202 { pendingEmail, expiresAt }
//   GET    /api/user/email            → { email, pendingEmail, expiresAt }
//   POST   /api/user/email/resend     a new link for the waiting change → 202
//   DELETE /api/user/email/pending    forget the waiting change → 204
//   POST   /api/user/email/confirm    { token } (the link's page; the token alone authorises it)
//
// The account keeps its address until the link sent to the new one is opened (the owner of that
// mailbox agrees); the current password is asked first, counted like a sign-in. On confirmation
// the new address is marked verified before it becomes the account's (no moment in which the
// account looks unverified and its sessions are stopped), every session's token carries it from
// its next refresh (this browser's at once), login-attempt blocking follows the account, the
// product API's copy catches up, and the old address is told, with the new one masked. Sessions
// go on: the password did not change, and whoever changed the email had it (docs/decisions/011).

export interface EmailChangeOptions {
  attempts: LoginAttempts
  changes: EmailChanges
  /** Every mail goes through it. */
  outbox: Pick<MailOutbox, 'deliver' | 'checkMailer'>
  mailQuota: { take(address: string): Promise<MailGrant | null>; giveBack(grant: MailGrant): Promise<void> }
  emails: EmailTexts
  /** The note to the old address is the security notice of an email change. */
  notices: Pick<SecurityNotices, 'send'>
  upstreamApi: UpstreamApi
  appOrigin: string
  appUrl: string
  rateLimitMax: number
}

interface ChangeBody {
  newEmail?: unknown
  currentPassword?: unknown
}

/** Link tokens are 32 random bytes, base64url; anything else is not one of ours. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/

export function emailChangeRoutes(app: FastifyInstance, options: EmailChangeOptions): void {
  const { changes } = options
  const writes = guardedWrite(options.appOrigin, options.rateLimitMax)
  const localeOf = (request: FastifyRequest): Locale => negotiateLocale(request.cookies?.lang, request.headers['accept-language'])
  const answer = (change: PendingEmailChange) => ({ pendingEmail: change.newEmail, expiresAt: new Date(change.expiresAt).toISOString() })

  /** The session's own login method, and whether it is the email-and-password one. */
  const loginMethodOf = async (session: SessionContainer) => {
    const user = await supertokens.getUser(session.getUserId())
    const recipeUserId = session.getRecipeUserId().getAsString()
    return user?.loginMethods.find((method) => method.recipeUserId.getAsString() === recipeUserId)
  }

  /** Another account has this address (any sign-in method). */
  const takenByAnother = async (tenantId: string, email: string, userId: string) =>
    (await supertokens.listUsersByAccountInfo(tenantId, { email })).some((user) => user.id !== userId)

  /**
   * The link to the new address, under the hourly cap of mails to one recipient: past the cap
   * nothing is sent and the answer does not change (SECURITY.md "Sign-in abuse"), as for resets.
   */
  const sendLink = async (request: FastifyRequest, change: PendingEmailChange, token: string) => {
    const locale = isLocale(change.locale) ? change.locale : 'en'
    const mail = options.emails.render('changeEmail', locale, change.newEmail, `${options.appUrl}/confirm-email?token=${token}`)
    const grant = await options.mailQuota.take(change.newEmail)
    if (!grant) {
      request.log.info({ event: 'mail-capped', kind: 'changeEmail', recipientHash: recipientHash(change.newEmail) }, 'mail not sent: the recipient has had the most mails an hour allows')
      try {
        await options.outbox.checkMailer()
      } catch (err) {
        if (!mailServerUnreachable(err)) request.log.error({ err }, 'the mail server refused the check')
        throw mailUnavailable()
      }
      return
    }
    try {
      // The asker waits and is told when it fails, and asks again: nothing is left to send later.
      await options.outbox.deliver(mail, { kind: 'changeEmail', locale, userId: change.userId }, 'fail')
    } catch (err) {
      await options.mailQuota.giveBack(grant)
      if (!mailServerUnreachable(err)) request.log.error({ err }, 'the email change link could not be sent')
      throw mailUnavailable()
    }
  }

  app.get('/api/user/email', { schema: { response: { 200: Type.Object({ email: NullableString, pendingEmail: NullableString, expiresAt: NullableString }) } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const session = await Session.getSession(request, reply)
    const method = await loginMethodOf(session)
    const pending = await changes.pending(session.getUserId())
    return { email: method?.email ?? null, pendingEmail: pending?.newEmail ?? null, expiresAt: pending ? new Date(pending.expiresAt).toISOString() : null }
  })

  app.post<{ Body: ChangeBody }>('/api/user/email', { ...documented(writes, { body: { 'application/json': CHANGE_BODY } }), schema: { response: { 202: Pending } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    // A fully signed-in session: verified email and every factor done (the global validators).
    const session = await Session.getSession(request, reply)
    const { newEmail, currentPassword } = request.body ?? {}
    const problem = validateEmail(newEmail)
    if (problem) throw new BffEmailInvalid(problem)
    if (typeof currentPassword !== 'string' || currentPassword === '') throw new BffWrongPassword()
    const method = await loginMethodOf(session)
    if (method?.recipeId !== 'emailpassword' || !method.email) throw new BffNoPassword()
    const wanted = normaliseEmail(newEmail as string)
    if (wanted === normaliseEmail(method.email)) throw new BffEmailUnchanged()

    await checkCurrentPassword({
      attempts: options.attempts,
      request,
      tenantId: session.getTenantId(),
      email: method.email,
      password: currentPassword,
      event: 'email-change',
      refused: 'email change',
      blocked: (message) => new BffEmailChangeBlocked(message),
    })
    // Said plainly: the sign-up form tells anyone whether an address has an account already
    // (/auth/emailpassword/email/exists), and here the password was asked first.
    if (await takenByAnother(session.getTenantId(), wanted, session.getUserId())) throw new BffEmailTaken()

    const { token, change } = await changes.request({
      userId: session.getUserId(),
      recipeUserId: method.recipeUserId.getAsString(),
      tenantId: session.getTenantId(),
      newEmail: wanted,
      locale: localeOf(request),
    })
    try {
      await sendLink(request, change, token)
    } catch (error) {
      // No link went out: nothing waits for one.
      await changes.cancel(change.userId)
      throw error
    }
    request.log.info({ event: 'email-change', outcome: 'requested' }, 'email change requested: a link went to the new address')
    return reply.code(202).send(answer(change))
  })

  app.post('/api/user/email/resend', { ...writes, schema: { response: { 202: Pending } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const session = await Session.getSession(request, reply)
    const renewed = await changes.renew(session.getUserId(), localeOf(request))
    if (!renewed) throw new BffNoPendingEmail()
    if (await takenByAnother(renewed.change.tenantId, renewed.change.newEmail, session.getUserId())) {
      await changes.cancel(session.getUserId())
      throw new BffEmailTaken()
    }
    await sendLink(request, renewed.change, renewed.token)
    return reply.code(202).send(answer(renewed.change))
  })

  app.delete('/api/user/email/pending', { ...writes, schema: { response: { 204: NoContent } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const session = await Session.getSession(request, reply)
    await changes.cancel(session.getUserId())
    return reply.code(204).send()
  })

  app.post<{ Body: { token?: unknown } }>(
    '/api/user/email/confirm',
    { ...documented(writes, { body: { 'application/json': CONFIRM_BODY } }), schema: { response: { 200: Type.Object({ status: Type.Literal('OK'), email: Type.String({ description: 'The account\'s address now.' }) }) } } },
    async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const token = request.body?.token
    if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) throw new BffEmailLinkInvalid()
    const claim = await changes.claim(token)
    if (claim.status === 'EXPIRED') throw new BffEmailLinkExpired()
    if (claim.status === 'INVALID') throw new BffEmailLinkInvalid()
    const { change, tokenHash } = claim

    let oldEmail: string
    try {
      oldEmail = await applyChange(change)
    } catch (error) {
      // A refusal for good spends the link; a failure on the way (the core down) leaves it usable.
      const final = error instanceof BffEmailTaken || error instanceof BffEmailLinkInvalid
      await (final ? changes.finish(tokenHash) : changes.release(tokenHash))
      throw error
    }
    await changes.finish(tokenHash)
    request.log.info({ event: 'email-change', outcome: 'confirmed' }, 'email changed')

    // The change is made: what follows brings the rest in step, and a failure there is logged,
    // never turned into an error the person would take for a change that did not happen.
    await followUp(request, reply, change, oldEmail)
    return { status: 'OK', email: change.newEmail }
  })

  /** Makes the new address the account's; answers the old one. */
  async function applyChange(change: PendingEmailChange): Promise<string> {
    const recipeUserId = supertokens.convertToRecipeUserId(change.recipeUserId)
    const user = await supertokens.getUser(change.recipeUserId)
    const method = user?.loginMethods.find((m) => m.recipeId === 'emailpassword' && m.recipeUserId.getAsString() === change.recipeUserId)
    if (!user || !method?.email) throw new BffEmailLinkInvalid()
    if (method.email === change.newEmail) return method.email
    if (await takenByAnother(change.tenantId, change.newEmail, user.id)) throw new BffEmailTaken()
    // The link proved the mailbox: verified first, so the account is never without a verified email.
    const verification = await EmailVerification.createEmailVerificationToken(change.tenantId, recipeUserId, change.newEmail)
    if (verification.status === 'OK') {
      const verified = await EmailVerification.verifyEmailUsingToken(change.tenantId, verification.token, false)
      if (verified.status !== 'OK') throw new Error(`the core did not verify the new email: ${verified.status}`)
    }
    const updated = await EmailPassword.updateEmailOrPassword({ recipeUserId, email: change.newEmail })
    if (updated.status === 'EMAIL_ALREADY_EXISTS_ERROR') throw new BffEmailTaken()
    if (updated.status === 'UNKNOWN_USER_ID_ERROR') throw new BffEmailLinkInvalid()
    if (updated.status !== 'OK') throw new Error(`the core did not change the email: ${updated.status}`)
    return method.email
  }

  async function followUp(request: FastifyRequest, reply: FastifyReply, change: PendingEmailChange, oldEmail: string): Promise<void> {
    const step = async (what: string, work: () => Promise<unknown>) => {
      try {
        await work()
      } catch (err) {
        request.log.error({ err, event: 'email-change' }, `after the email change: ${what} failed`)
      }
    }
    // A block or failures counted against the old address stay with the account.
    await step('moving the sign-in attempt counter', () => options.attempts.carryOver(oldEmail, change.newEmail))

    // This browser, when it is signed in to the account: a new access token at once.
    let here: SessionContainer | undefined
    try {
      here = await Session.getSession(request, reply, { sessionRequired: false, overrideGlobalClaimValidators: () => [] })
    } catch {
      here = undefined // an expired or ended session: it takes the new email at its refresh, like the others
    }
    if (here && here.getUserId() !== change.userId) here = undefined
    if (here) {
      const session = here
      await step('updating this session', async () => {
        await session.mergeIntoAccessTokenPayload({ email: change.newEmail })
        await session.fetchAndSetClaim(EmailVerification.EmailVerificationClaim)
      })
    }
    // Every other session: the stored payload and claim, taken up at its next refresh.
    await step('updating the other sessions', async () => {
      const handles = (await Session.getAllSessionHandlesForUser(change.userId)).filter((handle) => handle !== here?.getHandle())
      for (const handle of handles) {
        await Session.mergeIntoAccessTokenPayload(handle, { email: change.newEmail })
        await Session.fetchAndSetClaim(handle, EmailVerification.EmailVerificationClaim)
      }
    })
    // The product API follows the core when a token shows it another email: shown one now.
    if (here) {
      const accessToken = here.getAccessToken()
      await step('bringing the product API in step', async () => {
        const response = await options.upstreamApi.request({
          method: 'GET',
          path: '/api/user',
          headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'x-request-id': request.id },
        })
        if (response.status !== 200) throw new Error(`the product API answered ${response.status}`)
      })
    }
    // The old address is told, as every change to the account's security is: what
    // changed (the new address masked), when, from which device, whom to write to if it was not
    // the owner. Not under the hourly cap: it can only reach an address the account proved it
    // owned, and someone who filled that address's cap first must not keep its owner from hearing
    // of this. It never fails the change (SecurityNotices.send logs instead).
    await options.notices.send(request, 'emailChanged', {
      userId: change.userId,
      to: oldEmail,
      newEmail: change.newEmail,
      accessToken: here?.getAccessToken(),
      fallbackLocale: isLocale(change.locale) ? change.locale : undefined,
    })
  }
}
