// Avatars (spec §9 "Avatar max"): what an upload may be, decided by its bytes — never by
// a file name, and a declared type may only refuse it (SECURITY.md "Uploads": a declared type
// outside PNG, JPEG and WebP is 415). Shared by the BFF (which refuses before the product API sees
// a byte), the API (which decodes and re-encodes) and the profile page (which says so before
// sending).

export type AvatarImageType = 'png' | 'jpeg' | 'webp'

/** Pixels an uploaded image may have before it is decoded (a decompression bomb is refused). */
export const AVATAR_MAX_PIXELS = 50_000_000
/** The served avatar: a square of this many pixels a side, WebP. */
export const AVATAR_SIZE_PX = 256

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function startsWith(bytes: Uint8Array, expected: readonly number[], at = 0): boolean {
  if (bytes.length < at + expected.length) return false
  return expected.every((value, index) => bytes[at + index] === value)
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return bytes.length < at + length ? '' : String.fromCharCode(...bytes.subarray(at, at + length))
}

/**
 * The image type of these bytes, or null. More than a magic number: a PNG's first chunk must be
 * its 13-byte IHDR, a JPEG's first marker must follow its start-of-image, a WebP must be a RIFF
 * "WEBP" file whose first chunk is one of VP8, VP8L, VP8X. A file that only borrows a signature
 * (a PNG header glued to HTML, say) is not one.
 */
export function avatarImageType(bytes: Uint8Array): AvatarImageType | null {
  if (startsWith(bytes, PNG_SIGNATURE) && startsWith(bytes, [0, 0, 0, 13], 8) && ascii(bytes, 12, 4) === 'IHDR') return 'png'
  // SOI (FF D8), then a marker: FF and a marker byte (APPn, DQT, SOF, DHT, COM…), never 00 or FF.
  if (startsWith(bytes, [0xff, 0xd8, 0xff]) && bytes.length > 3 && bytes[3]! >= 0xc0 && bytes[3]! < 0xff) return 'jpeg'
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP' && ['VP8 ', 'VP8L', 'VP8X'].includes(ascii(bytes, 12, 4))) return 'webp'
  return null
}

/**
 * The declared types an upload may carry: the three images, `application/octet-stream` (bytes of
 * no declared type: what the profile page sends) or no Content-Type at all. The bytes still
 * decide which of the three it is (a PNG sent as image/jpeg is a PNG); any other declaration —
 * image/svg+xml, text/html, image/gif — is refused whatever the bytes.
 */
const DECLARABLE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp', 'application/octet-stream'])

/** Whether a Content-Type header (its media type, any case, parameters aside) is one an avatar upload may declare. */
export function avatarDeclaredTypeAllowed(contentType: string | undefined): boolean {
  if (contentType === undefined) return true
  return DECLARABLE_TYPES.has((contentType.split(';')[0] ?? '').trim().toLowerCase())
}

/** The path an avatar is served at: its content hash, so a new one is a new URL and old ones can be cached for ever. */
export function avatarPath(hash: string): string {
  return `/api/avatars/${hash}.webp`
}

export const AVATAR_FILE_PATTERN = '^[0-9a-f]{32}\\.webp$'
