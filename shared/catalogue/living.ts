// The living catalogue: releases, the ids a program has in other catalogues, watches,
// notifications, saved searches and compare. Wire types and constants shared by the API, the BFF
// and the pages; the HTTP contract is docs/API.md's "Living catalogue" section.

/** Where a release came from: an editor (the console, the seed) or a feed, named `<format>:<host>` (`appstream:dl.flathub.org`, `homebrew:formulae.brew.sh`, `appstream:file`). */
export type ReleaseSource = string
export const EDITOR_RELEASE_SOURCE = 'editor'


/** The ids a program has elsewhere, each optional. */
export const EXTERNAL_CATALOGUES = ['flathub', 'winget', 'homebrew'] as const
export type ExternalCatalogue = (typeof EXTERNAL_CATALOGUES)[number]
export type ExternalIds = Partial<Record<ExternalCatalogue, string>>
/** What an id of each looks like: Flathub's reverse-DNS app id, winget's Publisher.Package, a Homebrew cask token. */
export const EXTERNAL_ID_PATTERNS: Record<ExternalCatalogue, RegExp> = {
  flathub: /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*){2,}$/,
  winget: /^[A-Za-z0-9][\w-]*(\.[\w-]+)+$/,
  homebrew: /^[a-z0-9][a-z0-9@._+-]*$/,
}
export const EXTERNAL_ID_MAX_LENGTH = 255

/** What of a watched program an account hears of. */
export const WATCH_EVENTS = ['release', 'price', 'licence'] as const
export type WatchEvent = (typeof WATCH_EVENTS)[number]

/** A notification's type: a watched program's event, or a saved search's new match. */
export const NOTIFICATION_TYPES = ['release', 'price', 'licence', 'search'] as const
export type NotificationType = (typeof NOTIFICATION_TYPES)[number]

/** `data` of each notification type. */
export interface NotificationData {
  release: { version: string; date: string; notesUrl?: string; source: ReleaseSource; programName: string }
  price: { before: { amount: number; currency: string; period: string } | null; after: { amount: number; currency: string; period: string } | null; programName: string }
  licence: { before: string; after: string; programName: string }
  search: { searchId: string; searchName: string; query: string; programName: string }
}

export interface Notification<T extends NotificationType = NotificationType> {
  id: string
  type: T
  programId: string
  /** ISO 8601. */
  at: string
  read: boolean
  data: NotificationData[T]
}

/** `GET /api/user/notifications`. */
export interface NotificationList {
  items: Notification[]
  unread: number
}

/** How an account hears of its notifications by mail (`PATCH /api/user { notify }`). */
export const NOTIFY_MODES = ['off', 'immediate', 'daily'] as const
export type NotifyMode = (typeof NOTIFY_MODES)[number]

export const SAVED_SEARCHES_MAX = 20
export const SAVED_SEARCH_NAME_MAX = 100
export const SAVED_SEARCH_QUERY_MAX = 2000
/** What a listing's URL says that is no part of what a saved search looks for: left out when it is saved. */
export const SAVED_SEARCH_IGNORED_PARAMS = ['sort', 'page', 'pageSize'] as const

/** `/compare?programs=a,b,c`: how many programs a comparison holds. */
export const COMPARE_MIN = 2
export const COMPARE_MAX = 4

/** The comparison's public path (the URL is its whole state); ids are slugs, so the commas stay readable. */
export function comparePath(ids: readonly string[]): string {
  return `/compare?programs=${ids.map(encodeURIComponent).join(',')}`
}

/** Atom feeds: how many of the newest releases each lists. */
export const ATOM_FEED_ENTRIES = 50

/**
 * Notification mail (docs/API.md "Notification mail and one-click unsubscribe", decision 030): one
 * account the BFF's mail worker claimed, with what its mail tells (`POST /internal/notification-mail/claim`).
 */
export interface NotificationMailClaim {
  /** The claim, and the outbox's id of its mail: a claim taken again after its lease ran out has the same one. */
  claimId: string
  userId: string
  email: string
  /** One of the eight locales. */
  language: string
  /** Oldest first, at most NOTIFICATION_MAIL_MAX_ITEMS. */
  notifications: Notification[]
  /** Unmailed notifications left for the next mail ("and N more"). */
  more: number
  /** The one-click unsubscribe link's token. */
  unsubscribeToken: string
}
/** Notifications one mail lists at most; the rest go in the next one. */
export const NOTIFICATION_MAIL_MAX_ITEMS = 50
/** An unsubscribe link older than this does nothing (the mail that carried it is this old). */
export const UNSUBSCRIBE_TOKEN_MAX_AGE_MS = 60 * 24 * 60 * 60_000
