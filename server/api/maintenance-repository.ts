import type { Queryable } from '../db/database.ts'

/** The announced maintenance time, or null when none is scheduled. */
export async function getMaintenanceTime(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ maintenance_time: Date | string | null }>('SELECT maintenance_time FROM api.maintenance WHERE id')
  const value = rows[0]?.maintenance_time
  return value ? new Date(value) : null
}

export async function setMaintenanceTime(db: Queryable, time: Date | null): Promise<void> {
  await db.query(
    `INSERT INTO api.maintenance (id, maintenance_time, updated_at) VALUES (true, $1, now())
     ON CONFLICT (id) DO UPDATE SET maintenance_time = EXCLUDED.maintenance_time, updated_at = now()`,
    [time ? time.toISOString() : null],
  )
}

/** Parses an operator's ISO 8601 date-time; rejects dates without a time and impossible dates. */
export function parseMaintenanceTime(input: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(input)) return null
  const date = new Date(input)
  return Number.isNaN(date.getTime()) ? null : date
}
