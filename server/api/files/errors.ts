import { createError } from '../../http/errors.ts'

// The drive's error codes (issue 12). Stable: the client and docs/API.md rely on them. Another
// user's item answers exactly as an item that does not exist: FILES_NOT_FOUND, never 403.

export const FilesNotFound = createError('FILES_NOT_FOUND', 'There is no such file or folder. It may have been moved, deleted or never existed.', 404)
export const FilesNameInvalid = createError<[string]>('FILES_NAME_INVALID', '%s', 400)
export const FilesNameTaken = createError<[string]>('FILES_NAME_TAKEN', 'There is already an item called "%s" in that folder.', 409)
export const FilesNotAFolder = createError('FILES_NOT_A_FOLDER', 'That item is a file, not a folder.', 400)
export const FilesMoveIntoItself = createError('FILES_MOVE_INTO_ITSELF', 'A folder cannot be moved into itself or into one of its own folders.', 400)
export const FilesQuotaExceeded = createError<[string]>('FILES_QUOTA_EXCEEDED', '%s', 413)
export const FilesTooLarge = createError<[string]>('FILES_TOO_LARGE', '%s', 413)
export const FilesRangeNotSatisfiable = createError('FILES_RANGE_NOT_SATISFIABLE', 'The requested range is outside the file.', 416)
