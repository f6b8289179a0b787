import { createError } from '../http/errors.ts'

// The product API's error catalogue. Codes are stable: clients and the API reference rely on them.
export const ApiNotFound = createError<[string, string]>('API_NOT_FOUND', 'No API endpoint matches %s %s.', 404)
export const ApiNotReady = createError<[string]>('API_NOT_READY', 'The API is not ready: %s.', 503)
export const ApiUnauthorized = createError('API_UNAUTHORIZED', 'A valid operator token is required.', 401)
export const ApiBackupNotEmbedded = createError(
  'API_BACKUP_NOT_EMBEDDED',
  'This API runs on PostgreSQL (DATABASE_URL): back it up with pg_dump, e.g. pg_dump -Fc "$DATABASE_URL" > softshelf.dump (README, "Backups"). GET /internal/backup covers the embedded database only.',
  409,
)
export const ApiInvalidMaintenanceTime = createError(
  'API_INVALID_MAINTENANCE_TIME',
  'maintenanceTime must be an ISO 8601 date and time, for example 2026-12-01T22:00:00Z.',
  400,
)
export const ApiCatalogueNotFound = createError<[string, string]>('API_CATALOGUE_NOT_FOUND', 'There is no %s "%s" in the catalogue.', 404)
export const ApiSessionRequired = createError('API_SESSION_REQUIRED', 'Sign in to continue: the session is missing, expired or not valid.', 401)
export const ApiEmailNotVerified = createError('API_EMAIL_NOT_VERIFIED', 'Verify your email address first: open the link we emailed you.', 403)
export const ApiMfaRequired = createError('API_MFA_REQUIRED', 'Enter the code from your authenticator app first.', 403)
export const ApiAccountDisabled = createError('API_ACCOUNT_DISABLED', 'Your account has been disabled. If you believe this is an error, please contact support', 403)
/** No such account; the message says whose (USER_NOT_FOUND). */
export const ApiUserNotFound = createError('API_USER_NOT_FOUND', '%s', 404)
export const USER_NOT_FOUND = {
  /** The session's account has no record (any more). */
  session: 'There is no Softshelf account for this session.',
  /** The account an operator or a command named. */
  named: 'There is no account with this id or email.',
} as const
export const ApiAuthUnavailable = createError('API_AUTH_UNAVAILABLE', 'Sign-in checks are unavailable right now. Please try again in a moment.', 503)
export const ApiValidation = createError<[string]>('API_VALIDATION_FAILED', '%s', 400)
export const ApiAvatarNotFound = createError('API_AVATAR_NOT_FOUND', 'There is no such picture: it may have been replaced or removed.', 404)
export const ApiDeletionPending = createError(
  'API_DELETION_PENDING',
  'Your account is being deleted, but we could not finish it just now. It will be finished within a few minutes; you are signed out.',
  503,
)
export const ApiPermissionDenied = createError('API_PERMISSION_DENIED', 'Your account does not have the role this needs. Ask an administrator if you should have it.', 403)
// Roles. An admin (or the operator command) cannot leave the app without an admin.
export const ApiLastAdmin = createError('API_LAST_ADMIN', 'This is the last administrator: give another account the admin role first, then take it from this one.', 409)
// Programs' logos and screenshots (docs/API.md "Logos and screenshots").
export { ImageTooLarge as ApiImageTooLarge } from '../http/media-errors.ts'
export const ApiImageUnsupportedType = createError<[string]>('API_IMAGE_UNSUPPORTED_TYPE', '%s', 415)
export const ApiImageInvalid = createError<[string]>('API_IMAGE_INVALID', '%s', 400)
export const ApiImageTooManyPixels = createError('API_IMAGE_TOO_MANY_PIXELS', 'The image has too many pixels (at most 50 megapixels). Choose a smaller one.', 400)
export const ApiTooManyScreenshots = createError<[number]>('API_TOO_MANY_SCREENSHOTS', 'The program already has %d screenshots: remove one before adding another.', 409)
export const ApiScreenshotNotFound = createError('API_SCREENSHOT_NOT_FOUND', 'The program has no such screenshot: it may have been removed.', 404)
export const ApiLogoNotFound = createError('API_LOGO_NOT_FOUND', 'The program has no uploaded logo: it shows the generated one.', 404)
export const ApiImageNotFound = createError('API_IMAGE_NOT_FOUND', 'There is no such image: it may have been replaced or removed.', 404)
export const ApiCannotDisableSelf = createError('API_CANNOT_DISABLE_SELF', 'You cannot disable your own account: ask another operator.', 409)
export const ApiAlreadyVerified = createError('API_ALREADY_VERIFIED', 'This account\'s email address is verified already: there is nothing to resend.', 409)
/** A change based on a revision of the program that is no longer the current one (`currentRevision` in the body). */
export const ApiRevisionConflict = createError<[number]>(
  'API_REVISION_CONFLICT',
  'Someone else changed this program meanwhile: its current revision is %s. Reload it, and make your change again on top of theirs.',
  409,
)
/** A program editors have retired from the catalogue. */
export const ApiProgramRetired = createError<[string]>('API_PROGRAM_RETIRED', 'The program "%s" has been retired from the catalogue.', 410)
// Saved searches (docs/API.md "Saved searches").
export const ApiSavedSearchesLimit = createError<[number]>('API_SAVED_SEARCHES_LIMIT', 'You already have %d saved searches: delete one before saving another.', 409)
export const ApiSavedSearchNotFound = createError('API_SAVED_SEARCH_NOT_FOUND', 'There is no such saved search: it may have been deleted.', 404)
/** A feed's proposed change that does not exist. */
export const ApiProposalNotFound = createError('API_PROPOSAL_NOT_FOUND', 'There is no such proposed change.', 404)
/** A proposed change an editor already accepted or rejected. */
export const ApiProposalDecided = createError<[string]>('API_PROPOSAL_DECIDED', 'This proposed change was already %s: there is nothing left to decide.', 409)
/** A release of a version the program's history already has. */
export const ApiReleaseExists = createError<[string, string]>(
  'API_RELEASE_EXISTS',
  'The program "%s" already has a release of version %s: each version is recorded once.',
  409,
)
// The one-click unsubscribe link of a notification mail (docs/API.md "Notification mail and one-click unsubscribe").
export const ApiUnsubscribeLinkInvalid = createError('API_UNSUBSCRIBE_LINK_INVALID', 'This unsubscribe link is not valid: nothing was changed. Turn notification mail off on your profile instead.', 400)
export const ApiUnsubscribeLinkExpired = createError('API_UNSUBSCRIBE_LINK_EXPIRED', 'This unsubscribe link is more than 60 days old: nothing was changed. Use the link of a newer mail, or turn notification mail off on your profile.', 400)
