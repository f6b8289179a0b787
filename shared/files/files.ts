// What the drive's pages and the API agree on beyond the answers' shapes: which files are previewed.

import { SHARE_PREVIEW_MAX_BYTES } from '../constants.ts'

// The answers' shapes are derived from their schemas (schemas.ts); only their types come through here.
export type { CreatedShare, FileItem, FolderInfo, FolderListing, ShareSummary, SharedView, TrashItem, Usage } from './schemas.ts'

export type PreviewKind = 'image' | 'pdf' | 'text'

/**
 * The types the pages show themselves, by the type a file is labelled with (its name's extension),
 * which is also the Content-Type it is served with: with `nosniff` a browser renders the bytes as
 * that type or not at all, so HTML named "x.png" is a broken image and HTML named "x.txt" is text.
 * Never SVG or HTML (they can run script); text only as text/plain.
 */
const PREVIEW_KINDS: Readonly<Record<string, PreviewKind>> = {
  'image/png': 'image',
  'image/jpeg': 'image',
  'image/gif': 'image',
  'image/webp': 'image',
  'application/pdf': 'pdf',
  'text/plain': 'text',
}

/** How a file of this type is previewed, or null: it is only ever downloaded. */
export function previewKindOf(mimeType: string | null): PreviewKind | null {
  return mimeType !== null && Object.hasOwn(PREVIEW_KINDS, mimeType) ? PREVIEW_KINDS[mimeType]! : null
}

/** Whether a view-only share link shows this file in the page (its type, and a size under the limit). */
export function viewOnlyPreviewable(item: { type: 'file' | 'folder'; mimeType: string | null; size: number }): boolean {
  const kind = item.type === 'file' ? previewKindOf(item.mimeType) : null
  return kind !== null && item.size <= SHARE_PREVIEW_MAX_BYTES[kind]
}
