import sharp from 'sharp'
import { AVATAR_MAX_PIXELS, AVATAR_SIZE_PX, avatarImageType } from '../../../shared/account/avatar.ts'

// The avatar we serve is never the upload: the upload is decoded, turned upright, cropped to a
// square, and encoded anew as WebP. Nothing of the original file but its pixels survives —
// no EXIF (GPS, camera, time), no ICC or XMP data, no trailing bytes, no second "file" hidden
// in a polyglot.

export type AvatarProblem = 'unsupported-type' | 'too-many-pixels' | 'unreadable'

export class AvatarImageError extends Error {
  constructor(readonly problem: AvatarProblem) {
    super(`avatar refused: ${problem}`)
  }
}

// Decoding is CPU and memory heavy (up to AVATAR_MAX_PIXELS before the shrink): at most this many
// at once per process; the others wait their turn.
const PARALLEL_ENCODES = 2
let running = 0
const waiting: Array<() => void> = []

/** Runs image work when fewer than PARALLEL_ENCODES run (avatars and programs' media share the turns). */
export async function turn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= PARALLEL_ENCODES) await new Promise<void>((resolve) => waiting.push(resolve))
  running += 1
  try {
    return await work()
  } finally {
    running -= 1
    waiting.shift()?.()
  }
}

/** The WebP bytes we store for this upload, or an AvatarImageError saying why not. */
export async function encodeAvatar(upload: Uint8Array): Promise<Buffer> {
  const type = avatarImageType(upload)
  if (!type) throw new AvatarImageError('unsupported-type')
  return turn(async () => {
    // `limitInputPixels` is checked from the header, before any pixel is decoded.
    const options = { limitInputPixels: AVATAR_MAX_PIXELS, failOn: 'error' as const }
    let format: string | undefined
    try {
      const metadata = await sharp(upload, options).metadata()
      format = metadata.format
      if (metadata.width * metadata.height > AVATAR_MAX_PIXELS) throw new AvatarImageError('too-many-pixels')
    } catch (error) {
      if (error instanceof AvatarImageError) throw error
      throw new AvatarImageError(/pixel limit/i.test((error as Error).message) ? 'too-many-pixels' : 'unreadable')
    }
    // The decoder's own verdict must agree with the bytes' signature.
    if (format !== type) throw new AvatarImageError(format === undefined ? 'unreadable' : 'unsupported-type')
    try {
      return await sharp(upload, options)
        .rotate()
        .resize(AVATAR_SIZE_PX, AVATAR_SIZE_PX, { fit: 'cover', position: 'centre' })
        .webp({ quality: 82, effort: 4 })
        .toBuffer()
    } catch (error) {
      throw new AvatarImageError(/pixel limit/i.test((error as Error).message) ? 'too-many-pixels' : 'unreadable')
    }
  })
}
