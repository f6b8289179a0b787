import { Type } from 'typebox'

// Schemas the drive's routes and the share links' routes both use (issue 12; shapes: shared/files.ts).

/** Ids are opaque; a longer one cannot exist, so it is not found rather than invalid. */
export const ItemId = Type.String({ minLength: 1, maxLength: 100 })

/** `?disposition=`: inline only for the types previewed by the pages themselves (downloads.ts). */
export const Disposition = Type.Union([Type.Literal('inline'), Type.Literal('attachment')])

export const Item = Type.Object({
  id: Type.String(),
  type: Type.Union([Type.Literal('file'), Type.Literal('folder')]),
  name: Type.String(),
  size: Type.Number(),
  mimeType: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.String(),
})
