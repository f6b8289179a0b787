import { createHash } from 'node:crypto'
import sharp from 'sharp'
import { avatarImageType } from '../../../shared/account/avatar.ts'
import { LOGO_MAX_PX, MEDIA_MAX_PIXELS, SCREENSHOT_WIDTHS } from '../../../shared/catalogue/media.ts'
import { turn } from '../users/avatar-image.ts'
import { sanitiseSvg, SvgRefused } from './svg-sanitiser.ts'

// Programs' logos and screenshots are encoded like avatars (avatar-image.ts): decoded,
// turned upright and written anew, so nothing of the upload but its pixels survives (no EXIF, ICC,
// XMP, trailing bytes or polyglot). An SVG logo is rewritten to a safe subset (svg-sanitiser.ts).

export type MediaProblem = 'unsupported-type' | 'too-many-pixels' | 'unreadable'

export class MediaImageError extends Error {
  constructor(
    readonly problem: MediaProblem,
    readonly detail?: string,
  ) {
    super(detail ?? `image refused: ${problem}`)
  }
}

export interface EncodedLogo {
  contentType: 'image/svg+xml' | 'image/webp'
  image: Buffer
  hash: string
}

export interface EncodedScreenshot {
  /** The widest file's size: the image's intrinsic size. */
  width: number
  height: number
  files: Array<{ width: number; height: number; image: Buffer }>
}

const hashOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex').slice(0, 32)
const OPTIONS = { limitInputPixels: MEDIA_MAX_PIXELS, failOn: 'error' as const }

function decodeFailure(error: unknown): MediaImageError {
  if (error instanceof MediaImageError) return error
  return new MediaImageError(/pixel limit/i.test((error as Error).message) ? 'too-many-pixels' : 'unreadable')
}

/** The raster's size once turned upright, after its header and the decoder agree with the bytes' signature. */
async function rasterSize(upload: Uint8Array, allowed: readonly string[]): Promise<{ width: number; height: number }> {
  const type = avatarImageType(upload)
  if (!type || !allowed.includes(type)) throw new MediaImageError('unsupported-type')
  try {
    const metadata = await sharp(upload, OPTIONS).metadata()
    if (metadata.format !== type) throw new MediaImageError('unsupported-type')
    if (metadata.width * metadata.height > MEDIA_MAX_PIXELS) throw new MediaImageError('too-many-pixels')
    // EXIF orientations 5–8 swap the sides.
    const swapped = (metadata.orientation ?? 1) >= 5
    return swapped ? { width: metadata.height, height: metadata.width } : { width: metadata.width, height: metadata.height }
  } catch (error) {
    throw decodeFailure(error)
  }
}

/**
 * A logo as we store it: an SVG (declared image/svg+xml) rewritten to the safe subset, which must
 * then render; a PNG or WebP decoded and encoded anew as WebP within LOGO_MAX_PX a side.
 */
export async function encodeLogo(upload: Buffer, declaredType: string): Promise<EncodedLogo> {
  if (declaredType === 'image/svg+xml') {
    if (avatarImageType(upload) !== null) throw new MediaImageError('unsupported-type', 'The file is declared as SVG but is a raster image: send it as image/png or image/webp.')
    let svg: string
    try {
      svg = sanitiseSvg(new TextDecoder('utf-8', { fatal: true }).decode(upload))
    } catch (error) {
      if (error instanceof SvgRefused) throw new MediaImageError('unreadable', error.message)
      throw new MediaImageError('unreadable', 'The SVG could not be read: it is not UTF-8 text.')
    }
    const image = Buffer.from(svg, 'utf8')
    // What we keep must still be a picture (librsvg reads it as a browser would draw it).
    await turn(async () => {
      try {
        await sharp(image, OPTIONS).png().toBuffer()
      } catch (error) {
        throw new MediaImageError(/pixel limit/i.test((error as Error).message) ? 'too-many-pixels' : 'unreadable', 'The SVG does not draw anything we can render: check its size (width, height or viewBox).')
      }
    })
    return { contentType: 'image/svg+xml', image, hash: hashOf(image) }
  }
  await rasterSize(upload, declaredType === 'image/png' ? ['png'] : ['webp'])
  const image = await turn(async () => {
    try {
      return await sharp(upload, OPTIONS)
        .rotate()
        .resize(LOGO_MAX_PX, LOGO_MAX_PX, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 90, alphaQuality: 100, effort: 4 })
        .toBuffer()
    } catch (error) {
      throw decodeFailure(error)
    }
  })
  return { contentType: 'image/webp', image, hash: hashOf(image) }
}

/** The widths a screenshot this wide is encoded at: the srcset widths up to its own, or its own alone when narrower than all. */
export function screenshotWidths(originalWidth: number): number[] {
  const widths = SCREENSHOT_WIDTHS.filter((width) => width <= originalWidth)
  return widths.length > 0 ? widths : [originalWidth]
}

/** A screenshot's files: WebP at each of its srcset widths, never wider than the upload. */
export async function encodeScreenshot(upload: Buffer): Promise<EncodedScreenshot> {
  const size = await rasterSize(upload, ['png', 'jpeg', 'webp'])
  const files = await turn(async () => {
    try {
      const encoded: EncodedScreenshot['files'] = []
      for (const width of screenshotWidths(size.width)) {
        const { data, info } = await sharp(upload, OPTIONS).rotate().resize({ width }).webp({ quality: 80, effort: 4 }).toBuffer({ resolveWithObject: true })
        encoded.push({ width: info.width, height: info.height, image: data })
      }
      return encoded
    } catch (error) {
      throw decodeFailure(error)
    }
  })
  const widest = files[files.length - 1]!
  return { width: widest.width, height: widest.height, files }
}
