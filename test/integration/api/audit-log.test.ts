import t from 'tap'
import { migrateApiSchema } from '../../../server/api/schema.ts'
import { recordAudit } from '../../../server/api/operator/audit-log.ts'
import { openTestDatabase } from '../../helpers.ts'

// The audit log is append-only in the database itself, not only by having no route that
// changes it — on PostgreSQL and PGlite alike (TEST_DATABASE_URL picks which).

t.test('an entry is kept as written, and the database refuses to change, delete or truncate it', async (t) => {
  const db = await openTestDatabase(t)
  await migrateApiSchema(db)
  const actor = { id: 'u-1', email: 'admin@example.com' }
  await recordAudit(db, { actor, action: 'program.update', target: 'program:blender', before: { version: '4.2' }, after: { version: '4.3' }, requestId: 'req-1' })
  const { rows } = await db.query<{ actor_email: string; before: unknown; after: unknown; request_id: string }>('SELECT actor_email, before, after, request_id FROM api.audit_log')
  t.same(rows, [{ actor_email: 'admin@example.com', before: { version: '4.2' }, after: { version: '4.3' }, request_id: 'req-1' }])

  for (const statement of ["UPDATE api.audit_log SET actor_email = 'someone@example.com'", 'DELETE FROM api.audit_log', 'TRUNCATE api.audit_log']) {
    await t.rejects(db.query(statement), /append-only/, statement)
  }
  t.equal((await db.query<{ count: string | number }>('SELECT count(*) AS count FROM api.audit_log')).rows[0]?.count.toString(), '1', 'the entry is still there')
})

t.test('an action must be named <thing>.<verb>', async (t) => {
  const db = await openTestDatabase(t)
  await migrateApiSchema(db)
  await t.rejects(recordAudit(db, { actor: { id: 'u', email: 'a@example.com' }, action: 'Disable user', target: 'user:u', before: null, after: null, requestId: 'r' }))
})
