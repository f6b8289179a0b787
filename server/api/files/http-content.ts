// The HTTP side of serving a stored file: which bytes a `Range` asks for, whether an
// `If-None-Match` is already satisfied, and the attachment's file name in a header. Written for
// one file at a time; a folder's zip (archive.ts) has no ranges.

import type { ByteRange } from './storage.ts'

export type RangeAnswer = { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' }

/**
 * RFC 9110 §14: one range of `bytes` (`a-b`, `a-`, `-n`) is served as 206; a range past the end
 * as 416. Anything we do not serve — several ranges, another unit, a malformed header — is
 * ignored and the whole file sent, as the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'full' }
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'full' }
  const [, first, last] = match
  if (first === '') {
    // The last n bytes.
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' }
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } }
  }
  const start = Number(first)
  // "bytes=5-3" is no range at all (ignored); one that starts past the end cannot be served.
  if (last !== '' && Number(last) < start) return { kind: 'full' }
  if (start >= size) return { kind: 'unsatisfiable' }
  return { kind: 'partial', range: { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) } }
}

/** RFC 9110 §13.1.2: `If-None-Match` holds this entity tag (weak comparison) or `*`. */
export function noneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '')
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag))
}

/** RFC 9110 §13.1.5: a `Range` counts only while `If-Range` (when sent) is still this strong tag. */
export function ifRangeHolds(header: string | undefined, etag: string): boolean {
  return header === undefined || header.trim() === etag
}

/**
 * `Content-Disposition: attachment` with the name in both forms of RFC 6266: `filename*` in UTF-8
 * (RFC 8187 percent-encoding) for every current browser, and a plain ASCII `filename` for the
 * rest — non-ASCII letters lose their accents, anything else becomes "_", quotes and backslashes
 * cannot end the quoted string.
 */
export function attachmentDisposition(name: string): string {
  return contentDisposition('attachment', name)
}

/** The same header for either kind: `inline` only for the types we preview (downloads.ts). */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const fallback =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\x20-\x7e]|["\\%]/g, '_')
      .trim() || 'download'
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`
}
