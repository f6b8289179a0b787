import { createError } from '../../http/errors.ts'

// The share links' error codes (decision 016). Stable: the sharing page and docs/API.md
// rely on them. An owner asking about another user's link gets SHARE_NOT_FOUND, never 403; a
// visitor cannot tell an unknown link from one whose item was deleted.

export const ShareNotFound = createError('SHARE_NOT_FOUND', 'There is no such share link. It may have been mistyped, or what it shared has been deleted.', 404)
export const ShareExpired = createError('SHARE_EXPIRED', 'This share link has expired. Ask the person who shared it for a new one.', 410)
export const ShareRevoked = createError('SHARE_REVOKED', 'This share link has been turned off by the person who shared it.', 410)
export const SharePasswordRequired = createError('SHARE_PASSWORD_REQUIRED', 'This share link is protected by a password. Enter the password to open it.', 401)
export const SharePasswordWrong = createError('SHARE_PASSWORD_WRONG', 'That password is not right. Check it and try again.', 401)
export const ShareTooManyAttempts = createError<[string]>('SHARE_TOO_MANY_ATTEMPTS', '%s', 429)
export const ShareDownloadNotAllowed = createError('SHARE_DOWNLOAD_NOT_ALLOWED', 'The person who shared this did not allow downloads; it can only be viewed.', 403)
export const SharePreviewTooLarge = createError('SHARE_PREVIEW_TOO_LARGE', 'This file is too large to preview, and the person who shared it did not allow downloads.', 403)
export const SharePasswordInvalid = createError<[string]>('SHARE_PASSWORD_INVALID', '%s', 400)
export const ShareExpiryInvalid = createError<[string]>('SHARE_EXPIRY_INVALID', '%s', 400)
