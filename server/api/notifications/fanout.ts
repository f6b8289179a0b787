import type { Database } from '../../db/database.ts'
import { isDatabaseUnreachable } from '../../db/reachability.ts'
import { RepeatedFailureLog, type OutageLogger } from '../../http/outage-log.ts'
import { MAILED_AT_OF_NEW } from './notifications.ts'

// The fan-out: a catalogue event (a release, a price or a licence type that changed,
// written in the change's transaction) becomes one notification for every account that watches
// its program for that type. In batches of watchers, each batch one transaction that inserts its
// notifications and moves the event's cursor (`fanned_out_to`, the last user id served), so memory
// stays flat whatever the number of watchers (nothing per watcher passes through this process)
// and a restart resumes after the cursor: nothing lost, nothing twice (UNIQUE (user_id, dedupe)
// besides). The event is claimed with FOR UPDATE SKIP LOCKED, so two API instances never work
// one event at once; a batch that comes back short finishes it (done_at).

/** Watchers per batch (one transaction each). */
export const FANOUT_BATCH_SIZE = 2_000
/** How often an API instance looks for events to fan out; a write can wake it sooner. */
export const FANOUT_INTERVAL_MS = 1_000

interface EventRow {
  id: string | number
  program_id: string
  type: string
  data: unknown
  fanned_out_to: string | null
}

export type BatchResult = { event: string; notified: number; done: boolean } | null

export interface FanoutOptions {
  batchSize?: number
  intervalMs?: number
}

export class NotificationFanout {
  private readonly batchSize: number
  private readonly intervalMs: number
  private readonly failures: RepeatedFailureLog
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private stopped = false

  constructor(
    private readonly db: Database,
    private readonly log: OutageLogger,
    options: FanoutOptions = {},
  ) {
    this.batchSize = options.batchSize ?? FANOUT_BATCH_SIZE
    this.intervalMs = options.intervalMs ?? FANOUT_INTERVAL_MS
    this.failures = new RepeatedFailureLog(log, 'the notification fan-out')
  }

  /**
   * One batch of the oldest event not done that no other worker holds: its next watchers (after
   * the cursor) notified, the cursor moved, the event done when the batch was short. Null when
   * there is nothing to do.
   */
  async runBatch(): Promise<BatchResult> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<EventRow>(
        `SELECT id, program_id, type, data, fanned_out_to FROM api.catalogue_events
         WHERE done_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      )
      const event = rows[0]
      if (!event) return null
      const id = String(event.id)
      // A range on watches_of_program (program_id, user_id) from the cursor on; user ids are never
      // empty, so '' is before the first. The program's name goes with every notification (the bell and the mail name it); the
      // release event carries it already, and any other event without it gets it here.
      const { rows: batch } = await tx.query<{ taken: string | number; last: string | null }>(
        `WITH batch AS (
           SELECT w.user_id FROM api.watches w
           WHERE w.program_id = $1 AND w.user_id > COALESCE($3::text, '') AND $2 = ANY (w.events)
           ORDER BY w.user_id LIMIT $4),
         event AS (
           SELECT e.at, CASE WHEN e.data ? 'programName' THEN e.data ELSE e.data || jsonb_build_object('programName', p.name) END AS data
           FROM api.catalogue_events e JOIN api.programs p ON p.id = e.program_id WHERE e.id = $5::bigint),
         inserted AS (
           INSERT INTO api.notifications (user_id, type, program_id, at, data, dedupe, mailed_at)
           SELECT b.user_id, $2, $1, event.at, event.data, $6, ${MAILED_AT_OF_NEW}
           FROM batch b JOIN api.users u ON u.id = b.user_id CROSS JOIN event
           ON CONFLICT (user_id, dedupe) DO NOTHING)
         SELECT count(*) AS taken, max(user_id) AS last FROM batch`,
        [event.program_id, event.type, event.fanned_out_to, this.batchSize, id, `event:${id}`],
      )
      const taken = Number(batch[0]!.taken)
      const done = taken < this.batchSize
      await tx.query(
        `UPDATE api.catalogue_events SET fanned_out_to = COALESCE($2, fanned_out_to), done_at = CASE WHEN $3 THEN clock_timestamp() END WHERE id = $1::bigint`,
        [id, batch[0]!.last, done],
      )
      return { event: id, notified: taken, done }
    })
  }

  /** Batches until nothing is left that this worker may take (or it is stopped). The batches run. */
  async drain(): Promise<number> {
    let batches = 0
    while (!this.stopped && (await this.runBatch()) !== null) batches++
    return batches
  }

  /** Runs now, unless a run is under way (which then runs once more). */
  wake(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = (async () => {
      do {
        this.again = false
        try {
          await this.drain()
          this.failures.succeeded()
        } catch (err) {
          // A database out of reach is its outage log's to tell.
          if (!isDatabaseUnreachable(err)) this.failures.failed(err, 'the notification fan-out failed; it is tried again within the second')
        }
      } while (this.again && !this.stopped)
    })().finally(() => {
      this.running = undefined
    })
  }

  /** Every `intervalMs`, until stop(); the timer does not keep the process alive. */
  start(): void {
    this.stopped = false
    this.timer = setInterval(() => this.wake(), this.intervalMs)
    this.timer.unref()
    this.wake()
  }

  /** Stops the timer, and waits for a batch under way to end (after it, none begins). */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.running
  }
}
