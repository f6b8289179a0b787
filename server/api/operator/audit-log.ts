import type { Queryable } from '../../db/database.ts'

// The audit log (issue 28): one entry per operator action, written in the same transaction as
// the change it records, so there is never a change without its entry nor an entry without its
// change. The table is append-only (migration 017): the database refuses UPDATE, DELETE and
// TRUNCATE of it.

export interface AuditActor {
  id: string
  email: string
}

export interface AuditEntryInput {
  actor: AuditActor
  /** `<thing>.<verb>`: program.create, user.disable, user.roles, maintenance.set, … */
  action: string
  /** What was acted on: `program:<id>`, `user:<id>`, `maintenance`. */
  target: string
  /** The changed fields as they were, and as they are now (null when there was nothing before, or is nothing after). */
  before: unknown
  after: unknown
  requestId: string
}

export async function recordAudit(db: Queryable, entry: AuditEntryInput): Promise<void> {
  await db.query(
    `INSERT INTO api.audit_log (actor_id, actor_email, action, target, before, after, request_id)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)`,
    [
      entry.actor.id,
      entry.actor.email,
      entry.action,
      entry.target,
      entry.before === null || entry.before === undefined ? null : JSON.stringify(entry.before),
      entry.after === null || entry.after === undefined ? null : JSON.stringify(entry.after),
      entry.requestId,
    ],
  )
}
