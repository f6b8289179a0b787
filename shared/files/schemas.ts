import { Type, type Static } from 'typebox'

// The drive's and the share links' answers as schemas (docs/API.md): the API validates
// and documents its answers with them, and the pages' types are derived from them — one definition.
// The pages import only the types (erased from their bundles), never these values.

const Path = Type.Array(Type.Object({ id: Type.String(), name: Type.String() }))
const ItemType = Type.Union([Type.Literal('file'), Type.Literal('folder')])
const NullableString = Type.Union([Type.String(), Type.Null()])

/** A file or a folder. Ids are opaque strings; times are ISO 8601. */
export const FileItem = Type.Object({
  id: Type.String(),
  type: ItemType,
  name: Type.String(),
  /** Bytes; for a folder, the files in it at any depth. */
  size: Type.Number(),
  mimeType: NullableString,
  updatedAt: Type.String(),
})
export type FileItem = Static<typeof FileItem>

/** An item in the trash: when it was deleted, when the sweep deletes it for good, and the folder a restore puts it back in (null: the root). */
export const TrashItem = Type.Intersect([FileItem, Type.Object({ trashedAt: Type.String(), purgeAt: Type.String(), originalParentId: NullableString })])
export type TrashItem = Static<typeof TrashItem>

/** The folder in view (id null: the root), with the folders from the top of the drive down to it. */
export const FolderInfo = Type.Object({
  id: NullableString,
  name: Type.String(),
  parentId: NullableString,
  path: Path,
})
export type FolderInfo = Static<typeof FolderInfo>

export const Usage = Type.Object({ used: Type.Number(), quota: Type.Number() })
export type Usage = Static<typeof Usage>

/** GET /api/files */
export const FolderListing = Type.Object({ folder: FolderInfo, items: Type.Array(FileItem), usage: Usage })
export type FolderListing = Static<typeof FolderListing>

/** POST /api/files/{id}/shares */
export const CreatedShare = Type.Object({ id: Type.String(), link: Type.String(), url: Type.String() })
export type CreatedShare = Static<typeof CreatedShare>

/** GET /api/files/shares: one of the user's links. */
export const ShareSummary = Type.Object({
  id: Type.String(),
  link: Type.String(),
  url: Type.String(),
  itemId: Type.String(),
  itemName: Type.String(),
  itemType: ItemType,
  hasPassword: Type.Boolean(),
  allowDownload: Type.Boolean(),
  expiresAt: NullableString,
  createdAt: Type.String(),
  views: Type.Number(),
  state: Type.Union([Type.Literal('active'), Type.Literal('expired')]),
})
export type ShareSummary = Static<typeof ShareSummary>

/** GET /api/sharing/{link}: the link's own facts, then a folder's listing or the file. */
export const SharedView = Type.Object({
  share: Type.Object({
    name: Type.String(),
    type: ItemType,
    allowDownload: Type.Boolean(),
    expiresAt: NullableString,
    hasPassword: Type.Boolean(),
  }),
  folder: Type.Optional(Type.Object({ id: Type.String(), name: Type.String(), path: Path })),
  items: Type.Optional(Type.Array(FileItem)),
  item: Type.Optional(FileItem),
})
export type SharedView = Static<typeof SharedView>
