import fp from 'fastify-plugin'
import { Readable } from 'node:stream'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Queryable } from '../../db/database.ts'
import { binaryBody, documented } from '../../http/openapi.ts'
import { listAudit, type AuditEntry, type AuditFilter } from './audit-log.ts'
import type { OperatorRoutesOptions } from './options.ts'

// The audit log: GET /api/operator/audit, a page at a time newest first, and
// GET /api/operator/audit.csv, the whole filtered log as a spreadsheet reads it. Reading only:
// no route changes or deletes an entry (and the database refuses to, migration 017).

/** How many entries a page holds unless the caller says (`limit`), and at most. */
export const AUDIT_PAGE_DEFAULT = 50
export const AUDIT_PAGE_MAX = 200
/** The CSV export reads the log this many entries at a time, so it is never all in memory… */
const CSV_PAGE = 500
/** …and holds at most this many: an older part is exported with `before` set to the last id. */
export const AUDIT_CSV_MAX_ROWS = 100_000

const Filters = {
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: "An actor's id, or their email (case-insensitive)." })),
  target: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'What was acted on, exactly: `program:blender`, `user:<id>`, `maintenance`.' })),
  action: Type.Optional(
    Type.String({
      maxLength: 100,
      pattern: '^[a-z]+(\\.[a-z]+)*\\.?$',
      description: 'An action exactly (`program.update`), or a prefix ending with a dot for every action under it (`program.`).',
    }),
  ),
  // At most 18 digits: always a bigint, never an overflow the database would refuse.
  before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'A cursor: only entries older than the entry with this id (a page\'s `next`).' })),
}

const AuditQuery = Type.Object({
  ...Filters,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_PAGE_MAX, default: AUDIT_PAGE_DEFAULT, description: `Entries per page, 1–${AUDIT_PAGE_MAX}.` })),
})
const AuditCsvQuery = Type.Object(Filters)

const Changed = Type.Unsafe<unknown>({
  type: ['object', 'null'],
  additionalProperties: true,
  description: 'The fields that changed, as they were (before) and as they are (after); null when there was nothing before or is nothing after.',
})
const AuditEntrySchema = Type.Object({
  id: Type.String({ description: 'The entry\'s id (a 64-bit integer, as a string); also the cursor of `before`.' }),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Object({ id: Type.String(), email: Type.String() }),
  action: Type.String({ description: '`<thing>.<verb>`: program.update, user.disable, user.roles, maintenance.set, …' }),
  target: Type.String(),
  before: Changed,
  after: Changed,
  requestId: Type.String({ description: 'The request the action came in (its x-request-id).' }),
})
const AuditPage = Type.Object({
  entries: Type.Array(AuditEntrySchema, { description: 'Newest first.' }),
  next: Type.Union([Type.String(), Type.Null()], { description: 'The `before` of the next (older) page; null on the last page.' }),
})

const CSV_COLUMNS = ['id', 'at', 'actor_id', 'actor_email', 'action', 'target', 'before', 'after', 'request_id'] as const

/**
 * One CSV cell (RFC 4180): quoted when it holds a quote, a comma or a line break. A cell a
 * spreadsheet would run as a formula (= + - @, or a tab or carriage return before one) gets a
 * leading apostrophe: an actor's email or a target is the operators' input, not ours.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`
}

function csvRowOf(entry: AuditEntry): string {
  const json = (value: unknown) => (value === null ? '' : JSON.stringify(value))
  return csvRow([entry.id, entry.at, entry.actor.id, entry.actor.email, entry.action, entry.target, json(entry.before), json(entry.after), entry.requestId])
}

/** The filtered log as CSV lines, a page at a time, newest first, up to AUDIT_CSV_MAX_ROWS entries. */
async function* csvLines(db: Queryable, filter: AuditFilter): AsyncGenerator<string> {
  yield csvRow(CSV_COLUMNS)
  let before = filter.before
  let written = 0
  while (written < AUDIT_CSV_MAX_ROWS) {
    const page = await listAudit(db, { ...filter, before }, Math.min(CSV_PAGE, AUDIT_CSV_MAX_ROWS - written))
    if (page.entries.length > 0) yield page.entries.map(csvRowOf).join('')
    written += page.entries.length
    if (page.next === null) return
    before = page.next
  }
}

function filterOf(query: AuditFilter): AuditFilter {
  return { actor: query.actor, target: query.target, action: query.action, before: query.before }
}

async function auditRoutes(app: FastifyInstance, opts: OperatorRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get('/api/operator/audit', { schema: { querystring: AuditQuery, response: { 200: AuditPage } } }, async (request) =>
    listAudit(app.db, filterOf(request.query), request.query.limit ?? AUDIT_PAGE_DEFAULT),
  )

  api.get(
    '/api/operator/audit.csv',
    {
      schema: { querystring: AuditCsvQuery },
      ...documented({}, {
        response: {
          200: {
            description: `The filtered log as CSV (RFC 4180, a header row, newest first), at most ${AUDIT_CSV_MAX_ROWS} entries; an older part with \`before\` set to the last id.`,
            content: { 'text/csv': binaryBody('One row per entry: id, at, actor_id, actor_email, action, target, before, after (JSON), request_id.') },
            headers: { 'content-disposition': { schema: { type: 'string' }, description: 'attachment; filename="softshelf-audit-<date>.csv"' } },
          },
        },
      }),
    },
    async (request, reply) => {
      const date = new Date(opts.now()).toISOString().slice(0, 10)
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="softshelf-audit-${date}.csv"`)
        .send(Readable.from(csvLines(app.db, filterOf(request.query))))
    },
  )
}

export default fp(auditRoutes, { name: 'operator-audit-routes', encapsulate: true, decorators: { fastify: ['db'] } })
