// The drive's wire shapes (issue 12, docs/API.md): what the API answers and the pages read. Ids are
// opaque strings; times are ISO 8601.

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
