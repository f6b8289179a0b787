import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { Database, Queryable } from '../../db/database.ts'
import { ApiCatalogueNotFound, ApiProposalDecided, ApiProposalNotFound } from '../errors.ts'
import type { FeedSync } from '../catalogue/feeds/sync.ts'
import { readProgram, updateProgramIn } from '../catalogue/program-editor.ts'
import { StringEnum } from '../../../shared/web/string-enum.ts'
import { recordAudit, type AuditActor } from './audit-log.ts'
import type { OperatorRoutesOptions } from './options.ts'

// Feeds and proposed changes (decision 029): GET /api/operator/feeds (each configured
// feed's state and its recent reports), POST /api/operator/feeds/sync (one pass now),
// GET /api/operator/proposed-changes (what the feeds propose, pending), and an editor's decision:
// POST /api/operator/proposed-changes/{id}/accept (applied as the editor's change of the program,
// on its current revision, in the transaction that records the decision) or /reject.

/** How many of a feed's newest reports the console shows. */
export const FEED_REPORTS_SHOWN = 20
/** How many pending proposals one answer lists (the oldest wait for the next page's turn). */
export const PROPOSALS_SHOWN = 200

const Report = Type.Object({
  id: Type.String(),
  at: Type.String(),
  kind: Type.String({ description: 'feed-failed, version-backwards, future-date.' }),
  programId: Type.Union([Type.String(), Type.Null()]),
  detail: Type.String(),
})
const Feed = Type.Object({
  name: Type.String({ description: '`<format>:<url>` as configured in CATALOGUE_FEEDS.' }),
  format: StringEnum(['appstream', 'homebrew'] as const),
  source: Type.String({ description: 'What its releases are recorded as coming from: `appstream:<host>`, `homebrew:<host>`, `<format>:file`.' }),
  checkedAt: Type.Union([Type.String(), Type.Null()], { description: 'When it was last read (or tried).' }),
  succeededAt: Type.Union([Type.String(), Type.Null()]),
  problem: Type.Union([Type.String(), Type.Null()], { description: 'Why the last read changed nothing; null after a success.' }),
  problemAt: Type.Union([Type.String(), Type.Null()]),
  reports: Type.Array(Report, { description: `The newest ${FEED_REPORTS_SHOWN}, newest first.` }),
})
const FeedSummary = Type.Object({
  feed: Type.String(),
  status: StringEnum(['updated', 'not-modified', 'skipped', 'failed'] as const),
  releases: Type.Array(Type.Object({ programId: Type.String(), version: Type.String() })),
  ignored: Type.Array(Type.Object({ programId: Type.String(), version: Type.String(), reason: StringEnum(['version-backwards', 'future-date'] as const) })),
  proposals: Type.Array(Type.Object({ programId: Type.String(), field: StringEnum(['name', 'homepage', 'summary'] as const) })),
  problem: Type.Union([Type.String(), Type.Null()]),
})
export const SyncSummarySchema = Type.Object({ feeds: Type.Array(FeedSummary) })
const Proposal = Type.Object({
  id: Type.String(),
  programId: Type.String(),
  programName: Type.String(),
  field: StringEnum(['name', 'homepage', 'summary', 'description'] as const),
  current: Type.String({ description: "The program's value now." }),
  proposed: Type.String(),
  source: Type.String({ description: 'The feed that proposes it, as its releases name it.' }),
  createdAt: Type.String(),
})
const Params = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$', description: 'The proposed change.' }) })

interface ProposalRow {
  id: string
  program_id: string
  program_name: string
  field: 'name' | 'homepage' | 'summary' | 'description'
  current: string
  proposed_value: unknown
  source: string
  created_at: string
  decision: 'accepted' | 'rejected' | null
}

function iso(value: string | null): string | null {
  return value === null ? null : new Date(value).toISOString()
}

/** The configured feeds with what was last read of them, and their newest reports. */
export async function feedStates(db: Queryable, sync: FeedSync) {
  const names = sync.feeds.map((feed) => feed.name)
  const { rows } = await db.query<{ feed: string; checked_at: string | null; succeeded_at: string | null; problem: string | null; problem_at: string | null }>(
    `SELECT feed, to_json(checked_at)#>>'{}' AS checked_at, to_json(succeeded_at)#>>'{}' AS succeeded_at, problem, to_json(problem_at)#>>'{}' AS problem_at
     FROM api.catalogue_feeds WHERE feed = ANY($1::text[])`,
    [names],
  )
  const reports = await db.query<{ id: string; feed: string; at: string; kind: string; program_id: string | null; detail: string }>(
    `SELECT id::text AS id, feed, to_json(at)#>>'{}' AS at, kind, program_id, detail FROM (
       SELECT r.*, row_number() OVER (PARTITION BY feed ORDER BY id DESC) AS n FROM api.feed_reports r WHERE feed = ANY($1::text[])
     ) ranked WHERE n <= $2 ORDER BY id DESC`,
    [names, FEED_REPORTS_SHOWN],
  )
  const byName = new Map(rows.map((row) => [row.feed, row]))
  return sync.feeds.map((feed) => {
    const row = byName.get(feed.name)
    return {
      name: feed.name,
      format: feed.format,
      source: feed.source,
      checkedAt: iso(row?.checked_at ?? null),
      succeededAt: iso(row?.succeeded_at ?? null),
      problem: row?.problem ?? null,
      problemAt: iso(row?.problem_at ?? null),
      reports: reports.rows.filter((r) => r.feed === feed.name).map((r) => ({ id: r.id, at: new Date(r.at).toISOString(), kind: r.kind, programId: r.program_id, detail: r.detail })),
    }
  })
}

const SELECT_PROPOSALS = `
  SELECT c.id::text AS id, c.program_id, p.name AS program_name, c.field,
    CASE c.field WHEN 'name' THEN p.name WHEN 'homepage' THEN p.homepage WHEN 'summary' THEN p.summary ELSE p.description END AS current,
    c.proposed_value, c.source, to_json(c.created_at)#>>'{}' AS created_at, c.decision
  FROM api.proposed_changes c JOIN api.programs p ON p.id = c.program_id`

function proposalOf(row: ProposalRow) {
  return {
    id: row.id,
    programId: row.program_id,
    programName: row.program_name,
    field: row.field,
    current: row.current,
    proposed: typeof row.proposed_value === 'string' ? row.proposed_value : JSON.stringify(row.proposed_value),
    source: row.source,
    createdAt: new Date(row.created_at).toISOString(),
  }
}

async function lockedProposal(tx: Queryable, id: string): Promise<ProposalRow> {
  const locked = await tx.query('SELECT 1 FROM api.proposed_changes WHERE id = $1::bigint FOR UPDATE', [id])
  if (locked.rows.length === 0) throw new ApiProposalNotFound()
  const { rows } = await tx.query<ProposalRow>(`${SELECT_PROPOSALS} WHERE c.id = $1::bigint`, [id])
  const row = rows[0]!
  if (row.decision !== null) throw new ApiProposalDecided(row.decision)
  return row
}

async function decide(tx: Queryable, id: string, decision: 'accepted' | 'rejected', actor: AuditActor, now: number): Promise<void> {
  await tx.query('UPDATE api.proposed_changes SET decision = $2, decided_at = $3::timestamptz, decided_by_id = $4, decided_by_email = $5 WHERE id = $1::bigint', [
    id,
    decision,
    new Date(now).toISOString(),
    actor.id,
    actor.email,
  ])
}

/** Applies a proposed change as the editor's own change of the program, on its current revision. */
export async function acceptProposal(db: Database, id: string, context: { actor: AuditActor; requestId: string }, now: number): Promise<{ revision: number }> {
  return db.transaction(async (tx) => {
    const proposal = await lockedProposal(tx, id)
    const program = await readProgram(tx, proposal.program_id, true)
    if (!program) throw new ApiCatalogueNotFound('program', proposal.program_id)
    const value = proposal.proposed_value as string
    const en = program.texts.en
    const fields =
      proposal.field === 'summary' ? { texts: { en: { ...en, summary: value } } } : proposal.field === 'description' ? { texts: { en: { ...en, description: value } } } : { [proposal.field]: value }
    const { revision } = await updateProgramIn(tx, program.id, program.revision, fields, context)
    await decide(tx, id, 'accepted', context.actor, now)
    return { revision }
  })
}

/** Turns a proposal down: not proposed again with the same value by the same feed. Audited. */
export async function rejectProposal(db: Database, id: string, context: { actor: AuditActor; requestId: string }, now: number): Promise<void> {
  await db.transaction(async (tx) => {
    const proposal = await lockedProposal(tx, id)
    await decide(tx, id, 'rejected', context.actor, now)
    await recordAudit(tx, {
      actor: context.actor,
      action: 'proposal.reject',
      target: `program:${proposal.program_id}`,
      before: null,
      after: { proposal: proposal.id, field: proposal.field, proposed: proposal.proposed_value, source: proposal.source },
      requestId: context.requestId,
    })
  })
}

async function feedRoutes(plugin: FastifyInstance, opts: OperatorRoutesOptions & { feeds: FeedSync }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db
  const context = (request: FastifyRequest) => ({ actor: request.operator!, requestId: request.id })

  app.get(
    '/api/operator/feeds',
    { schema: { description: 'The configured catalogue feeds with what was last read of each, and their newest reports.', response: { 200: Type.Object({ feeds: Type.Array(Feed), intervalSeconds: Type.Integer() }) } } },
    async () => ({ feeds: await feedStates(db, opts.feeds), intervalSeconds: Math.round(opts.feeds.intervalMs / 1000) }),
  )

  app.post('/api/operator/feeds/sync', { schema: { description: 'Reads every catalogue feed now, whatever the interval, and answers what the pass did.', response: { 200: SyncSummarySchema } } }, async (request) => {
    const summary = await opts.feeds.run({ requestId: request.id })
    request.log.info({ event: 'feeds-synced', feeds: summary.feeds.map((f) => ({ feed: f.feed, status: f.status })) }, 'an operator ran the catalogue feeds')
    return summary
  })

  app.get('/api/operator/proposed-changes', { schema: { description: 'The changes the feeds propose that no editor has decided yet, newest first.', response: { 200: Type.Object({ items: Type.Array(Proposal), total: Type.Integer() }) } } }, async () => {
    const { rows } = await db.query<ProposalRow>(`${SELECT_PROPOSALS} WHERE c.decision IS NULL ORDER BY c.id DESC LIMIT ${PROPOSALS_SHOWN}`)
    const count = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM api.proposed_changes WHERE decision IS NULL')
    return { items: rows.map(proposalOf), total: count.rows[0]!.total }
  })

  app.post('/api/operator/proposed-changes/:id/accept', { schema: { description: "Applies a proposed change as the editor's own change of the program, on its current revision.", params: Params, response: { 200: Type.Object({ revision: Type.Integer() }) } } }, async (request) => {
    const accepted = await acceptProposal(db, request.params.id, context(request), opts.now())
    request.log.info({ event: 'proposal-accepted', proposal: request.params.id, revision: accepted.revision }, 'an editor accepted a proposed change')
    return accepted
  })

  app.post('/api/operator/proposed-changes/:id/reject', { schema: { description: 'Turns a proposed change down: the same value from the same feed is not proposed again.', params: Params, response: { 200: Type.Object({ decision: Type.Literal('rejected') }) } } }, async (request) => {
    await rejectProposal(db, request.params.id, context(request), opts.now())
    request.log.info({ event: 'proposal-rejected', proposal: request.params.id }, 'an editor rejected a proposed change')
    return { decision: 'rejected' as const }
  })
}

export default fp(feedRoutes, { name: 'operator-feeds-routes', encapsulate: true, decorators: { fastify: ['db'] } })
