import type { Database, Queryable } from '../db/database.ts'
import { recordAudit, type AuditActor } from './operator/audit-log.ts'

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

/**
 * Sets or clears the maintenance time as an operator's action: the change and its audit entry
 * (`maintenance.set`, target `maintenance`, the time before and after) in one transaction. The
 * console (PUT /api/operator/maintenance) and `npm run maintenance` both come here.
 */
export async function changeMaintenanceTime(db: Database, time: Date | null, actor: AuditActor, requestId: string): Promise<string | null> {
  const after = time ? time.toISOString() : null
  await db.transaction(async (tx) => {
    // The row is locked for the change, so two operators' entries each say what they replaced.
    const { rows } = await tx.query<{ maintenance_time: Date | string | null }>('SELECT maintenance_time FROM api.maintenance WHERE id FOR UPDATE')
    const previous = rows[0]?.maintenance_time
    await setMaintenanceTime(tx, time)
    await recordAudit(tx, {
      actor,
      action: 'maintenance.set',
      target: 'maintenance',
      before: { maintenanceTime: previous ? new Date(previous).toISOString() : null },
      after: { maintenanceTime: after },
      requestId,
    })
  })
  return after
}

/** The actor of `npm run maintenance` in the audit log: the command, not a person's account. */
export const MAINTENANCE_COMMAND_ACTOR: AuditActor = { id: 'operator-command', email: 'npm run maintenance' }

/** Parses an operator's ISO 8601 date-time; rejects dates without a time and impossible dates. */
export function parseMaintenanceTime(input: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(input)) return null
  const date = new Date(input)
  if (Number.isNaN(date.getTime())) return null
  // Date rolls 2027-02-30 over to March: the day must exist in its month.
  const [year, month, day] = input.slice(0, 10).split('-').map(Number) as [number, number, number]
  return day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate() ? date : null
}
