import { Type, type Static } from 'typebox'
import { StringEnum } from '../web/string-enum.ts'
import { WATCH_EVENTS } from './living.ts'
import { PartialDate } from './program-schemas.ts'

// The releases', the watchlist's and the saved searches' answers as schemas (docs/API.md "Living
// catalogue", "Watches and notifications", "Saved searches"): the API validates and documents them with these, and the
// pages' types are derived from them — one definition. The pages import only the types.

/** One release of a program, as `GET /api/programs/{id}/releases` lists them (newest first). */
export const Release = Type.Object({
  version: Type.String(),
  date: PartialDate('The day it was released (a release the catalogue knew only to the month or year says so)'),
  notesUrl: Type.Optional(Type.String({ description: 'Its release notes (http or https); absent when none is known.' })),
  source: Type.String({ description: '"editor" (the console, the seed) or the feed it came from, `<format>:<host>`, e.g. "appstream:dl.flathub.org".' }),
})
export type Release = Static<typeof Release>

/** `GET /api/releases` items: the newest releases of the catalogue (or of a category), what the Atom feeds list. */
export const RecentRelease = Type.Object({
  programId: Type.String(),
  programName: Type.String(),
  ...Release.properties,
  recordedAt: Type.String({ description: 'ISO 8601: when the catalogue learnt of it.' }),
})
export type RecentRelease = Static<typeof RecentRelease>

/** What of the program to hear of. */
export const WatchEvents = Type.Array(StringEnum(WATCH_EVENTS), { minItems: 1, maxItems: WATCH_EVENTS.length, uniqueItems: true, description: 'What of the program to hear of: a new release, a price or a licence type that changes.' })

/** `GET /api/user/watches` items. */
export const Watch = Type.Object({ programId: Type.String(), events: WatchEvents, createdAt: Type.String({ description: 'ISO time the program was first watched.' }) })
export type Watch = Static<typeof Watch>

/** A saved search: the catalogue's query string (`q=…&category=…&platform=…`, no leading `?`). */
export const SavedSearch = Type.Object({
  id: Type.String(),
  name: Type.String(),
  query: Type.String({ description: 'The listing\'s query string without "?", as GET /api/programs reads it (sort and page left out).' }),
  createdAt: Type.String({ description: 'ISO 8601.' }),
})
export type SavedSearch = Static<typeof SavedSearch>
