import { AVATAR_MAX_PIXELS } from '../../shared/account/avatar.ts'
import { createError } from './errors.ts'

// Avatar upload errors: one set of codes whichever service refuses — the BFF (size and
// type, before the API sees a byte) or the API (the same checks again, then decoding).
export const AvatarTooLarge = createError('AVATAR_TOO_LARGE', 'The picture is larger than 5 MB. Choose a smaller one.', 413)
export const AvatarUnsupportedType = createError('AVATAR_UNSUPPORTED_TYPE', 'The picture must be a PNG, JPEG or WebP image.', 415)
export const AvatarUnreadable = createError('AVATAR_UNREADABLE', 'The picture could not be read: it may be damaged. Try another one.', 400)
export const AvatarTooManyPixels = createError(
  'AVATAR_TOO_MANY_PIXELS',
  `The picture has too many pixels (at most ${AVATAR_MAX_PIXELS / 1_000_000} megapixels). Choose a smaller one.`,
  400,
)
