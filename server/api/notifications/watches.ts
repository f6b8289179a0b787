import { WATCH_EVENTS, type WatchEvent } from '../../../shared/catalogue/living.ts'
import type { Watch } from '../../../shared/catalogue/living-schemas.ts'
import type { Queryable } from '../../db/database.ts'

// Watchlists: which events of a program an account hears of (api.watches). A watch is
// one row per account and program; its events are kept in WATCH_EVENTS' order.

interface WatchRow {
  program_id: string
  events: string[]
  created_at: Date | string
}

function toWatch(row: WatchRow): Watch {
  return { programId: row.program_id, events: inOrder(row.events as WatchEvent[]), createdAt: new Date(row.created_at).toISOString() }
}

/** The events, once each, in WATCH_EVENTS' order. */
export function inOrder(events: readonly WatchEvent[]): WatchEvent[] {
  return WATCH_EVENTS.filter((event) => events.includes(event))
}

export type WatchOutcome = { outcome: 'watched'; watch: Watch } | { outcome: 'no-program' } | { outcome: 'retired' }

/** Watches a program for these events (replacing the events of a watch it has); the program must be in the catalogue. */
export async function setWatch(db: Queryable, userId: string, programId: string, events: readonly WatchEvent[]): Promise<WatchOutcome> {
  const { rows } = await db.query<WatchRow & { retired: boolean }>(
    `WITH program AS (SELECT id, retired_at IS NOT NULL AS retired FROM api.programs WHERE id = $2),
     saved AS (
       INSERT INTO api.watches (user_id, program_id, events)
       SELECT $1, id, $3::text[] FROM program WHERE NOT retired
       ON CONFLICT (user_id, program_id) DO UPDATE SET events = EXCLUDED.events
       RETURNING program_id, events, created_at)
     SELECT p.retired, s.program_id, s.events, s.created_at FROM program p LEFT JOIN saved s ON true`,
    [userId, programId, inOrder(events)],
  )
  const row = rows[0]
  if (!row) return { outcome: 'no-program' }
  if (row.retired) return { outcome: 'retired' }
  return { outcome: 'watched', watch: toWatch(row) }
}

/** Watches a program for every event unless the account watches it already (adding to the library, watchOnAdd). */
export async function watchIfNotWatched(db: Queryable, userId: string, programId: string): Promise<void> {
  await db.query(
    `INSERT INTO api.watches (user_id, program_id, events) SELECT $1, id, $3::text[] FROM api.programs WHERE id = $2
     ON CONFLICT (user_id, program_id) DO NOTHING`,
    [userId, programId, [...WATCH_EVENTS]],
  )
}

/** Stops watching; nothing to stop is fine. */
export async function removeWatch(db: Queryable, userId: string, programId: string): Promise<void> {
  await db.query('DELETE FROM api.watches WHERE user_id = $1 AND program_id = $2', [userId, programId])
}

/** The account's watches, the newest first. */
export async function listWatches(db: Queryable, userId: string): Promise<Watch[]> {
  const { rows } = await db.query<WatchRow>('SELECT program_id, events, created_at FROM api.watches WHERE user_id = $1 ORDER BY created_at DESC, program_id', [userId])
  return rows.map(toWatch)
}
