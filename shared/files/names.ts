import { FILE_NAME_MAX_BYTES, FILES_IGNORED_FOLDER_NAME } from '../constants.ts'

// Names of files and folders in the drive, shared by the API (which decides) and the
// client (which says so before sending). A name is metadata only: stored objects are named by
// random ids, so nothing here guards a file system path — these rules keep names that look like
// something else (bidi overrides, zero-width characters), that break other systems once the files
// are downloaded or zipped (separators, NUL, controls, "." and ".."), or that the spec ignores.

export type FileNameProblem = 'empty' | 'dot' | 'character' | 'too-long' | 'ignored'

export type FileNameCheck = { name: string } | { problem: FileNameProblem; message: string }

// Separators, control characters, the invisible format characters that can reorder or hide text,
// line and paragraph separators, and lone UTF-16 surrogates (not text at all).
const FORBIDDEN = /[/\\\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u

const encoder = new TextEncoder()

export function utf8Length(text: string): number {
  return encoder.encode(text).length
}

/** `$RECYCLE.BIN` in any letter case (spec §9): such a folder is never created nor listed. */
export function isIgnoredName(name: string): boolean {
  const plain = name.normalize('NFC').trim()
  return plain.toUpperCase() === FILES_IGNORED_FOLDER_NAME || plain.toLowerCase() === FILES_IGNORED_FOLDER_NAME.toLowerCase()
}

/**
 * The name as stored — Unicode NFC, surrounding spaces removed — or what is wrong with it. NFC
 * makes "é" typed on a Mac (e + combining accent) and elsewhere (one character) the same name.
 */
export function checkFileName(input: string): FileNameCheck {
  const normalized = input.normalize('NFC')
  if (FORBIDDEN.test(normalized)) {
    return { problem: 'character', message: 'A name cannot contain "/", "\\", control characters or invisible characters.' }
  }
  const name = normalized.trim()
  if (name === '') return { problem: 'empty', message: 'A name cannot be empty.' }
  if (name === '.' || name === '..') return { problem: 'dot', message: 'A name cannot be "." or "..".' }
  if (utf8Length(name) > FILE_NAME_MAX_BYTES) {
    return { problem: 'too-long', message: `A name can be at most ${FILE_NAME_MAX_BYTES} bytes long in UTF-8 (about ${FILE_NAME_MAX_BYTES} Latin letters, fewer in other scripts).` }
  }
  if (isIgnoredName(name)) return { problem: 'ignored', message: `"${FILES_IGNORED_FOLDER_NAME}" is the Windows recycle bin's folder; Softshelf ignores it.` }
  return { name }
}

/** The part a number goes before: "report.pdf" → "report" + ".pdf"; folders and ".bashrc" keep their whole name. */
function splitExtension(name: string, isFolder: boolean): { stem: string; extension: string } {
  const dot = name.lastIndexOf('.')
  // A long "extension" is part of the name ("notes.from the meeting on Monday").
  if (isFolder || dot <= 0 || name.length - dot > 16) return { stem: name, extension: '' }
  return { stem: name.slice(0, dot), extension: name.slice(dot) }
}

/** The stem cut (by whole code points) so that stem + suffix fits in FILE_NAME_MAX_BYTES. */
function fit(stem: string, suffix: string): string {
  const room = FILE_NAME_MAX_BYTES - utf8Length(suffix)
  const points = [...stem]
  while (points.length > 1 && utf8Length(points.join('')) > room) points.pop()
  return points.join('').trimEnd() + suffix
}

/**
 * Names to try for a new item called `name`, best first: the name itself, then "name (2).ext",
 * "name (3).ext"… A name that already ends in " (n)" counts on from n, so a second "photo (2).jpg"
 * becomes "photo (3).jpg" rather than "photo (2) (2).jpg". Each fits the length limit. Endless.
 */
export function* nameCandidates(name: string, isFolder: boolean): Generator<string> {
  yield name
  const { stem, extension } = splitExtension(name, isFolder)
  const numbered = /^(.*\S) \((\d{1,9})\)$/u.exec(stem)
  const base = numbered ? numbered[1]! : stem
  let n = numbered ? Number(numbered[2]) + 1 : 2
  for (;;) {
    yield fit(base, ` (${n})${extension}`)
    n += 1
  }
}
