import { createError } from './errors.ts'

// Programs' logos and screenshots: one code for an image over its limit whichever
// service refuses it — the BFF (past the largest upload it reads, before the API sees a byte) or
// the API (each route's own limit).
export const ImageTooLarge = createError<[string]>('API_IMAGE_TOO_LARGE', 'The image is larger than %s. Choose a smaller one.', 413)
