import { Type, type Static } from 'typebox'
import { NOTIFY_MODES } from '../catalogue/living.ts'
import { StringEnum } from '../web/string-enum.ts'

// The signed-in user's own answers as schemas (docs/API.md): the API validates and documents
// them with these, and the pages' types are derived from them — one definition. The pages import
// only the types (shared/types.ts; erased from their bundles), never these values.

/** GET /api/user: the signed-in user's own record. */
export const UserRecord = Type.Object({
  id: Type.String(),
  email: Type.String(),
  isTosAccepted: Type.Boolean({ description: 'The current terms of service are accepted (POST /api/user/accept-tos).' }),
  isInMailList: Type.Boolean(),
  name: Type.Union([Type.String(), Type.Null()], { description: 'The display name; null when none was set.' }),
  language: Type.String(),
  languageChosen: Type.Boolean({ description: 'The user chose `language` on the profile page: every sign-in applies it.' }),
  avatarUrl: Type.Union([Type.String(), Type.Null()], { description: 'Null while the account has no avatar.' }),
  timeJoined: Type.String({ description: 'ISO time the account was made.' }),
  librarySize: Type.Integer(),
  roles: Type.Array(Type.String(), { description: "The account's operator roles now: admin, editor, support; empty for everyone else." }),
  notify: StringEnum(NOTIFY_MODES, { description: 'How notifications are mailed: off, immediate, or a daily digest.' }),
  watchOnAdd: Type.Boolean({ description: 'Adding a program to the library watches it too (release, price, licence).' }),
  unreadNotifications: Type.Integer({ description: "How many notifications are unread (the header's bell)." }),
})
export type UserRecord = Static<typeof UserRecord>

/** POST / DELETE /api/user/program/:id. */
export const LibraryChange = Type.Object({ programId: Type.String(), inLibrary: Type.Boolean(), librarySize: Type.Integer() })
export type LibraryChange = Static<typeof LibraryChange>

/** GET /api/user/deletion-summary: what deleting the account removes beyond its record — counts and names only. */
export const DeletionSummary = Type.Object({
  files: Type.Object({ count: Type.Integer({ description: 'Every file of the drive, the trash and uploads under way included.' }), bytes: Type.Integer({ description: 'Their total size in bytes.' }) }),
  shareLinks: Type.Integer({ description: 'Share links that work now (not revoked, not expired, their item not in the trash).' }),
  subscriptions: Type.Array(Type.Object({ programId: Type.String(), name: Type.String() }), { description: 'Subscriptions still billed, cancelled with the account; by name.' }),
})
export type DeletionSummary = Static<typeof DeletionSummary>
