import { Type } from 'typebox'
import { binaryBody, type OpenApiDocs } from '../../http/openapi.ts'

// Schemas the drive's routes and the share links' routes both use (the answers' shapes: shared/files/schemas.ts).

/** Ids are opaque; a longer one cannot exist, so it is not found rather than invalid. */
export const ItemId = Type.String({ minLength: 1, maxLength: 100 })

/** `?disposition=`: inline only for the types previewed by the pages themselves (downloads.ts). */
export const Disposition = Type.Union([Type.Literal('inline'), Type.Literal('attachment')])

/** A file or a folder as the API answers it (the shape shared with the pages). */
export { FileItem as Item } from '../../../shared/files/schemas.ts'

/**
 * The document's description of an item's content (a download: bytes, never serialised): a file in
 * its own type, a folder as a zip made while it is sent. Documentation only (config.openapi).
 */
export const ContentDocs: OpenApiDocs = {
  response: {
    200: {
      description: 'The whole file, in its own type (Content-Disposition says inline or attachment); a folder: a zip of everything live in it.',
      content: { '*/*': binaryBody('The file\'s bytes.'), 'application/zip': binaryBody('A folder, as a zip.') },
    },
    206: {
      description: 'One byte range of a file (Range, and If-Range when given); Content-Range says which.',
      content: { '*/*': binaryBody('The bytes of the range.') },
    },
    304: { description: 'Not modified: the ETag given in If-None-Match is the file\'s (files only).' },
  },
}

/** A zip made while it is sent (no length, ETag or ranges). Documentation only (config.openapi). */
export const ZipDocs: OpenApiDocs = {
  response: { 200: { description: 'A zip, always an attachment.', content: { 'application/zip': binaryBody('The zip.') } } },
}
