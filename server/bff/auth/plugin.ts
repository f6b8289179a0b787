import fp from 'fastify-plugin'
import path from 'node:path'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { errorHandler as supertokensErrorHandler, plugin as supertokensPlugin } from 'supertokens-node/framework/fastify'
import Session from 'supertokens-node/recipe/session'
import { servesDevConveniences, type Config } from '../../config.ts'
import type { Database } from '../../db/database.ts'
import { EMAIL_CHANGE_LINK_VALIDITY_MS, MAIL_PER_RECIPIENT_PER_HOUR, MAIL_QUOTA_WINDOW_MS, TOTP_COOLDOWN_S, TOTP_MAX_ATTEMPTS } from '../../../shared/constants.ts'
import { isLocale, negotiateLocale } from '../../../shared/locales.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { RevokedSessions } from '../../http/revoked-sessions.ts'
import { jwtParts, sessionTokenProblem, sessionIssuer } from '../../http/session-token.ts'
import { assertSameOriginWrite } from '../csrf.ts'
import { BffNotFound, BffTenantNotFound } from '../errors.ts'
import { accountDeletionRoute } from '../account/account-deletion.ts'
import { avatarUploadRoute } from '../account/avatar-upload.ts'
import { authenticatorRoutes } from '../account/authenticator.ts'
import { checkEmailRoute, verificationMailRoute } from './check-email.ts'
import { authUnavailable } from './core-outage.ts'
import { deviceSessionRoutes } from '../account/device-sessions.ts'
import { operatorVerificationRoute } from './operator-verification.ts'
import { emailChangeRoutes } from '../account/email-change.ts'
import { EmailChanges } from '../account/email-change-store.ts'
import { passwordChangeRoute } from '../account/password-change.ts'
import { clearFrontTokenOnRemove } from './page-session.ts'
import { devMailRoutes } from '../mail/dev-mail.ts'
import { EmailTexts } from '../mail/emails.ts'
import { LoginAttempts } from './login-attempts.ts'
import { blockStatusRoute, guardSignIn, reserveSignIn, settleSignIn, unblockSignIn } from './login-guard.ts'
import { MailQuota } from '../mail/mail-quota.ts'
import type { MailOutbox } from '../mail/mail-outbox.ts'
import type { RoleChanges } from '../../http/role-changes.ts'
import { MailboxMailer, SmtpMailer, type Mailer } from '../mail/mailer.ts'
import { RecoveryCodes } from '../account/recovery-codes.ts'
import { SecondFactorAttempts } from './second-factor-attempts.ts'
import { resetTokenCheckRoute } from './reset-token-check.ts'
import { rememberAccountLanguage, SecurityNotices } from '../account/security-notices.ts'
import { accountLanguageRoute, setLanguageCookie } from '../account/account-language.ts'
import { keepOperatorRolesInSync } from './operator-access.ts'
import type { ProviderSettings } from './sdk-settings.ts'
import { APP_NAME, initSupertokens, resetSupertokensForTests } from './supertokens.ts'


/** supertokens-node's querier, when the core does not have the tenant (or app) a path named: the core's 400. */
const UNKNOWN_TENANT = /^SuperTokens core threw an error .* with status code: 400 and message: AppId or tenantId not found/

/** supertokens-node's own, when its tenant lookup found nothing (login methods; sign-up's first-factor check). */
const SDK_UNKNOWN_TENANT = /^Tenant not found( error\.)?$/

/** Whether `error` says that the tenant of an /auth/{tenantId}/… call does not exist (the core's answer, or the SDK's lookup). */
function isUnknownTenant(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message
  return typeof message === 'string' && (UNKNOWN_TENANT.test(message) || SDK_UNKNOWN_TENANT.test(message))
}

export interface AuthPluginOptions {
  config: Config
  db: Database
  root: string
  /** The auth core the SDK calls; AUTH_CORE_URL or the embedded one by default. */
  coreUrl: string
  /** The key the core asks for; AUTH_CORE_API_KEYS' first by default (the embedded key in `npm start`). */
  coreApiKey?: string | undefined
  /** The clock of the recovery codes' cool-down and of email-change links; tests move it. Date.now by default. */
  now?: (() => number) | undefined
  /** Outgoing mail: made by buildBff, which owns its worker; its mailer is the one the auth flows use. */
  outbox: MailOutbox
  /** The role-change feed, for the one operator route answered here. */
  roleChanges: RoleChanges
}

const WRITE_METHODS = ['POST', 'PUT', 'DELETE'] as const

function providersOf(config: Config): ProviderSettings[] {
  const { google, github, oidc } = config.providers
  return [
    ...(google ? [{ thirdPartyId: 'google' as const, name: 'Google', ...google }] : []),
    ...(github ? [{ thirdPartyId: 'github' as const, name: 'GitHub', ...github }] : []),
    ...(oidc ? [{ thirdPartyId: 'oidc' as const, ...oidc }] : []),
  ]
}

export function mailerFor(config: Config): Mailer {
  return config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new MailboxMailer(path.join(config.dataDir, 'mail'), config.mailFrom)
}

/**
 * `/auth/*`: supertokens-node's API (sign-up, sign-in, verification, resets, sessions, TOTP,
 * external sign-in) against the auth core. Writes need the custom header and a same-origin
 * request (DESIGN.md §4.4) and have their own, stricter per-IP limit.
 */
const authRoutes: FastifyPluginAsync<AuthPluginOptions> = async (app: FastifyInstance, options) => {
  const { config } = options
  const { outbox } = options
  const mailer = outbox.mailer
  const attempts = new LoginAttempts(options.db, config.login)
  const mailQuota = new MailQuota(options.db, MAIL_PER_RECIPIENT_PER_HOUR, MAIL_QUOTA_WINDOW_MS)
  // The TOTP factor's limits, which the auth core's default app keeps too, for TOTP
  // and recovery codes together.
  const secondFactor = new SecondFactorAttempts(options.db, { maxFailures: TOTP_MAX_ATTEMPTS, cooldownMs: TOTP_COOLDOWN_S * 1000 }, options.now)
  const recoveryCodes = new RecoveryCodes(options.db, secondFactor, options.now)
  const emails = new EmailTexts(options.root, APP_NAME)
  const emailChanges = new EmailChanges(options.db, EMAIL_CHANGE_LINK_VALIDITY_MS, options.now)
  const notices = new SecurityNotices({ outbox, emails, upstreamApi: app.upstreamApi, appUrl: config.appUrl, contactEmail: config.contactEmail, now: options.now })
  const coreApiKey = options.coreApiKey
  const revocations = new RevokedSessions({ coreUrl: options.coreUrl, apiKey: coreApiKey, log: app.log })
  app.addHook('onReady', () => revocations.startAndWait())
  app.addHook('onClose', async () => revocations.stop())
  const issuer = sessionIssuer(config.appUrl)
  const https = config.appUrl.startsWith('https:')
  if (process.env.TEST_MODE === 'testing') await resetSupertokensForTests()
  initSupertokens({
    ensureUserRecord: async (request, reply, accessToken, extras) => {
      // The account exists in the core either way: a failure here is logged, and the next
      // sign-in makes the record again.
      try {
        const response = await app.upstreamApi.request({
          method: 'PUT',
          path: '/api/user',
          headers: {
            authorization: `Bearer ${accessToken}`,
            'content-type': 'application/json',
            accept: 'application/json',
            'x-request-id': request.id,
            // For the account's sign-in history ("Your data").
            'x-forwarded-for': request.ip,
            ...(typeof request.headers['user-agent'] === 'string' ? { 'user-agent': request.headers['user-agent'] } : {}),
          },
          body: JSON.stringify({ ...extras, language: negotiateLocale(request.cookies?.lang, request.headers['accept-language']) }),
        })
        if (response.status !== 200) {
          request.log.error({ upstreamStatus: response.status }, 'the product API did not make the user record')
          return
        }
        // A language the user chose on the profile follows the account to every sign-in, on any
        // device; one only recorded at sign-up leaves the visitor's own choice alone.
        const record = JSON.parse(response.body.toString('utf8')) as Partial<UserRecord>
        if (record.languageChosen === true && typeof record.language === 'string' && isLocale(record.language)) {
          setLanguageCookie(reply, record.language, https)
        }
        // The account's language, for the mails sent without a session (a reset's security notice).
        if (typeof record.id === 'string' && typeof record.language === 'string') {
          await rememberAccountLanguage(record.id, record.language).catch((err: unknown) => request.log.warn({ err }, 'the account\'s language could not be kept'))
        }
      } catch (err) {
        request.log.error({ err }, 'the product API did not make the user record')
      }
    },
    reserveSignIn: (request, email) => reserveSignIn(attempts, request, email),
    settleSignIn: (request, status) => settleSignIn(attempts, request, status),
    unblockSignIn: (request, email) => unblockSignIn(attempts, request, email),
    sessionVerdict: (accessTokens, sessionHandle) => {
      for (const token of accessTokens) {
        const parts = jwtParts(token)
        if (!parts || sessionTokenProblem(parts.header, parts.payload, issuer) !== null) return 'not-session'
      }
      if (!revocations.fresh) return 'unknown'
      return revocations.isRevoked(sessionHandle) ? 'revoked' : 'ok'
    },
    // Refused here at once; the core's list, read twice a second, is the authority after that.
    sessionEnded: (sessionHandle) => revocations.add(sessionHandle, Date.now() + 24 * 3_600_000),
    coreUrl: options.coreUrl,
    coreApiKey,
    appUrl: config.appUrl,
    providers: providersOf(config),
    outbox,
    recoveryCodes,
    secondFactor,
    mailQuota,
    emails,
    notices,
  })
  // The operator roles and their permissions in the core, in line with shared/operator.ts;
  // a core not reachable yet only delays them (tried again, logged once).
  let roleSync: ReturnType<typeof keepOperatorRolesInSync> | undefined
  app.addHook('onReady', async () => {
    roleSync = keepOperatorRolesInSync(app.log)
    await roleSync.firstAttempt
  })
  app.addHook('onClose', async () => roleSync?.stop())
  const appOrigin = new URL(config.appUrl).origin
  blockStatusRoute(app, attempts)
  checkEmailRoute(app)
  // Routes of the BFF's own that read the session: the SDK answers its own errors (401 to refresh,
  // 403 for a claim), as it does under /auth.
  const sdkErrors = supertokensErrorHandler()
  await app.register(async (scope) => {
    scope.setErrorHandler(async (error, request, reply) => {
      // The core out of reach or answering 503: 503 BFF_AUTH_CORE_UNAVAILABLE, not a 500.
      const unavailable = authUnavailable(error, { ownDatabase: false })
      if (unavailable) throw unavailable
      if (!Session.Error.isErrorFromSuperTokens(error)) throw error
      await sdkErrors(error as never, request as never, reply as never)
    })
    passwordChangeRoute(scope, { attempts, notices, appOrigin, rateLimitMax: config.authRateLimitMax })
    accountLanguageRoute(scope, { appOrigin, https })
    deviceSessionRoutes(scope, { notices, appOrigin, rateLimitMax: config.authRateLimitMax })
    avatarUploadRoute(scope, { appOrigin, rateLimitMax: config.authRateLimitMax })
    accountDeletionRoute(scope, { appOrigin, https, rateLimitMax: config.authRateLimitMax, attempts, mailQuota, recoveryCodes, emailChanges })
    authenticatorRoutes(scope, { appOrigin, rateLimitMax: config.authRateLimitMax, recoveryCodes, notices })
    verificationMailRoute(scope, outbox)
    // The console's "resend verification", checked and audited by the API first.
    operatorVerificationRoute(scope, { appOrigin, rateLimitMax: config.rateLimitMax, roleChanges: options.roleChanges })
    emailChangeRoutes(scope, {
      attempts,
      changes: emailChanges,
      outbox,
      notices,
      mailQuota,
      emails,
      upstreamApi: app.upstreamApi,
      appOrigin,
      appUrl: config.appUrl,
      rateLimitMax: config.authRateLimitMax,
    })
  })

  await app.register(async (scope) => {
    // A core that cannot be reached or answers 503 (its database down or stuck), or the BFF's own
    // database down, is a 503 here too, never a 500: the browser SDK retries a 503, where a 401
    // would sign the user out. The root handler answers it, with Retry-After.
    scope.setErrorHandler((error, _request, reply) => {
      const message = (error as Error).message ?? ''
      // The SDK fails with a plain error on a client type it has no client for (ours is only
      // "web"): the caller's mistake, decided by the SDK's own lookup whatever the path's spelling.
      if (message.startsWith('Could not find client config for clientType')) return reply.code(400).send({ message: 'clientType must be "web" (or left out)' })
      // /auth/{tenantId}/… naming a tenant the core does not have: the caller's address, not our fault.
      if (isUnknownTenant(error)) throw new BffTenantNotFound()
      throw authUnavailable(error, { ownDatabase: true }) ?? error
    })
    scope.addHook('onRequest', async (request) => assertSameOriginWrite(request, appOrigin))
    // Answers here carry sessions, users and tokens: never stored by a browser or a proxy.
    scope.addHook('onSend', (_request, reply, payload, done) => {
      reply.header('cache-control', 'no-store')
      clearFrontTokenOnRemove(reply, https)
      done(null, payload)
    })
    // A sign-in refused by login-attempt blocking (decided inside the SDK's sign-in API) is a 429.
    guardSignIn(scope)
    // The SDK's hook, on this scope only: it answers the /auth paths it knows.
    await new Promise<void>((resolve, reject) => supertokensPlugin(scope as never, {}, (error?: Error) => (error ? reject(error) : resolve())))
    // Ours beside the SDK's: whether a reset link is still good.
    resetTokenCheckRoute(scope, { coreUrl: options.coreUrl, coreApiKey })
    const notFound = async (request: { method: string; url: string }) => {
      throw new BffNotFound(request.method, request.url.split('?')[0] ?? '/auth')
    }
    scope.route({ method: ['GET', 'HEAD'], url: '/auth/*', handler: notFound })
    scope.route({
      method: [...WRITE_METHODS],
      url: '/auth/*',
      config: { rateLimit: { max: config.authRateLimitMax, timeWindow: 60_000 } },
      handler: notFound,
    })
  })

  // Never in production: the mail is still kept in DATA_DIR/mail, and the start-up log says so (app.ts).
  if (mailer instanceof MailboxMailer && servesDevConveniences(config)) await app.register(devMailRoutes, { mailbox: mailer, appUrl: config.appUrl })
}

export const authPlugin = fp(authRoutes, { name: 'auth', encapsulate: true, dependencies: ['@fastify/cookie', 'rate-limit', 'upstream-api'] })
