import type { FastifyReply, FastifyRequest } from 'fastify'
import type { SecurityNotices } from '../account/security-notices.ts'
import type { EmailTexts } from '../mail/emails.ts'
import type { MailOutbox } from '../mail/mail-outbox.ts'
import type { MailGrant } from '../mail/mail-quota.ts'
import type { RecoveryCodes } from '../account/recovery-codes.ts'
import type { SecondFactorAttempts } from './second-factor-attempts.ts'

// What the BFF gives the SDK's set-up (supertokens.ts) and its recipes' overrides (recipes/).

export const APP_NAME = 'Softshelf'

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
   * revocation list cannot be read.
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
