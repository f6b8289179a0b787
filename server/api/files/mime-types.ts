// The media type a stored file is labelled with, from its name's extension. A label for
// the listing and the download's Content-Type, nothing more: downloads are always attachments
// with `nosniff` and a sandbox CSP, so a file labelled text/html still never runs on our origin.
// Previews (a later step) decide by the bytes, as avatars do.

const BY_EXTENSION: Record<string, string> = {
  // images
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  bmp: 'image/bmp',
  ico: 'image/vnd.microsoft.icon',
  svg: 'image/svg+xml',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  // documents
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  rtf: 'application/rtf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  epub: 'application/epub+zip',
  // audio and video
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  flac: 'audio/flac',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  // archives and installers (a software catalogue's users keep these)
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  bz2: 'application/x-bzip2',
  xz: 'application/x-xz',
  '7z': 'application/x-7z-compressed',
  rar: 'application/vnd.rar',
  tar: 'application/x-tar',
  iso: 'application/x-iso9660-image',
  exe: 'application/vnd.microsoft.portable-executable',
  msi: 'application/x-msi',
  dmg: 'application/x-apple-diskimage',
  deb: 'application/vnd.debian.binary-package',
  rpm: 'application/x-rpm',
  apk: 'application/vnd.android.package-archive',
}

export const DEFAULT_MIME_TYPE = 'application/octet-stream'

export function mimeTypeOf(name: string): string {
  const dot = name.lastIndexOf('.')
  if (dot <= 0) return DEFAULT_MIME_TYPE
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? DEFAULT_MIME_TYPE
}

/**
 * The download's Content-Type for a file labelled `mimeType`: text types carry `charset=utf-8`
 * (SECURITY.md "every body has a Content-Type with a charset"), so a browser or a
 * program opening a .txt, .csv, .html or .svg reads it as UTF-8 — what the app and its users
 * write — rather than guessing. The listing's `mimeType` stays the bare type.
 */
export function downloadContentType(mimeType: string | null): string {
  const type = mimeType ?? DEFAULT_MIME_TYPE
  return isText(type) ? `${type}; charset=utf-8` : type
}

function isText(type: string): boolean {
  return type.startsWith('text/') || type.endsWith('+xml') || type === 'application/xml' || type === 'application/json'
}
