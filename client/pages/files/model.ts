import { FILES_IGNORED_FOLDER_NAME } from '../../../shared/constants.ts'
import { previewKindOf, type FileItem, type PreviewKind, type TrashItem } from '../../../shared/files/files.ts'

// What the drive's pages read from the API (docs/API.md) and the small helpers the
// drive and a share link's page both use. The shapes are the API's (shared/files/files.ts), with the
// pages' names for two of them.
export type { FolderInfo, FolderListing, ShareSummary, SharedView, Usage } from '../../../shared/files/files.ts'
export type DriveItem = FileItem
export type TrashEntry = TrashItem

/** How the pages preview a file (shared/files/files.ts): image, PDF or plain text; anything else is only downloaded. */
export function previewKind(item: Pick<DriveItem, 'type' | 'mimeType'>): PreviewKind | null {
  return item.type === 'file' ? previewKindOf(item.mimeType) : null
}

/** Spec §9: a path with a `$RECYCLE.BIN` segment (any letter case) is never uploaded. */
export function isIgnoredPath(path: string): boolean {
  const ignored = FILES_IGNORED_FOLDER_NAME.toLowerCase()
  return path.split('/').some((segment) => segment.trim().toLowerCase() === ignored)
}

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const

/** "1.5 GB" in the page's language (Intl names the units, so nothing to translate). */
export function formatBytes(bytes: number, locale: string): string {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024
    unit += 1
  }
  return new Intl.NumberFormat(locale, { style: 'unit', unit: UNITS[unit], unitDisplay: unit === 0 ? 'long' : 'short', maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)
}

export function formatDate(iso: string, locale: string, withTime = true): string {
  return new Intl.DateTimeFormat(locale, withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' }).format(new Date(iso))
}
