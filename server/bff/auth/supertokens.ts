import { randomUUID } from 'node:crypto'
import supertokens from 'supertokens-node'
import EmailPassword from 'supertokens-node/recipe/emailpassword'
import EmailVerification from 'supertokens-node/recipe/emailverification'
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth'
import Multitenancy from 'supertokens-node/recipe/multitenancy'
import Session from 'supertokens-node/recipe/session'
import ThirdParty from 'supertokens-node/recipe/thirdparty'
import Totp from 'supertokens-node/recipe/totp'
import UserMetadata from 'supertokens-node/recipe/usermetadata'
import UserRoles from 'supertokens-node/recipe/userroles'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { negotiateLocale, type Locale } from '../../../shared/locales.ts'
import { keptAccountLanguage, type SecurityNotices } from '../account/security-notices.ts'
import { readReturn, returnSearch } from '../../../shared/auth/return-path.ts'
import { BffAuthCoreUnavailable, BffMailUnavailable, BffTotpCodeRequired, mailUnavailable, TOTP_CODE_REQUIRED } from '../errors.ts'
import { afterTotpDeviceRemoved, proveSecondFactor, type FactorProof } from '../account/authenticator.ts'
import { commonPasswordProblem } from './common-passwords.ts'
import type { EmailKind, EmailTexts } from '../mail/emails.ts'
import { mailServerUnreachable, type MailOutbox } from '../mail/mail-outbox.ts'
import { recipientHash, type MailGrant } from '../mail/mail-quota.ts'
import type { RecoveryCodes } from '../account/recovery-codes.ts'
import type { SecondFactorAttempts } from './second-factor-attempts.ts'
import { validatePassword, validateSignUpExtras } from '../../../shared/auth/sign-up.ts'

// supertokens-node in the BFF (DESIGN.md §4.3): EmailPassword with the extra sign-up fields,
// EmailVerification REQUIRED, cookie sessions with the custom-header anti-CSRF, MFA with TOTP,
// UserMetadata, UserRoles, and ThirdParty with the providers configured. The SDK is a process-wide
// singleton: one BFF per process (tests reset it between apps, see resetForTests).
// One file over 500 lines: the SDK takes every recipe and its overrides in one init() call, and the
// overrides share the BFF's state (login blocking, the outbox, role changes) passed to that call.

export const APP_NAME = 'Softshelf'
/** The authenticator app shows this as the account's issuer; spec §3 "a fixed product name". */
export const TOTP_DEVICE_NAME = APP_NAME
/** Longest User-Agent kept with a session (the profile's device list). */
const USER_AGENT_MAX_LENGTH = 300

export interface ProviderSettings {
  thirdPartyId: 'google' | 'github' | 'oidc'
  name: string
  clientId: string
  clientSecret: string
  /** The issuer of a generic OpenID Connect provider. */
  issuer?: string
}

export interface AuthSettings {
  coreUrl: string
  coreApiKey: string | undefined
  appUrl: string
  providers: ProviderSettings[]
  /** Every mail goes through it; its mailer answers whether mail could go out now. */
  outbox: Pick<MailOutbox, 'deliver' | 'checkMailer'>
  emails: EmailTexts
  /** The hourly cap per recipient: a place for one mail, or null past the cap. */
  mailQuota: { take(address: string): Promise<MailGrant | null>; giveBack(grant: MailGrant): Promise<void>; count(address: string): Promise<number> }
  /**
   * Makes (or, idempotently, confirms) the product API's record of the account, with the new
   * session's access token. Sign-up passes its extra fields; sign-in repairs a record a failed
   * sign-up could not make.
   */
  ensureUserRecord(request: FastifyRequest, reply: FastifyReply, accessToken: string, extras: { isInMailList?: boolean; utm?: unknown; signInMethod: string }): Promise<void>
  /**
   * Login-attempt blocking, before the password is checked: counts the attempt for the email as
   * the SDK will use it, or answers a body to send instead (blocked).
   */
  reserveSignIn(request: FastifyRequest, email: string): Promise<Record<string, unknown> | null>
  /** Login-attempt blocking's verdict on a sign-in the SDK answered: a body to send instead, or null. */
  settleSignIn(request: FastifyRequest, status: string): Promise<Record<string, unknown> | null>
  /**
   * A completed password reset proved the mailbox: login-attempt blocking forgets the
   * email's wrong passwords and ends its block, so the new password signs in at once.
   */
  unblockSignIn(request: FastifyRequest, email: string): Promise<void>
  /**
   * Whether a session the SDK verified by its token alone may be used: 'not-session' for a JWT
   * that is not a session's access token, 'revoked' for one ended early, 'unknown' while the
   * revocation list cannot be read (§4).
   */
  sessionVerdict(accessTokens: string[], sessionHandle: string): 'ok' | 'not-session' | 'revoked' | 'unknown'
  /** This BFF ended the session itself (sign-out, theft): refused here at once. */
  sessionEnded(sessionHandle: string): void
  /** Recovery codes: a set issued when the first authenticator is confirmed, dropped with the last one. */
  recoveryCodes: Pick<RecoveryCodes, 'issue' | 'clear' | 'redeem'>
  /** The second factor's one attempt limit: every TOTP code is checked under it. */
  secondFactor: Pick<SecondFactorAttempts, 'checkTotp'>
  /** Tells the account of a change to its security: an authenticator confirmed, a password reset. */
  notices: Pick<SecurityNotices, 'send'>
}

/** The language of the request an SDK call runs for; English outside a request. */
function localeOf(userContext: Record<string, unknown> | undefined): Locale {
  const original = supertokens.getRequestFromUserContext(userContext as never)?.original as FastifyRequest | undefined
  if (!original) return 'en'
  return negotiateLocale(original.cookies?.lang, original.headers['accept-language'])
}

/**
 * The language the account's mails are in (the account's choice, kept in the core, not
 * the language of whichever browser asked for a reset link); undefined when none is kept yet (a
 * new sign-up: the browser's) or the core cannot say — the mail still goes, in the browser's.
 */
async function accountLocale(userId: string, request: FastifyRequest | undefined): Promise<Locale | undefined> {
  try {
    return await keptAccountLanguage(userId)
  } catch (err) {
    request?.log.warn({ err }, "the account's language could not be read: the mail is in the browser's")
    return undefined
  }
}

/**
 * A mailed link with the target the page asked to come back to: the sign-up,
 * "send again" and reset calls carry ?redirectToPath= (and &action=) in their query, checked here
 * as everywhere; the link then works in any browser.
 */
function withReturn(link: string, request: FastifyRequest | undefined): string {
  const search = request ? returnSearch(readReturn(new URL(request.url, 'http://bff.invalid').searchParams)) : ''
  return search ? `${link}${link.includes('?') ? '&' : '?'}${search.slice(1)}` : link
}

function providerConfig(provider: ProviderSettings) {
  // The browser app names its client type "web" (supertokens-web-js' clientType).
  const clients = [{ clientType: 'web', clientId: provider.clientId, clientSecret: provider.clientSecret }]
  if (provider.thirdPartyId === 'oidc') {
    // A custom provider's discovery endpoint is taken as given: the well-known path is ours to add.
    const discovery = provider.issuer!.endsWith('/.well-known/openid-configuration') ? provider.issuer! : `${provider.issuer}/.well-known/openid-configuration`
    return { config: { thirdPartyId: 'oidc', name: provider.name, clients, oidcDiscoveryEndpoint: discovery, scope: ['openid', 'email'], requireEmail: true } }
  }
  return { config: { thirdPartyId: provider.thirdPartyId, name: provider.name, clients } }
}

let initialised = false
/** Set in a request's user context once an email was handed to the mailer. */
const MAIL_ATTEMPTED = 'softshelfMailAttempted'
/**
 * Set by the sign-up before it sends the verification mail: the answer is OK whatever happens to
 * the mail, so one that cannot go out now waits in the outbox instead of being lost.
 */
export const MAIL_MAY_WAIT = 'softshelfMailMayWait'
/** Set in a request's user context once the core was asked to check a password. */
const PASSWORD_CHECKED = 'softshelfPasswordChecked'

export function initSupertokens(settings: AuthSettings): void {
  if (initialised) throw new Error('supertokens-node is already initialised in this process: one BFF per process')
  const send = async (kind: EmailKind, email: string, link: string, userId: string, userContext: Record<string, unknown>) => {
    userContext[MAIL_ATTEMPTED] = true
    const request = supertokens.getRequestFromUserContext(userContext as never)?.original as FastifyRequest | undefined
    const locale = (await accountLocale(userId, request)) ?? localeOf(userContext)
    const mail = settings.emails.render(kind, locale, email, withReturn(link, request))
    const grant = await settings.mailQuota.take(email)
    if (!grant) {
      // Past the cap nothing is sent, and the caller gets the answer a sent mail gets: OK, or 503
      // while mail is down, so the cap does not tell that mails went to this address.
      request?.log.info({ event: 'mail-capped', kind, recipientHash: recipientHash(email) }, 'mail not sent: the recipient has had the most mails an hour allows')
      await checkMailer(request)
      return
    }
    const mayWait = userContext[MAIL_MAY_WAIT] === true
    try {
      const outcome = await settings.outbox.deliver(mail, { kind, locale, userId }, mayWait ? 'queue' : 'fail')
      if (outcome === 'queued') request?.log.info({ event: 'mail-queued', kind, recipientHash: recipientHash(email) }, 'the verification email could not be sent at once: the outbox sends it when the mail server answers')
    } catch (err) {
      await settings.mailQuota.giveBack(grant)
      // The server out of reach is the outbox's outage, logged once; anything else is said here.
      if (!mailServerUnreachable(err)) request?.log.error({ err }, `the ${kind === 'verify' ? 'verification' : 'password reset'} email could not be sent`)
      throw mailUnavailable()
    }
  }
  /** Mail could go out now, else 503: asked when a request sends nothing, to answer as one that does. */
  const checkMailer = async (request: FastifyRequest | undefined) => {
    try {
      await settings.outbox.checkMailer()
    } catch (err) {
      if (!mailServerUnreachable(err)) request?.log.error({ err }, 'the mail server refused the check')
      throw mailUnavailable()
    }
  }
  const https = settings.appUrl.startsWith('https:')
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
      EmailPassword.init({
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
      }),
      EmailVerification.init({
        mode: 'REQUIRED',
        emailDelivery: {
          override: (original) => ({
            ...original,
            sendEmail: async (input) => send('verify', input.user.email, input.emailVerifyLink, input.user.id, input.userContext),
          }),
        },
      }),
      ThirdParty.init({
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
      }),
      Session.init({
        override: {
          functions: (original) => ({
            ...original,
            // The SDK checks an access token's signature and expiry only: a session ended early, or
            // a JWT the core signed for another purpose, must not open a page or /auth.
            getSession: async (input) => {
              const session = await original.getSession(input)
              if (!session) return session
              // The token presented, and the one the core may have issued in its place.
              const verdict = settings.sessionVerdict([...(input.accessToken ? [input.accessToken] : []), session.getAccessToken()], session.getHandle())
              if (verdict === 'unknown') throw new BffAuthCoreUnavailable()
              if (verdict !== 'ok') {
                throw new Session.Error({ type: Session.Error.UNAUTHORISED, message: verdict === 'revoked' ? 'The session has ended' : 'Not a session access token', payload: { clearTokens: true } })
              }
              return session
            },
            revokeSession: async (input) => {
              const revoked = await original.revokeSession(input)
              settings.sessionEnded(input.sessionHandle)
              return revoked
            },
            // The product API reads the account's email from the access token it authorises by.
            // The profile lists the signed-in devices: the session keeps the browser it
            // began in and when it was last used.
            createNewSession: async (input) => {
              const user = await supertokens.getUser(input.recipeUserId.getAsString(), input.userContext)
              const email = user?.loginMethods.find((m) => m.recipeUserId.getAsString() === input.recipeUserId.getAsString())?.email ?? user?.emails[0]
              const request = supertokens.getRequestFromUserContext(input.userContext)?.original as FastifyRequest | undefined
              const userAgent = request?.headers['user-agent']?.slice(0, USER_AGENT_MAX_LENGTH)
              return original.createNewSession({
                ...input,
                accessTokenPayload: { ...input.accessTokenPayload, ...(email ? { email } : {}) },
                sessionDataInDatabase: { ...input.sessionDataInDatabase, ...(userAgent ? { userAgent } : {}), lastUsedAt: Date.now() },
              })
            },
            // A refresh is a use (about once per access-token lifetime while the device is in use).
            refreshSession: async (input) => {
              const session = await original.refreshSession(input)
              try {
                const data = (await session.getSessionDataFromDatabase(input.userContext)) as Record<string, unknown>
                await session.updateSessionDataInDatabase({ ...data, lastUsedAt: Date.now() }, input.userContext)
              } catch (err) {
                // The refresh itself succeeded: a stale "last used" is no reason to fail it.
                ;(supertokens.getRequestFromUserContext(input.userContext)?.original as FastifyRequest | undefined)?.log.warn({ err }, 'the session\'s last use could not be recorded')
              }
              return session
            },
          }),
        },
        getTokenTransferMethod: () => 'cookie',
        cookieSameSite: 'lax',
        cookieSecure: https,
        antiCsrf: 'VIA_CUSTOM_HEADER',
      }),
      MultiFactorAuth.init({ firstFactors: ['emailpassword', 'thirdparty'] }),
      Totp.init({
        issuer: APP_NAME,
        override: {
          // Every TOTP code the BFF has checked — sign-in's, a device's confirmation, and the
          // current code the profile's changes ask for (Totp.verifyTOTP goes through here too) —
          // counts toward the one limit recovery codes share. A right code ends a run
          // of wrong ones, as in the core — but not the OK for a device confirmed already, for
          // which the core checks no code.
          functions: (original) => ({
            ...original,
            verifyTOTP: async (input) => settings.secondFactor.checkTotp(input.userId, () => original.verifyTOTP(input), () => true),
            verifyDevice: async (input) => settings.secondFactor.checkTotp(input.userId, () => original.verifyDevice(input), (answer) => answer.status === 'OK' && !answer.wasAlreadyVerified),
          }),
          apis: (original) => ({
            ...original,
            // Another authenticator for an account that has one takes proof of the factor it
            // already has: a current code of a confirmed device, or a recovery code (spent), in the
            // body as `totp` or `recoveryCode` beside `deviceName` — otherwise a signed-in session
            // alone could add a device and use its codes to remove the owner's and delete the
            // account. Here, in the API the SDK calls for every spelling of the path
            // it routes; a first authenticator needs no code. The SDK's own check that the session
            // may set the factor up comes first, so a refused session spends no code.
            createDevicePOST: async (input) => {
              const userId = input.session.getUserId()
              const devices = await Totp.listDevices(userId, input.userContext)
              const confirmed = devices.devices.filter((device) => device.verified)
              // A confirmed device's own name makes nothing (DEVICE_ALREADY_EXISTS_ERROR): no code is spent on it.
              if (confirmed.length > 0 && !confirmed.some((device) => device.name === input.deviceName)) {
                const request = input.options.req.original as FastifyRequest
                await MultiFactorAuth.assertAllowedToSetupFactorElseThrowInvalidClaimError(input.session, 'totp', input.userContext)
                const body = (await input.options.req.getJSONBody()) as FactorProof | undefined
                try {
                  const by = await proveSecondFactor(settings.recoveryCodes, { tenantId: input.session.getTenantId(), userId }, body, () => new BffTotpCodeRequired(TOTP_CODE_REQUIRED.addDevice), input.userContext)
                  request.log.info({ event: 'totp-device-add', outcome: 'proved', by }, 'another authenticator may be added')
                } catch (error) {
                  request.log.info({ event: 'totp-device-add', outcome: 'refused', code: (error as { code?: string }).code }, 'another authenticator refused: no proof of the one the account has')
                  throw error
                }
              }
              return original.createDevicePOST!(input)
            },
            // A confirmed authenticator protects the account from then on: every sign-in asks for
            // a code. The first one also brings a set of recovery codes, in this answer only: the
            // set-up page shows them once.
            verifyDevicePOST: async (input) => {
              const result = await original.verifyDevicePOST!(input)
              if (result.status !== 'OK') return result
              const userId = input.session.getUserId()
              await MultiFactorAuth.addToRequiredSecondaryFactorsForUser(userId, 'totp', input.userContext)
              // The same device confirmed again changes nothing, and tells nothing.
              if (result.wasAlreadyVerified) return result
              const devices = await Totp.listDevices(userId, input.userContext)
              const first = devices.devices.filter((device) => device.verified).length === 1
              const answer = first ? ({ ...result, recoveryCodes: await settings.recoveryCodes.issue(userId) } as typeof result) : result
              await settings.notices.send(input.options.req.original as FastifyRequest, 'authenticatorAdded', { userId, accessToken: input.session.getAccessToken() })
              return answer
            },
            // Only a set-up that was never confirmed goes without a code (the set-up page abandons
            // one this way); a confirmed device takes a current code, at DELETE /api/user/totp/devices/:name.
            removeDevicePOST: async (input) => {
              const userId = input.session.getUserId()
              const devices = await Totp.listDevices(userId, input.userContext)
              if (devices.devices.some((device) => device.name === input.deviceName && device.verified)) throw new BffTotpCodeRequired(TOTP_CODE_REQUIRED.removeDevice)
              const result = await original.removeDevicePOST!(input)
              if (result.status === 'OK') await afterTotpDeviceRemoved(userId, settings.recoveryCodes, input.userContext)
              return result
            },
          }),
        },
      }),
      UserMetadata.init(),
      // Issue 28: the access token carries the account's roles (`st-role`) and their permissions
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
