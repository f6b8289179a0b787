import { createError } from '../../http/errors.ts'

// The drive's error codes. Stable: the client and docs/API.md rely on them. Another
// user's item answers exactly as an item that does not exist: FILES_NOT_FOUND, never 403.

export const FilesNotFound = createError('FILES_NOT_FOUND', 'There is no such file or folder. It may have been moved, deleted or never existed.', 404)
export const FilesNameInvalid = createError<[string]>('FILES_NAME_INVALID', '%s', 400)
export const FilesNameTaken = createError<[string]>('FILES_NAME_TAKEN', 'There is already an item called "%s" in that folder.', 409)
export const FilesNotAFolder = createError('FILES_NOT_A_FOLDER', 'That item is a file, not a folder.', 400)
export const FilesMoveIntoItself = createError('FILES_MOVE_INTO_ITSELF', 'A folder cannot be moved into itself or into one of its own folders.', 400)
export const FilesQuotaExceeded = createError<[string]>('FILES_QUOTA_EXCEEDED', '%s', 413)
export const FilesTooLarge = createError<[string]>('FILES_TOO_LARGE', '%s', 413)
export const FilesRangeNotSatisfiable = createError('FILES_RANGE_NOT_SATISFIABLE', 'The requested range is outside the file.', 416)

// Resumable uploads (tus 1.0.0 at /api/files/uploads). The protocol's own failures answer with these
// codes and the statuses tus gives them, so a tus client behaves as it would with any tus server.
export const FilesUploadNotFound = createError('FILES_UPLOAD_NOT_FOUND', 'There is no such upload. It may have finished long ago, been cancelled, or never existed.', 404)
export const FilesUploadExpired = createError('FILES_UPLOAD_EXPIRED', 'This upload was left unfinished for more than a day and has been removed. Upload the file again.', 410)
export const FilesUploadOffsetMismatch = createError<[string]>('FILES_UPLOAD_OFFSET_MISMATCH', '%s', 409)
export const FilesUploadInvalid = createError<[string]>('FILES_UPLOAD_INVALID', '%s', 400)
export const FilesUploadVersion = createError('FILES_UPLOAD_VERSION', 'Uploads speak the tus protocol 1.0.0: send the header "Tus-Resumable: 1.0.0".', 412)
export const FilesUploadBeyondLength = createError('FILES_UPLOAD_BEYOND_LENGTH', 'The bytes sent go past the length the upload was created with.', 413)
export const FilesUploadFinished = createError('FILES_UPLOAD_FINISHED', 'This upload is complete and cannot be cancelled; delete the file instead.', 400)
export const FilesUploadLocked = createError('FILES_UPLOAD_LOCKED', 'Another request is still writing to this upload. Try again in a moment.', 423)
