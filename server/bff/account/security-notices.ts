import type { FastifyRequest } from 'fastify'
import supertokens from 'supertokens-node'
import UserMetadata from 'supertokens-node/recipe/usermetadata'
import { isLocale, negotiateLocale, type Locale } from '../../../shared/locales.ts'
import { deviceName } from '../../../shared/account/user-agent.ts'
import type { UpstreamApi } from '../upstream-api.ts'
import type { EmailTexts, SecurityChange } from '../mail/emails.ts'
import { recipientHash } from '../mail/mail-quota.ts'
import type { MailOutbox } from '../mail/mail-outbox.ts'

// Security notices: every change to an account's security — an authenticator added
// or removed, recovery codes renewed, the password changed or reset, the email changed, sessions
// signed out — is told to the account's address, in the account's language: what changed, when
// (UTC), from which device (browser and system from the User-Agent, and the IP), and what to do
// if it was not the owner. One mail kind, `securityNotice`, with what changed as its parameter
// (emails.ts renders it). Sent only once the change is made, through the outbox without waiting
// for the mail server (mail-outbox.ts 'later'): a mail outage, or any failure here, is logged and
// never turns the change into an error nor delays its answer (docs/decisions/026).

/** The language the account's mail is in, kept with the account in the core's user metadata. */
const LANGUAGE_KEY = 'language'
/** How long the change's answer may wait for the product API's record: past it, the kept language. */
export const LANGUAGE_LOOKUP_MS = 1_500

export interface SecurityNoticeOptions {
  outbox: Pick<MailOutbox, 'deliver'>
  emails: EmailTexts
  upstreamApi: UpstreamApi
  appUrl: string
  contactEmail: string
  now?: (() => number) | undefined
}

export interface NoticeTarget {
  userId: string
  /** The session's access token, when the change was made with one: the profile's language is read with it. */
  accessToken?: string | undefined
  /** The address to tell; the account's own by default (the email change tells the old one). */
  to?: string | undefined
  /** The new address, for an email change (shown masked). */
  newEmail?: string | undefined
  /** The language when the account's is not known. */
  fallbackLocale?: Locale | undefined
}

/** Remembers the account's language for mails sent without a session (a reset through its link). */
export async function rememberAccountLanguage(userId: string, language: string): Promise<void> {
  if (!isLocale(language)) return
  await UserMetadata.updateUserMetadata(userId, { [LANGUAGE_KEY]: language })
}

/**
 * The account's language as kept in the core (its profile's, remembered at sign-in and at every
 * change): what a mail sent without a session of the account is written in — a reset link asked
 * from another browser, a notice (one language per account, every mail included).
 */
export async function keptAccountLanguage(userId: string): Promise<Locale | undefined> {
  const { metadata } = await UserMetadata.getUserMetadata(userId)
  const kept = (metadata as Record<string, unknown>)[LANGUAGE_KEY]
  return typeof kept === 'string' && isLocale(kept) ? kept : undefined
}

export class SecurityNotices {
  private readonly now: () => number

  constructor(private readonly options: SecurityNoticeOptions) {
    this.now = options.now ?? Date.now
  }

  /** Tells the account of a change just made. Never throws: a failure is a log line. */
  async send(request: FastifyRequest, change: SecurityChange, target: NoticeTarget): Promise<void> {
    try {
      const to = target.to ?? (await this.addressOf(target.userId))
      if (!to) {
        request.log.warn({ event: 'security-notice', change }, 'no security notice: the account has no email address')
        return
      }
      const locale = await this.localeOf(request, target)
      const userAgent = request.headers['user-agent']
      const mail = this.options.emails.renderSecurityNotice(locale, to, change, {
        at: new Date(this.now()),
        device: deviceName(typeof userAgent === 'string' ? userAgent : null),
        ip: request.ip,
        forgotPasswordUrl: `${this.options.appUrl}/forgot-password`,
        profileUrl: `${this.options.appUrl}/@/my-profile`,
        contact: this.options.contactEmail,
        ...(target.newEmail ? { newEmail: target.newEmail } : {}),
      })
      // Nobody waits for it, and it must arrive: written to the outbox, tried at once without
      // waiting, and retried by the worker while the mail server is down. Not under the
      // hourly cap: it only reaches the account's own address, and whoever filled that address's
      // cap must not keep its owner from hearing of a change.
      await this.options.outbox.deliver(mail, { kind: 'securityNotice', locale, userId: target.userId }, 'later')
      request.log.info({ event: 'security-notice', change, recipientHash: recipientHash(to) }, 'security notice queued')
    } catch (err) {
      request.log.error({ err, event: 'security-notice', change }, 'the security notice could not be queued')
    }
  }

  /** The account's email: its email-and-password sign-in's, else the first it has. */
  private async addressOf(userId: string): Promise<string | undefined> {
    const user = await supertokens.getUser(userId)
    return user?.loginMethods.find((method) => method.recipeId === 'emailpassword' && method.email)?.email ?? user?.emails[0]
  }

  /**
   * The account's language: the profile's (read from the product API with the session's token),
   * else the one kept in the core at the last sign-in, else the request's own.
   */
  private async localeOf(request: FastifyRequest, target: NoticeTarget): Promise<Locale> {
    if (target.accessToken) {
      try {
        const asked = this.options.upstreamApi.request({
          method: 'GET',
          path: '/api/user',
          headers: { authorization: `Bearer ${target.accessToken}`, accept: 'application/json', 'x-request-id': request.id },
        })
        asked.catch(() => undefined) // answered late, or failed after the deadline: nobody waits for it
        let timer: NodeJS.Timeout | undefined
        const response = await Promise.race([asked, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), LANGUAGE_LOOKUP_MS)))]).finally(() => clearTimeout(timer))
        if (response === null) request.log.warn({ event: 'security-notice' }, 'the product API did not answer in time: the account\'s kept language is used')
        else if (response.status === 200) {
          const language = (JSON.parse(response.body.toString('utf8')) as { language?: unknown }).language
          if (typeof language === 'string' && isLocale(language)) {
            await rememberAccountLanguage(target.userId, language).catch((err: unknown) => request.log.warn({ err }, 'the account\'s language could not be kept'))
            return language
          }
        }
      } catch (err) {
        request.log.warn({ err, event: 'security-notice' }, 'the account\'s language could not be read: the one kept in the core is used')
      }
    }
    try {
      const kept = await keptAccountLanguage(target.userId)
      if (kept) return kept
    } catch (err) {
      request.log.warn({ err, event: 'security-notice' }, 'the account\'s kept language could not be read')
    }
    return target.fallbackLocale ?? negotiateLocale(request.cookies?.lang, request.headers['accept-language'])
  }
}
