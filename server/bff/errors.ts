import { createError } from '../http/errors.ts'

// The BFF's error catalogue. Codes are stable: the client and the API reference rely on them.
export const BffNotFound = createError<[string, string]>('BFF_NOT_FOUND', 'Nothing is served at %s %s.', 404)
// A logo or link-preview image of a program the catalogue does not have.
// An Atom feed of a category the catalogue does not have (/feeds/category/{id}.atom).
export const BffFeedNotFound = createError('BFF_FEED_NOT_FOUND', 'There is no such feed: the catalogue has no category by this name.', 404)
export const BffLogoNotFound = createError('BFF_LOGO_NOT_FOUND', 'No program in the catalogue has this id, so there is no image for it.', 404)
// A tenant-prefixed /auth path (/auth/{tenantId}/…, the SDK's spelling) naming a tenant the auth
// core does not have — a mangled emailed link's tenantId, usually. Was a 500 (the core's 400).
export const BffTenantNotFound = createError(
  'BFF_TENANT_NOT_FOUND',
  'This address names a tenant that does not exist. Open the link from the email again, or ask for a new one.',
  404,
)
export const BffBadPath = createError('BFF_BAD_PATH', 'The request path is not allowed.', 400)
export const BffCsrfRejected = createError(
  'BFF_CSRF_REJECTED',
  'This request was refused because it did not come from the Softshelf app. Reload the page and try again.',
  403,
)
export const BffUpstreamUnavailable = createError(
  'BFF_UPSTREAM_UNAVAILABLE',
  'The catalogue service is unavailable right now. Please try again in a moment.',
  503,
)
export const BffUpstreamTimeout = createError(
  'BFF_UPSTREAM_TIMEOUT',
  'The catalogue service took too long to answer. Please try again in a moment.',
  504,
)
export const BffUpstreamBadResponse = createError(
  'BFF_UPSTREAM_BAD_RESPONSE',
  'The catalogue service gave an answer we could not use. Please try again in a moment.',
  502,
)
export const BffEmailRequired = createError('BFF_EMAIL_REQUIRED', 'Add ?email= with the address to check.', 400)
export const BffMailUnavailable = createError('BFF_MAIL_UNAVAILABLE', 'We could not send the email right now. Please try again in a few minutes.', 503)
/** What a mail that could not go out tells its asker to wait (the message says "a few minutes"). */
export const MAIL_RETRY_AFTER_SECONDS = 60
/** The 503 of a mail that could not go out, with its Retry-After. */
export const mailUnavailable = () => Object.assign(new BffMailUnavailable(), { retryAfter: MAIL_RETRY_AFTER_SECONDS })
export const BffNotReady = createError('BFF_NOT_READY', 'The app is not ready: %s.', 503)
export const BffAuthCoreUnavailable = createError(
  'BFF_AUTH_CORE_UNAVAILABLE',
  'Signing in is unavailable right now. Please try again in a moment.',
  503,
)
export const BffWrongPassword = createError('BFF_WRONG_PASSWORD', 'The current password is not right.', 400)
export const BffPasswordInvalid = createError<[string]>('BFF_PASSWORD_INVALID', '%s', 400)
export const BffNoPassword = createError(
  'BFF_NO_PASSWORD',
  'This account signs in with an external provider and has no password: its password and email are managed there.',
  400,
)
export const BffPasswordBlocked = createError<[string]>('BFF_PASSWORD_CHANGE_BLOCKED', '%s', 429)
export const BffSessionNotFound = createError('BFF_SESSION_NOT_FOUND', 'There is no such signed-in device on your account.', 404)
export const BffSessionIsCurrent = createError('BFF_SESSION_IS_CURRENT', 'This is the device you are using: log out to end its session.', 400)
export const BffValidation = createError<[string]>('BFF_VALIDATION_FAILED', '%s', 400)
// A signed-in user's language choice that the account could not take; nothing changed.
export const BffLanguageNotSaved = createError(
  'BFF_LANGUAGE_NOT_SAVED',
  'Your language could not be saved to your account right now, so it was not changed. Please try again in a moment.',
  503,
)
export const BffConfirmEmailMismatch = createError('BFF_CONFIRM_EMAIL_MISMATCH', 'The email address you typed is not the one of this account.', 400)
export const BffDeletionPending = createError(
  'BFF_DELETION_PENDING',
  'Your account is being deleted, but we could not finish it just now. It will be finished within a few minutes; you are signed out.',
  503,
)
// Authenticator codes: asked by the account deletion and the authenticator's removal.
/** A code from the authenticator is needed; the message says for what (TOTP_CODE_REQUIRED). */
export const BffTotpCodeRequired = createError('BFF_TOTP_CODE_REQUIRED', '%s', 400)
export const TOTP_CODE_REQUIRED = {
  deleteAccount: 'Enter the current code from your authenticator app.',
  removeDevice: 'Removing a confirmed authenticator needs a current code from it (or a recovery code).',
  renewRecoveryCodes: 'New recovery codes need a current code from your authenticator (or one of your recovery codes).',
  addDevice: 'Adding another authenticator needs a current code from the one you have (or a recovery code).',
} as const
export const BffTotpInvalid = createError('BFF_TOTP_INVALID', 'That code is not right. Enter the current code from your authenticator app.', 400)
export const BffTotpBlocked = createError('BFF_TOTP_BLOCKED', 'Too many wrong codes. Wait a few minutes, then try again.', 429)
export const BffTotpDeviceNotFound = createError('BFF_TOTP_DEVICE_NOT_FOUND', 'There is no such authenticator on your account.', 404)
export const BffTotpNotEnabled = createError('BFF_TOTP_NOT_ENABLED', 'Recovery codes need an authenticator: set one up first.', 409)
export const BffRecoveryCodeInvalid = createError('BFF_RECOVERY_CODE_INVALID', 'The recovery code is not right, or it was used already.', 400)
export const BffRecoveryCodeBlocked = createError('BFF_RECOVERY_CODE_BLOCKED', 'Too many wrong recovery codes. Try again later.', 429)
export const BffMfaNotPending = createError('BFF_MFA_NOT_PENDING', 'This session does not need a second factor now.', 409)
export const BffEmailInvalid = createError<[string]>('BFF_EMAIL_INVALID', '%s', 400)
export const BffEmailUnchanged = createError('BFF_EMAIL_UNCHANGED', 'This is already the email address of your account.', 400)
export const BffEmailTaken = createError('BFF_EMAIL_TAKEN', 'Another account already uses this email address.', 409)
export const BffEmailChangeBlocked = createError<[string]>('BFF_EMAIL_CHANGE_BLOCKED', '%s', 429)
export const BffNoPendingEmail = createError('BFF_NO_PENDING_EMAIL', 'No new email address is waiting for confirmation.', 404)
export const BffEmailLinkInvalid = createError('BFF_EMAIL_LINK_INVALID', 'This confirmation link is not valid, or it was already used.', 400)
export const BffEmailLinkExpired = createError('BFF_EMAIL_LINK_EXPIRED', 'This confirmation link has expired. Ask for a new one on your profile.', 400)
// Error reporting (decision 019): the browser's same-origin tunnel.
export const BffTunnelBadEnvelope = createError('BFF_TUNNEL_BAD_ENVELOPE', 'This is not an error-report envelope.', 400)
export const BffTunnelForeignDsn = createError('BFF_TUNNEL_FOREIGN_DSN', 'This envelope is not for this app\'s error-reporting project.', 403)
export const BffTunnelUnavailable = createError('BFF_TUNNEL_UNAVAILABLE', 'The error tracker could not be reached. The report was not sent.', 502)
// An operator route the session's roles do not allow (checked before it is proxied).
export const BffPermissionDenied = createError('BFF_PERMISSION_DENIED', 'Your account does not have the role this needs. Ask an administrator if you should have it.', 403)
