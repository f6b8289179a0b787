import type { Notification, NotificationData, NotificationList, NotificationType } from '../../../shared/catalogue/living.ts'
import type { Queryable } from '../../db/database.ts'

// Notifications: one row per account and thing to tell (`dedupe`), read by
// GET /api/user/notifications and the header's bell (the unread count is in the user's record),
// mailed by the notification mail (it takes the rows whose mailed_at is NULL).

/** GET /api/user/notifications: how many a page holds unless asked, and at most. */
export const NOTIFICATIONS_PAGE_DEFAULT = 50
export const NOTIFICATIONS_PAGE_MAX = 100

/**
 * The `mailed_at` a new notification of this account gets: now when its setting is 'off' (no
 * mail will carry it, so the mail never looks at it), NULL otherwise. SQL over `api.users u`.
 */
export const MAILED_AT_OF_NEW = "CASE WHEN u.notify = 'off' THEN now() END"

export interface NewNotification<T extends NotificationType = NotificationType> {
  userId: string
  type: T
  programId: string
  data: NotificationData[T]
  /** One notification per account and dedupe: 'event:<id>', 'search:<searchId>:<programId>'. */
  dedupe: string
}

/**
 * Adds one notification (a saved search's new match, say) inside the caller's transaction,
 * honouring the account's notify 'off'. False when the account has it already (same dedupe) or is gone.
 */
export async function insertNotification(tx: Queryable, notification: NewNotification): Promise<boolean> {
  const { rows } = await tx.query(
    `INSERT INTO api.notifications (user_id, type, program_id, data, dedupe, mailed_at)
     SELECT u.id, $2, $3, $4::jsonb, $5, ${MAILED_AT_OF_NEW} FROM api.users u WHERE u.id = $1
     ON CONFLICT (user_id, dedupe) DO NOTHING RETURNING id`,
    [notification.userId, notification.type, notification.programId, JSON.stringify(notification.data), notification.dedupe],
  )
  return rows.length > 0
}

interface NotificationRow {
  id: string | number
  type: NotificationType
  program_id: string
  at: Date | string
  read_at: Date | string | null
  data: unknown
}

/** How many of the account's notifications are unread (the partial index notifications_unread). */
export async function unreadCount(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ unread: string | number }>('SELECT count(*) AS unread FROM api.notifications WHERE user_id = $1 AND read_at IS NULL', [userId])
  return Number(rows[0]!.unread)
}

/** A page of the account's notifications, the newest first, older than `before` when given. */
export async function listNotifications(db: Queryable, userId: string, page: { before?: string | undefined; limit: number }): Promise<NotificationList> {
  const { rows } = await db.query<NotificationRow>(
    // The program's name as it is now: a program an editor renamed is listed by its new name
    // (what happened, the version or the prices, stays as it was told).
    `SELECT n.id, n.type, n.program_id, n.at, n.read_at, n.data || jsonb_build_object('programName', p.name) AS data
       FROM api.notifications n JOIN api.programs p ON p.id = n.program_id
      WHERE n.user_id = $1 AND ($2::bigint IS NULL OR n.id < $2::bigint) ORDER BY n.id DESC LIMIT $3`,
    [userId, page.before ?? null, page.limit],
  )
  const items: Notification[] = rows.map((row) => ({
    id: String(row.id),
    type: row.type,
    programId: row.program_id,
    at: new Date(row.at).toISOString(),
    read: row.read_at !== null,
    data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Notification['data'],
  }))
  return { items, unread: await unreadCount(db, userId) }
}

/** Marks the account's notifications read: these ids (another account's change nothing), or all. The unread count after. */
export async function markRead(db: Queryable, userId: string, which: { ids: string[] } | { all: true }): Promise<number> {
  if ('all' in which) {
    await db.query('UPDATE api.notifications SET read_at = now() WHERE user_id = $1 AND read_at IS NULL', [userId])
  } else if (which.ids.length > 0) {
    await db.query('UPDATE api.notifications SET read_at = now() WHERE user_id = $1 AND read_at IS NULL AND id = ANY($2::bigint[])', [userId, which.ids])
  }
  return unreadCount(db, userId)
}
