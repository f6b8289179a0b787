// The drive's wire shapes (issue 12, docs/API.md): what the API answers and the pages read. Ids are
// opaque strings; times are ISO 8601.

import { SHARE_PREVIEW_MAX_BYTES } from '../constants.ts'

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

export interface FileItem {
  id: string
  type: 'file' | 'folder'
  name: string
  /** Bytes; for a folder, the files in it at any depth. */
  size: number
  mimeType: string | null
  updatedAt: string
}

export interface TrashItem extends FileItem {
  trashedAt: string
  /** When the sweep deletes it for good. */
  purgeAt: string
  /** The folder it was deleted from, where a restore puts it back when that folder still exists; null: the root. */
  originalParentId: string | null
}

export interface FolderInfo {
  /** null: the root of the drive. */
  id: string | null
  name: string
  parentId: string | null
  /** The folders from the top of the drive down to this one (inclusive); empty at the root. */
  path: Array<{ id: string; name: string }>
}

export interface Usage {
  used: number
  quota: number
}

/** GET /api/files */
export interface FolderListing {
  folder: FolderInfo
  items: FileItem[]
  usage: Usage
}

/** POST /api/files/{id}/shares */
export interface CreatedShare {
  id: string
  link: string
  url: string
}

/** GET /api/files/shares: one of the user's links. */
export interface ShareSummary extends CreatedShare {
  itemId: string
  itemName: string
  itemType: 'file' | 'folder'
  hasPassword: boolean
  allowDownload: boolean
  expiresAt: string | null
  createdAt: string
  views: number
  state: 'active' | 'expired'
}

/** GET /api/sharing/{link}: the link's own facts, then a folder's listing or the file. */
export interface SharedView {
  share: { name: string; type: 'file' | 'folder'; allowDownload: boolean; expiresAt: string | null; hasPassword: boolean }
  folder?: { id: string; name: string; path: Array<{ id: string; name: string }> }
  items?: FileItem[]
  item?: FileItem
}
