import { randomUUID } from 'node:crypto'
import type { CatalogueFeed, Config } from '../../../config.ts'
import type { Database, Queryable } from '../../../db/database.ts'
import { isDatabaseUnreachable } from '../../../db/reachability.ts'
import type { OutageLogger } from '../../../http/outage-log.ts'
import { PROGRAM_LIMITS } from '../../../../shared/catalogue/program-editor.ts'
import { compareVersions, recordRelease } from '../releases.ts'
import { readAppStream, readHomebrew, type FeedEntry } from './entries.ts'
import { FeedProblem, openFeed, type FeedValidators } from './fetch.ts'

// The catalogue keeps itself current (decision 029). One pass reads every configured
// feed and, for each program mapped to it by `programs.external_ids` (AppStream → flathub,
// Homebrew → homebrew):
// - a version newer than the program's becomes a release at once (recordRelease, the feed its
//   source); one that goes backwards, or dated more than a day ahead, is ignored and reported;
// - a name, homepage or summary that differs becomes a pending proposed change (one per program,
//   field and feed; a newer value replaces it; a value once rejected is not proposed again);
// - nothing else changes.
// A feed that fails (unreachable, an HTTP error, too slow, too big, malformed) changes nothing; its
// problem is kept on its row and reported once — one report and one log line per run of failures,
// across instances, and one line when it works again. Everything a feed changes is written in one
// transaction under an advisory lock, so two API instances never apply at once; the instances'
// timers read each feed once per interval between them (its `checked_at`, claimed atomically).

export interface FeedSyncSummary {
  feed: string
  /** 'updated': read and applied; 'not-modified': unchanged since the last read; 'skipped': not due, or another instance was applying it; 'failed'. */
  status: 'updated' | 'not-modified' | 'skipped' | 'failed'
  releases: Array<{ programId: string; version: string }>
  ignored: Array<{ programId: string; version: string; reason: 'version-backwards' | 'future-date' }>
  proposals: Array<{ programId: string; field: ProposedField }>
  problem: string | null
}

export interface SyncSummary {
  feeds: FeedSyncSummary[]
}

export type ProposedField = 'name' | 'homepage' | 'summary'

export interface FeedSyncOptions {
  feeds: readonly CatalogueFeed[]
  maxBytes: number
  timeoutMs: number
  intervalMs: number
  /** The clock (tests move it): "today" for a Homebrew release, what "in the future" means. */
  now: () => number
  log: OutageLogger & { error(fields: Record<string, unknown>, message: string): void }
}

export function feedSyncOptions(config: Config, now: () => number, log: FeedSyncOptions['log']): FeedSyncOptions {
  return { ...config.catalogueFeeds, now, log }
}

/** A date this far ahead of the clock is the feed's clock (or a typo), not a release. */
const CLOCK_SKEW_MS = 86_400_000
const APPLY_LOCK = 'softshelf:api:catalogue-feeds'
/** Applying a large feed's changes is many statements: more than the usual 5 s. */
const APPLY_TIMEOUT_MS = 120_000

interface MappedProgram {
  id: string
  name: string
  homepage: string
  summary: string
  version: string
  external: string
}

const EXTERNAL_KEY: Record<CatalogueFeed['format'], string> = { appstream: 'flathub', homebrew: 'homebrew' }

async function mappedPrograms(db: Queryable, feed: CatalogueFeed): Promise<Map<string, MappedProgram>> {
  const key = EXTERNAL_KEY[feed.format]
  const { rows } = await db.query<MappedProgram>(
    `SELECT id, name, homepage, summary, version, external_ids ->> $1 AS external FROM api.programs WHERE external_ids ? $1 AND retired_at IS NULL`,
    [key],
  )
  return new Map(rows.map((row) => [row.external, row]))
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

function sameHomepage(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href
  } catch {
    return a === b
  }
}

/** The value a feed proposes for a field, when it is one a program may hold and differs from its own. */
function differences(entry: FeedEntry, program: MappedProgram): Array<{ field: ProposedField; current: string; proposed: string }> {
  const out: Array<{ field: ProposedField; current: string; proposed: string }> = []
  if (entry.name && entry.name.length <= PROGRAM_LIMITS.name && entry.name !== program.name) out.push({ field: 'name', current: program.name, proposed: entry.name })
  if (entry.summary && entry.summary.length <= PROGRAM_LIMITS.summary && entry.summary !== program.summary) out.push({ field: 'summary', current: program.summary, proposed: entry.summary })
  if (entry.homepage && entry.homepage.length <= PROGRAM_LIMITS.homepage && entry.homepage.startsWith('https://') && !sameHomepage(entry.homepage, program.homepage)) {
    out.push({ field: 'homepage', current: program.homepage, proposed: entry.homepage })
  }
  return out
}

export class FeedSync {
  /** The pass under way in this instance: a second caller waits for it, then runs its own. */
  private running: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly db: Database,
    private readonly options: FeedSyncOptions,
  ) {}

  get configured(): boolean {
    return this.options.feeds.length > 0
  }

  get feeds(): readonly CatalogueFeed[] {
    return this.options.feeds
  }

  get intervalMs(): number {
    return this.options.intervalMs
  }

  /**
   * One pass over every feed. `dueOnly` (the timer's passes): only the feeds no instance has read
   * within the interval. One pass at a time in this instance; applying is one at a time across them.
   */
  run({ dueOnly = false, requestId = `feeds-${randomUUID()}` }: { dueOnly?: boolean; requestId?: string } = {}): Promise<SyncSummary> {
    const pass = this.running.then(async () => {
      const feeds: FeedSyncSummary[] = []
      for (const feed of this.options.feeds) feeds.push(await this.syncFeed(feed, dueOnly, requestId))
      return { feeds }
    })
    this.running = pass.catch(() => {})
    return pass
  }

  private async syncFeed(feed: CatalogueFeed, dueOnly: boolean, requestId: string): Promise<FeedSyncSummary> {
    const summary: FeedSyncSummary = { feed: feed.name, status: 'skipped', releases: [], ignored: [], proposals: [], problem: null }
    const now = this.options.now()
    await this.db.query('INSERT INTO api.catalogue_feeds (feed) VALUES ($1) ON CONFLICT DO NOTHING', [feed.name])
    // Claimed atomically: of the instances whose timers come round together, one reads it.
    const claimed = await this.db.query<{ etag: string | null; last_modified: string | null; problem: string | null }>(
      `UPDATE api.catalogue_feeds SET checked_at = $2::timestamptz WHERE feed = $1
         AND ($3::boolean IS FALSE OR checked_at IS NULL OR checked_at <= $2::timestamptz - make_interval(secs => $4::double precision))
       RETURNING etag, last_modified, problem`,
      [feed.name, iso(now), dueOnly, this.options.intervalMs / 1000],
    )
    const state = claimed.rows[0]
    if (!state) return summary
    const validators: FeedValidators = { etag: state.etag, lastModified: state.last_modified }
    try {
      const read = await openFeed(feed, validators, this.options)
      if (read.status === 'not-modified') {
        await this.succeeded(feed, state.problem, validators)
        summary.status = 'not-modified'
        return summary
      }
      const programs = await mappedPrograms(this.db, feed)
      const entries = new Map<string, FeedEntry>()
      const reader = feed.format === 'appstream' ? readAppStream : readHomebrew
      await reader(read.chunks, (id) => programs.has(id), (entry) => entries.set(entry.id, entry))
      const applied = await this.db.transaction(
        async (tx) => {
          const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', [APPLY_LOCK])
          if (!rows[0]?.locked) return false
          // Read again under the lock: another instance may have applied a feed meanwhile.
          const current = await mappedPrograms(tx, feed)
          for (const entry of entries.values()) {
            const program = current.get(entry.id)
            if (program) await this.apply(tx, feed, entry, program, summary, now, requestId)
          }
          await tx.query(
            `UPDATE api.catalogue_feeds SET etag = $2, last_modified = $3, succeeded_at = $4::timestamptz, problem = NULL, problem_at = NULL WHERE feed = $1`,
            [feed.name, read.validators.etag, read.validators.lastModified, iso(now)],
          )
          return true
        },
        { timeoutMs: APPLY_TIMEOUT_MS },
      )
      if (!applied) return summary
      if (state.problem !== null) this.options.log.info({ event: 'feed-recovered', feed: feed.name }, 'a catalogue feed works again')
      summary.status = 'updated'
      this.options.log.info(
        { event: 'feed-synced', feed: feed.name, releases: summary.releases.length, ignored: summary.ignored.length, proposals: summary.proposals.length },
        'a catalogue feed was read',
      )
      return summary
    } catch (error) {
      if (!(error instanceof FeedProblem)) throw error
      summary.status = 'failed'
      summary.problem = error.message
      await this.failed(feed, error, now)
      return summary
    }
  }

  private async succeeded(feed: CatalogueFeed, problemBefore: string | null, validators: FeedValidators): Promise<void> {
    await this.db.query(
      `UPDATE api.catalogue_feeds SET etag = $2, last_modified = $3, succeeded_at = $4::timestamptz, problem = NULL, problem_at = NULL WHERE feed = $1`,
      [feed.name, validators.etag, validators.lastModified, iso(this.options.now())],
    )
    if (problemBefore !== null) this.options.log.info({ event: 'feed-recovered', feed: feed.name }, 'a catalogue feed works again')
  }

  /** The problem on the feed's row; a report and a log line only when it is new since the last success. */
  private async failed(feed: CatalogueFeed, problem: FeedProblem, now: number): Promise<void> {
    const { rows } = await this.db.query<{ succeeded_at: string | null }>(
      `UPDATE api.catalogue_feeds SET problem = $2, problem_at = CASE WHEN problem IS NOT DISTINCT FROM $2 THEN problem_at ELSE $3::timestamptz END
       WHERE feed = $1 RETURNING to_json(succeeded_at)#>>'{}' AS succeeded_at`,
      [feed.name, problem.message, iso(now)],
    )
    const since = rows[0]?.succeeded_at ?? 'never'
    const reported = await this.report(this.db, feed, { kind: 'feed-failed', programId: null, detail: problem.message, dedupe: `feed-failed:${feed.name}:${since}:${problem.message}`, at: now })
    if (reported) this.options.log.warn({ event: 'feed-failed', feed: feed.name, problem: problem.kind }, `a catalogue feed changed nothing: ${problem.message}`)
  }

  private async report(db: Queryable, feed: CatalogueFeed, report: { kind: string; programId: string | null; detail: string; dedupe: string; at: number }): Promise<boolean> {
    const { rows } = await db.query(
      `INSERT INTO api.feed_reports (feed, at, kind, program_id, detail, dedupe) VALUES ($1, $2::timestamptz, $3, $4, $5, $6) ON CONFLICT (dedupe) DO NOTHING RETURNING id`,
      [feed.name, iso(report.at), report.kind, report.programId, report.detail, report.dedupe],
    )
    return rows.length > 0
  }

  private async apply(tx: Queryable, feed: CatalogueFeed, entry: FeedEntry, program: MappedProgram, summary: FeedSyncSummary, now: number, requestId: string): Promise<void> {
    const version = entry.version
    if (version !== undefined && version.length <= 100) {
      const order = compareVersions(version, program.version)
      const today = iso(now).slice(0, 10)
      if (order > 0) {
        const date = entry.date ?? today
        if (Date.parse(`${date}T00:00:00Z`) > now + CLOCK_SKEW_MS) {
          summary.ignored.push({ programId: program.id, version, reason: 'future-date' })
          const detail = `${program.name} ${version} is dated ${date}, in the future: not recorded`
          if (await this.report(tx, feed, { kind: 'future-date', programId: program.id, detail, dedupe: `future-date:${feed.name}:${program.id}:${version}:${date}`, at: now })) {
            this.options.log.warn({ event: 'feed-future-date', feed: feed.name, programId: program.id, version, date }, 'a catalogue feed dates a release in the future: ignored')
          }
        } else {
          const outcome = await recordRelease(tx, { programId: program.id, version, date, source: feed.source }, { actor: { id: 'feed', email: feed.source }, requestId })
          if (outcome.outcome === 'recorded') summary.releases.push({ programId: program.id, version })
        }
      } else if (order < 0) {
        summary.ignored.push({ programId: program.id, version, reason: 'version-backwards' })
        const detail = `${program.name}: the feed's version ${version} is older than the catalogue's ${program.version}: ignored`
        if (await this.report(tx, feed, { kind: 'version-backwards', programId: program.id, detail, dedupe: `version-backwards:${feed.name}:${program.id}:${version}:${program.version}`, at: now })) {
          this.options.log.warn({ event: 'feed-version-backwards', feed: feed.name, programId: program.id, version, current: program.version }, 'a catalogue feed has an older version than the catalogue: ignored')
        }
      }
    }
    const changed = differences(entry, program)
    for (const field of ['name', 'summary', 'homepage'] as const) {
      const difference = changed.find((d) => d.field === field)
      if (!difference) {
        // The program says what the feed says now (an editor changed it): nothing is left to propose.
        await tx.query('DELETE FROM api.proposed_changes WHERE program_id = $1 AND field = $2 AND source = $3 AND decision IS NULL', [program.id, field, feed.source])
        continue
      }
      const proposed = JSON.stringify(difference.proposed)
      const rejected = await tx.query(
        `SELECT 1 FROM api.proposed_changes WHERE program_id = $1 AND field = $2 AND source = $3 AND decision = 'rejected' AND proposed_value = $4::jsonb LIMIT 1`,
        [program.id, field, feed.source, proposed],
      )
      if (rejected.rows.length > 0) continue
      const { rows } = await tx.query(
        `INSERT INTO api.proposed_changes (program_id, field, current_value, proposed_value, source, created_at)
         VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $6::timestamptz)
         ON CONFLICT (program_id, field, source) WHERE decision IS NULL
         DO UPDATE SET current_value = EXCLUDED.current_value, proposed_value = EXCLUDED.proposed_value, created_at = EXCLUDED.created_at
           WHERE proposed_changes.proposed_value <> EXCLUDED.proposed_value OR proposed_changes.current_value <> EXCLUDED.current_value
         RETURNING id`,
        [program.id, field, JSON.stringify(difference.current), proposed, feed.source, iso(now)],
      )
      if (rows.length > 0) summary.proposals.push({ programId: program.id, field })
    }
  }
}

/**
 * The timer of the API's passes: every check period (the interval, at most ten minutes) a pass
 * reads the feeds that are due, so each is read once per CATALOGUE_FEED_INTERVAL between every
 * instance, the first time within ten minutes of a start. Unref'd; stopped on close.
 */
export class FeedSchedule {
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = true
  private readonly failures: { failed(err: unknown, message: string): void; succeeded(): void }

  constructor(
    private readonly sync: FeedSync,
    private readonly intervalMs: number,
    failures: { failed(err: unknown, message: string): void; succeeded(): void },
    private readonly timers: { setTimeout: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>; clearTimeout: (timer: ReturnType<typeof setTimeout>) => void } = {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (timer) => clearTimeout(timer),
    },
  ) {
    this.failures = failures
  }

  /** How long between two looks at which feeds are due. */
  get periodMs(): number {
    return Math.min(this.intervalMs, 10 * 60_000)
  }

  start(): void {
    if (!this.sync.configured) return
    this.stopped = false
    this.arm()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) this.timers.clearTimeout(this.timer)
    this.timer = undefined
  }

  private arm(): void {
    if (this.stopped) return
    this.timer = this.timers.setTimeout(() => void this.tick(), this.periodMs)
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  /** One timer pass (the due feeds), then the next is armed. */
  async tick(): Promise<void> {
    try {
      await this.sync.run({ dueOnly: true })
      this.failures.succeeded()
    } catch (error) {
      // A database out of reach is its outage log's to tell, once; the pass runs again.
      if (!isDatabaseUnreachable(error)) this.failures.failed(error, 'a catalogue feed pass failed; it runs again at the next check')
    } finally {
      this.arm()
    }
  }
}
