import supertokens from 'supertokens-node'
import type { FastifyRequest } from 'fastify'
import { negotiateLocale, type Locale } from '../../../../shared/locales.ts'
import { keptAccountLanguage } from '../../account/security-notices.ts'
import { readReturn, returnSearch } from '../../../../shared/auth/return-path.ts'
import { mailUnavailable } from '../../errors.ts'
import type { EmailKind } from '../../mail/emails.ts'
import { mailServerUnreachable } from '../../mail/mail-outbox.ts'
import { recipientHash } from '../../mail/mail-quota.ts'
import type { AuthSettings, ProviderSettings } from '../sdk-settings.ts'

// What the SDK's recipe overrides share: the request's language, the account's, a mailed link's
// way back, the providers' configuration, and sending a mail through the quota and the outbox.

/** Set in a request's user context once an email was handed to the mailer. */
export const MAIL_ATTEMPTED = 'softshelfMailAttempted'
/**
 * Set by the sign-up before it sends the verification mail: the answer is OK whatever happens to
 * the mail, so one that cannot go out now waits in the outbox instead of being lost.
 */
export const MAIL_MAY_WAIT = 'softshelfMailMayWait'
/** Set in a request's user context once the core was asked to check a password. */
export const PASSWORD_CHECKED = 'softshelfPasswordChecked'

/** The language of the request an SDK call runs for; English outside a request. */
export function localeOf(userContext: Record<string, unknown> | undefined): Locale {
  const original = supertokens.getRequestFromUserContext(userContext as never)?.original as FastifyRequest | undefined
  if (!original) return 'en'
  return negotiateLocale(original.cookies?.lang, original.headers['accept-language'])
}

/**
 * The language the account's mails are in (the account's choice, kept in the core, not
 * the language of whichever browser asked for a reset link); undefined when none is kept yet (a
 * new sign-up: the browser's) or the core cannot say — the mail still goes, in the browser's.
 */
export async function accountLocale(userId: string, request: FastifyRequest | undefined): Promise<Locale | undefined> {
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
export function withReturn(link: string, request: FastifyRequest | undefined): string {
  const search = request ? returnSearch(readReturn(new URL(request.url, 'http://bff.invalid').searchParams)) : ''
  return search ? `${link}${link.includes('?') ? '&' : '?'}${search.slice(1)}` : link
}

export function providerConfig(provider: ProviderSettings) {
  // The browser app names its client type "web" (supertokens-web-js' clientType).
  const clients = [{ clientType: 'web', clientId: provider.clientId, clientSecret: provider.clientSecret }]
  if (provider.thirdPartyId === 'oidc') {
    // A custom provider's discovery endpoint is taken as given: the well-known path is ours to add.
    const discovery = provider.issuer!.endsWith('/.well-known/openid-configuration') ? provider.issuer! : `${provider.issuer}/.well-known/openid-configuration`
    return { config: { thirdPartyId: 'oidc', name: provider.name, clients, oidcDiscoveryEndpoint: discovery, scope: ['openid', 'email'], requireEmail: true } }
  }
  return { config: { thirdPartyId: provider.thirdPartyId, name: provider.name, clients } }
}

export interface RecipeContext {
  settings: AuthSettings
  /** Sends a mail of `kind` to `email` (the quota, the outbox, 503 when mail is down). */
  send: (kind: EmailKind, email: string, link: string, userId: string, userContext: Record<string, unknown>) => Promise<void>
  /** Mail could go out now, else 503: asked when a request sends nothing, to answer as one that does. */
  checkMailer: (request: FastifyRequest | undefined) => Promise<void>
  https: boolean
}

/** The mail senders the recipes share, over the BFF's quota and outbox. */
export function recipeContext(settings: AuthSettings): RecipeContext {
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
  return { settings, send, checkMailer, https: settings.appUrl.startsWith('https:') }
}
