import type { Queryable } from '../../db/database.ts'

// The audit log: one entry per operator action, written in the same transaction as
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

/** An entry as the operator API shows it; `id` is a bigint, so a string. */
export interface AuditEntry {
  id: string
  at: string
  actor: AuditActor
  action: string
  target: string
  before: unknown
  after: unknown
  requestId: string
}

export interface AuditFilter {
  /** An actor's id, or their email (case-insensitive). */
  actor?: string | undefined
  /** Exactly: `program:blender`, `user:<id>`, `maintenance`. */
  target?: string | undefined
  /** Exactly (`program.update`), or every action under a prefix ending with a dot (`program.`). */
  action?: string | undefined
  /** A cursor: only entries older than this id. */
  before?: string | undefined
}

interface AuditRow {
  entry_id: string
  at: Date | string
  actor_id: string
  actor_email: string
  action: string
  target: string
  before: unknown
  after: unknown
  request_id: string
}

/**
 * One page of the log, newest first, and the cursor of the next page (null on the last). The
 * action's characters are checked by the route (letters and dots), so a prefix is a plain LIKE.
 */
export async function listAudit(db: Queryable, filter: AuditFilter, limit: number): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const conditions: string[] = []
  const params: unknown[] = []
  const param = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  if (filter.actor !== undefined) {
    const p = param(filter.actor)
    conditions.push(`(actor_id = ${p} OR lower(actor_email) = lower(${p}))`)
  }
  if (filter.target !== undefined) conditions.push(`target = ${param(filter.target)}`)
  if (filter.action !== undefined) {
    conditions.push(filter.action.endsWith('.') ? `action LIKE ${param(`${filter.action}%`)}` : `action = ${param(filter.action)}`)
  }
  if (filter.before !== undefined) conditions.push(`id < ${param(filter.before)}::bigint`)
  const { rows } = await db.query<AuditRow>(
    // Named apart from id: ORDER BY id must sort the bigint, not its text.
    `SELECT id::text AS entry_id, at, actor_id, actor_email, action, target, before, after, request_id
     FROM api.audit_log ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
     ORDER BY id DESC LIMIT ${param(limit + 1)}`,
    params,
  )
  const entries = rows.slice(0, limit).map(entryOf)
  return { entries, next: rows.length > limit ? (entries.at(-1)?.id ?? null) : null }
}

function entryOf(row: AuditRow): AuditEntry {
  return {
    id: row.entry_id,
    at: new Date(row.at).toISOString(),
    actor: { id: row.actor_id, email: row.actor_email },
    action: row.action,
    target: row.target,
    before: row.before ?? null,
    after: row.after ?? null,
    requestId: row.request_id,
  }
}
