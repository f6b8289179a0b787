import { checkFileName } from '../../../shared/files/names.ts'
import { FilesNameInvalid, FilesUploadInvalid } from './errors.ts'
import type { UploadTarget } from './repository.ts'

// What a resumable upload's Upload-Metadata says about where its file goes: `filename`
// (required), `parentId` (a folder of the user; the root without it) and `relativePath` (a folder
// upload: the file's path inside the dropped folder, as a browser's webkitRelativePath gives it,
// "photos/2024/a.jpg" — the folders before the file's name are made at the finish). Other keys
// (tus clients add `filetype` and the like) are kept for HEAD and otherwise ignored.

/** Longest relativePath, in characters: deep enough for any real folder tree. */
const RELATIVE_PATH_MAX = 4096

function value(metadata: Record<string, string | null>, key: string): string | null {
  const found = metadata[key]
  return found === undefined || found === null || found === '' ? null : found
}

/**
 * The checked target, or FILES_NAME_INVALID / FILES_UPLOAD_INVALID. A `$RECYCLE.BIN` segment, in
 * any letter case, in the name or the path is not an error: the upload becomes a sink, so a client
 * dragging in a whole disk finishes without a failure and nothing of the recycle bin appears.
 */
export function uploadTarget(metadata: Record<string, string | null>): UploadTarget {
  const filename = value(metadata, 'filename')
  if (filename === null) throw new FilesUploadInvalid('Upload-Metadata must name the file: give it a "filename".')
  const relativePath = value(metadata, 'relativePath')
  if (relativePath !== null && relativePath.length > RELATIVE_PATH_MAX) throw new FilesUploadInvalid(`A relativePath can be at most ${RELATIVE_PATH_MAX} characters long.`)
  // Separators of either kind: the path comes from a browser on any system.
  const segments = relativePath === null ? [] : relativePath.split(/[/\\]/)
  let sink = false
  const check = (input: string): string => {
    const checked = checkFileName(input)
    if ('name' in checked) return checked.name
    if (checked.problem === 'ignored') {
      sink = true
      return input
    }
    throw new FilesNameInvalid(input === filename ? checked.message : `The relativePath "${relativePath}" has a folder name that cannot be used. ${checked.message}`)
  }
  const name = check(filename)
  const folders = segments.map(check)
  // The last segment is normally the file itself (webkitRelativePath ends with the file's name); a
  // client that sends the folders alone is understood too.
  if (folders.at(-1) === name) folders.pop()
  return { name, parentId: value(metadata, 'parentId'), folders, sink }
}
