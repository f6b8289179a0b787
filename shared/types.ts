// Shapes that cross the wire between the product API, the BFF and the browser.

import type { NotifyMode } from './catalogue/living.ts'

// The error body and the version answer are derived from their schemas (web/answers.ts).
export type { ErrorBody, VersionResponse } from './web/answers.ts'

/** GET /api/user/deletion-summary: what deleting the account removes beyond its record. */
export interface DeletionSummary {
  /** Every file of the drive, the trash and uploads under way included; `bytes` their sizes. */
  files: { count: number; bytes: number }
  /** Share links that work now (not revoked, not expired, their item not in the trash). */
  shareLinks: number
  /** Subscriptions still billed, cancelled with the account. */
  subscriptions: Array<{ programId: string; name: string }>
}

/** GET /api/user: the signed-in user's own record. */
export interface UserRecord {
  id: string
  email: string
  isTosAccepted: boolean
  isInMailList: boolean
  /** Display name; null when none was set. */
  name: string | null
  language: string
  /** The user chose `language` on the profile page: every sign-in applies it. */
  languageChosen: boolean
  /** The avatar's URL; null while the account has none. */
  avatarUrl: string | null
  /** ISO time the account was made. */
  timeJoined: string
  librarySize: number
  /** The account's operator roles now: admin, editor, support; empty for everyone else. */
  roles: string[]
  /** How notifications are mailed: off, immediate, or a daily digest. */
  notify: NotifyMode
  /** Adding a program to the library watches it too. */
  watchOnAdd: boolean
  /** How many notifications are unread (the header's bell). */
  unreadNotifications: number
}

/** POST / DELETE /api/user/program/:id. */
export interface LibraryChange {
  programId: string
  inLibrary: boolean
  librarySize: number
}
