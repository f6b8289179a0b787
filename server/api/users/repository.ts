import { TOS_VERSION } from '../../../shared/constants.ts'
import type { UtmRecord } from '../../../shared/auth/sign-up.ts'
import type { UserRecord } from '../../../shared/types.ts'
import type { NotifyMode } from '../../../shared/catalogue/living.ts'
import { avatarPath } from '../../../shared/account/avatar.ts'
import { createHash } from 'node:crypto'
import type { Database, Queryable } from '../../db/database.ts'
import { recordAudit, type AuditActor } from '../operator/audit-log.ts'

// The product's own record of an account (the auth core keeps credentials and sessions).

export interface ProductUser extends Omit<UserRecord, 'roles'> {
  disabled: boolean
  /** When the email was last compared with the auth core's (ms); null when never. */
  emailCheckedAt: number | null
}

interface Row {
  id: string
  email: string
  is_in_mail_list: boolean
  name: string | null
  language: string
  language_chosen: boolean
  tos_version: string | null
  created_at: Date | string
  disabled_at: Date | string | null
  email_checked_at: number | string | null
  library_size: number | string
  avatar_hash: string | null
  notify: NotifyMode
  watch_on_add: boolean
  unread_notifications: number | string
}

const SELECT_USER = `SELECT u.id, u.email, u.is_in_mail_list, u.name, u.language, u.language_chosen, u.tos_version, u.created_at, u.disabled_at, u.email_checked_at,
  u.notify, u.watch_on_add,
  (SELECT count(*) FROM api.user_programs p WHERE p.user_id = u.id) AS library_size,
  (SELECT count(*) FROM api.notifications n WHERE n.user_id = u.id AND n.read_at IS NULL) AS unread_notifications,
  (SELECT a.hash FROM api.avatars a WHERE a.user_id = u.id) AS avatar_hash
  FROM api.users u WHERE u.id = $1`

function toUser(row: Row): ProductUser {
  return {
    id: row.id,
    email: row.email,
    isTosAccepted: row.tos_version === TOS_VERSION,
    isInMailList: row.is_in_mail_list,
    name: row.name,
    language: row.language,
    languageChosen: row.language_chosen,
    avatarUrl: row.avatar_hash === null ? null : avatarPath(row.avatar_hash),
    timeJoined: new Date(row.created_at).toISOString(),
    librarySize: Number(row.library_size),
    notify: row.notify,
    watchOnAdd: row.watch_on_add,
    unreadNotifications: Number(row.unread_notifications),
    disabled: row.disabled_at !== null,
    emailCheckedAt: row.email_checked_at === null ? null : Number(row.email_checked_at),
  }
}

export async function getUser(db: Database, id: string): Promise<ProductUser | null> {
  const { rows } = await db.query<Row>(SELECT_USER, [id])
  return rows[0] ? toUser(rows[0]) : null
}

/** Makes the record once; a repeated call (a retried sign-up) changes nothing. */
export async function createUser(db: Database, input: { id: string; email: string; isInMailList: boolean; utm: UtmRecord | null; language: string }): Promise<ProductUser> {
  await db.query(
    'INSERT INTO api.users (id, email, is_in_mail_list, utm, language) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING',
    [input.id, input.email, input.isInMailList, input.utm === null ? null : JSON.stringify(input.utm), input.language],
  )
  return (await getUser(db, input.id))!
}

export async function acceptTerms(db: Database, id: string, isInMailList: boolean): Promise<ProductUser | null> {
  const { rowCount } = await db.query('UPDATE api.users SET tos_version = $2, tos_accepted_at = now(), is_in_mail_list = $3 WHERE id = $1', [id, TOS_VERSION, isInMailList])
  return rowCount > 0 ? getUser(db, id) : null
}

/** Everything the product keeps about an account, for the user's own download. */
export async function exportUser(db: Database, id: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{
    id: string
    email: string
    name: string | null
    language: string
    language_chosen: boolean
    is_in_mail_list: boolean
    utm: unknown
    tos_version: string | null
    tos_accepted_at: Date | string | null
    created_at: Date | string
    notify: string
    watch_on_add: boolean
  }>('SELECT id, email, name, language, language_chosen, is_in_mail_list, utm, tos_version, tos_accepted_at, created_at, notify, watch_on_add FROM api.users WHERE id = $1', [id])
  const row = rows[0]
  if (!row) return null
  const library = await db.query<{ program_id: string; name: string; added_at: Date | string }>(
    'SELECT up.program_id, p.name, up.added_at FROM api.user_programs up JOIN api.programs p ON p.id = up.program_id WHERE up.user_id = $1 ORDER BY up.added_at, up.program_id',
    [id],
  )
  const signIns = await db.query<{ signed_in_at: Date | string; method: string; user_agent: string | null; ip: string | null }>(
    'SELECT signed_in_at, method, user_agent, ip FROM api.sign_ins WHERE user_id = $1 ORDER BY id DESC',
    [id],
  )
  // The drive: every file and folder, with its path, the trash included; not the bytes.
  const files = await db.query<{ id: string; path: string; type: string; size: number | string; mime_type: string | null; updated_at: Date | string; trashed_at: Date | string | null }>(
    `WITH RECURSIVE tree AS (
       SELECT id, name::text AS path FROM api.file_items WHERE user_id = $1 AND parent_id IS NULL AND state = 'ready'
       UNION ALL
       SELECT f.id, tree.path || '/' || f.name FROM api.file_items f JOIN tree ON f.parent_id = tree.id WHERE f.user_id = $1 AND f.state = 'ready')
     SELECT f.id, tree.path, f.type, f.size, f.mime_type, f.updated_at, f.trashed_at
       FROM tree JOIN api.file_items f ON f.id = tree.id ORDER BY tree.path`,
    [id],
  )
  const avatar = await db.query<{ hash: string; created_at: Date | string }>('SELECT hash, created_at FROM api.avatars WHERE user_id = $1', [id])
  // The watchlist and the notifications.
  const watches = await db.query<{ program_id: string; events: string[]; created_at: Date | string }>('SELECT program_id, events, created_at FROM api.watches WHERE user_id = $1 ORDER BY created_at, program_id', [id])
  const notifications = await db.query<{ type: string; program_id: string; at: Date | string; read_at: Date | string | null; data: unknown }>(
    'SELECT type, program_id, at, read_at, data FROM api.notifications WHERE user_id = $1 ORDER BY id DESC',
    [id],
  )
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString())
  return {
    account: {
      id: row.id,
      email: row.email,
      name: row.name,
      language: row.language,
      languageChosen: row.language_chosen,
      isInMailList: row.is_in_mail_list,
      timeJoined: iso(row.created_at),
      // The landing-page record the browser sent with the sign-up (spec §3).
      utm: row.utm ?? null,
      notify: row.notify,
      watchOnAdd: row.watch_on_add,
    },
    watches: watches.rows.map((watch) => ({ programId: watch.program_id, events: watch.events, createdAt: iso(watch.created_at) })),
    notifications: notifications.rows.map((entry) => ({ type: entry.type, programId: entry.program_id, at: iso(entry.at), readAt: iso(entry.read_at), data: entry.data })),
    terms: { acceptedVersion: row.tos_version, acceptedAt: iso(row.tos_accepted_at) },
    library: library.rows.map((entry) => ({ programId: entry.program_id, name: entry.name, addedAt: iso(entry.added_at) })),
    // The image itself is at the URL (it is the re-encoded one; the upload was never kept).
    files: files.rows.map((item) => ({
      path: item.path,
      type: item.type,
      size: Number(item.size),
      mimeType: item.mime_type,
      updatedAt: iso(item.updated_at),
      inTrash: item.trashed_at !== null,
    })),
    signInHistory: signIns.rows.map((entry) => ({ at: iso(entry.signed_in_at), method: entry.method, userAgent: entry.user_agent, ip: entry.ip })),
    avatar: avatar.rows[0] ? { url: avatarPath(avatar.rows[0].hash), uploadedAt: iso(avatar.rows[0].created_at) } : null,
  }
}

/**
 * Profile changes: a field left undefined keeps its value; a language given is the user's choice
 * from then on. `notify` and `watchOnAdd` are the notification settings.
 */
export async function updateProfile(db: Database, id: string, change: { name?: string | null; language?: string; notify?: NotifyMode; watchOnAdd?: boolean }): Promise<ProductUser | null> {
  const { rowCount } = await db.query(
    `UPDATE api.users SET
       name = CASE WHEN $2 THEN $3 ELSE name END,
       language = COALESCE($4, language),
       language_chosen = language_chosen OR $4 IS NOT NULL,
       notify = COALESCE($5, notify),
       watch_on_add = COALESCE($6, watch_on_add)
     WHERE id = $1`,
    [id, change.name !== undefined, change.name ?? null, change.language ?? null, change.notify ?? null, change.watchOnAdd ?? null],
  )
  return rowCount > 0 ? getUser(db, id) : null
}

/** The email the auth core holds now for the account, and when it was asked (ms). */
export async function recordCheckedEmail(db: Database, id: string, email: string, checkedAt: number): Promise<ProductUser | null> {
  const { rowCount } = await db.query('UPDATE api.users SET email = $2, email_checked_at = $3 WHERE id = $1', [id, email, checkedAt])
  return rowCount > 0 ? getUser(db, id) : null
}

/** Adds a program to the user's library; false when there is no such program. Adding twice is one add. */
export async function addToLibrary(db: Database, userId: string, programId: string): Promise<boolean> {
  const { rows } = await db.query<{ known: boolean }>(
    `WITH added AS (
       INSERT INTO api.user_programs (user_id, program_id)
       SELECT $1, p.id FROM api.programs p WHERE p.id = $2
       ON CONFLICT (user_id, program_id) DO NOTHING)
     SELECT EXISTS (SELECT 1 FROM api.programs WHERE id = $2) AS known`,
    [userId, programId],
  )
  return rows[0]!.known
}

/** Removes it; false when there is no such program (removing one not in the library is fine). */
export async function removeFromLibrary(db: Database, userId: string, programId: string): Promise<boolean> {
  const { rows } = await db.query<{ known: boolean }>(
    `WITH gone AS (DELETE FROM api.user_programs WHERE user_id = $1 AND program_id = $2)
     SELECT EXISTS (SELECT 1 FROM api.programs WHERE id = $2) AS known`,
    [userId, programId],
  )
  return rows[0]!.known
}

/** The library's program ids, the most recently added first (the library's "recently added" sort; GET /api/user/program-ids sorts them by id). */
export async function libraryNewestFirst(db: Database, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ program_id: string }>('SELECT program_id FROM api.user_programs WHERE user_id = $1 ORDER BY added_at DESC, program_id', [userId])
  return rows.map((row) => row.program_id)
}

/** Why an account is disabled, by whom and since when; all null while it is not. */
export interface DisabledState {
  disabled: boolean
  disabledAt: string | null
  reason: string | null
  by: AuditActor | null
}

interface DisabledRow {
  id: string
  disabled_at: Date | string | null
  disabled_reason: string | null
  disabled_by_id: string | null
  disabled_by_email: string | null
}

function disabledState(row: DisabledRow): DisabledState {
  return {
    disabled: row.disabled_at !== null,
    disabledAt: row.disabled_at === null ? null : new Date(row.disabled_at).toISOString(),
    reason: row.disabled_reason,
    by: row.disabled_by_id === null ? null : { id: row.disabled_by_id, email: row.disabled_by_email ?? '' },
  }
}

/** The account an operator acts on: by its id (the console), or by its email (npm run accounts). */
export type AccountTarget = { id: string } | { email: string }

export type DisabledChange = { disabled: true; reason: string | null; by: AuditActor } | { disabled: false }

/**
 * Operator action: disables the account, with why and by whom, or enables it again, and
 * writes the audit entry in the same transaction (`user.disable` / `user.enable`, target
 * `user:<id>`, before and after the fields that changed). Null when there is no such account.
 * Disabling one already disabled keeps its first date and takes the new reason.
 */
export async function changeDisabled(
  db: Database,
  target: AccountTarget,
  change: DisabledChange,
  audit: { actor: AuditActor; requestId: string },
): Promise<{ id: string; email: string; state: DisabledState } | null> {
  return db.transaction(async (tx) => {
    const where = 'id' in target ? 'id = $1' : 'email = $1'
    const key = 'id' in target ? target.id : target.email.trim().toLowerCase()
    const { rows } = await tx.query<DisabledRow & { email: string }>(
      `SELECT id, email, disabled_at, disabled_reason, disabled_by_id, disabled_by_email FROM api.users WHERE ${where} ORDER BY created_at LIMIT 1 FOR UPDATE`,
      [key],
    )
    const current = rows[0]
    if (!current) return null
    const updated = await tx.query<DisabledRow>(
      change.disabled
        ? `UPDATE api.users SET disabled_at = COALESCE(disabled_at, now()), disabled_reason = $2, disabled_by_id = $3, disabled_by_email = $4 WHERE id = $1
           RETURNING id, disabled_at, disabled_reason, disabled_by_id, disabled_by_email`
        : `UPDATE api.users SET disabled_at = NULL, disabled_reason = NULL, disabled_by_id = NULL, disabled_by_email = NULL WHERE id = $1
           RETURNING id, disabled_at, disabled_reason, disabled_by_id, disabled_by_email`,
      change.disabled ? [current.id, change.reason, change.by.id, change.by.email] : [current.id],
    )
    const before = disabledState(current)
    const after = disabledState(updated.rows[0]!)
    const [was, now] = [changedFields(before, after), changedFields(after, before)]
    // Enabling an enabled account (or disabling again for the same reason) changes nothing: nothing to record.
    if (Object.keys(was).length > 0 || Object.keys(now).length > 0) await recordAudit(tx, {
      actor: audit.actor,
      action: change.disabled ? 'user.disable' : 'user.enable',
      target: `user:${current.id}`,
      before: was,
      after: now,
      requestId: audit.requestId,
    })
    return { id: current.id, email: current.email, state: after }
  })
}

/** The fields of `state` that differ from `other` (the audit keeps only what changed). */
function changedFields(state: DisabledState, other: DisabledState): Partial<DisabledState> {
  return Object.fromEntries(Object.entries(state).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(other[key as keyof DisabledState]))) as Partial<DisabledState>
}

/** What the operator console shows of an account's product record; null when there is none. */
export async function operatorRecord(db: Queryable, id: string): Promise<(DisabledState & { email: string; joined: string; librarySize: number }) | null> {
  const { rows } = await db.query<DisabledRow & { email: string; created_at: Date | string; library_size: number | string }>(
    `SELECT u.id, u.email, u.created_at, u.disabled_at, u.disabled_reason, u.disabled_by_id, u.disabled_by_email,
       (SELECT count(*) FROM api.user_programs p WHERE p.user_id = u.id) AS library_size
       FROM api.users u WHERE u.id = $1`,
    [id],
  )
  const row = rows[0]
  return row ? { email: row.email, joined: new Date(row.created_at).toISOString(), librarySize: Number(row.library_size), ...disabledState(row) } : null
}

/** Which of these accounts are disabled (the operator's search results); ids without a record are absent. */
export async function disabledOf(db: Queryable, ids: readonly string[]): Promise<Map<string, boolean>> {
  if (ids.length === 0) return new Map()
  const { rows } = await db.query<{ id: string; disabled: boolean }>('SELECT id, disabled_at IS NOT NULL AS disabled FROM api.users WHERE id = ANY($1::text[])', [ids])
  return new Map(rows.map((row) => [row.id, row.disabled]))
}

/**
 * Stores the account's new avatar (bytes we encoded), replacing the old one in one statement: a
 * reader sees the old avatar or the new one, never none. Its hash covers the account too, so two
 * people with the same picture still have their own URLs. Null when the account is gone.
 */
export async function setAvatar(db: Database, userId: string, image: Uint8Array): Promise<string | null> {
  const hash = createHash('sha256').update(userId).update('\0').update(image).digest('hex').slice(0, 32)
  const { rows } = await db.query<{ hash: string }>(
    `INSERT INTO api.avatars (user_id, hash, image) SELECT id, $2, $3 FROM api.users WHERE id = $1
     ON CONFLICT (user_id) DO UPDATE SET hash = EXCLUDED.hash, image = EXCLUDED.image, created_at = now()
     RETURNING hash`,
    [userId, hash, image],
  )
  return rows[0] ? avatarPath(rows[0].hash) : null
}

export async function removeAvatar(db: Database, userId: string): Promise<void> {
  await db.query('DELETE FROM api.avatars WHERE user_id = $1', [userId])
}

/** The stored image served at this hash, or null. */
export async function avatarImage(db: Database, hash: string): Promise<Uint8Array | null> {
  const { rows } = await db.query<{ image: Uint8Array }>('SELECT image FROM api.avatars WHERE hash = $1', [hash])
  return rows[0]?.image ?? null
}

export const SIGN_IN_HISTORY_LENGTH = 20

/** Notes a sign-in, keeping the last SIGN_IN_HISTORY_LENGTH of the account. */
export async function recordSignIn(db: Database, userId: string, entry: { method: string; userAgent: string | null; ip: string | null }): Promise<void> {
  await db.query(
    `WITH added AS (INSERT INTO api.sign_ins (user_id, method, user_agent, ip) VALUES ($1, $2, $3, $4) RETURNING id)
     DELETE FROM api.sign_ins WHERE user_id = $1 AND id < (SELECT min(id) FROM (SELECT id FROM api.sign_ins WHERE user_id = $1 ORDER BY id DESC LIMIT $5) AS newest)`,
    [userId, entry.method, entry.userAgent?.slice(0, 300) ?? null, entry.ip?.slice(0, 64) ?? null, SIGN_IN_HISTORY_LENGTH - 1],
  )
}
