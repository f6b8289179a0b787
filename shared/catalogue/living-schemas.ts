import { Type, type Static } from 'typebox'
import { StringEnum } from '../web/string-enum.ts'
import { WATCH_EVENTS } from './living.ts'

// The watchlist's and the saved searches' answers as schemas (docs/API.md "Watches and
// notifications", "Saved searches"): the API validates and documents them with these, and the
// pages' types are derived from them — one definition. The pages import only the types.

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
