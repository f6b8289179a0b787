import type { Database } from '../server/db/database.ts'

// One timed step of the fan-out bench (bench-fanout.ts runs them; bench-notification-mail.ts adds one).

export interface FanoutStep {
  name: string
  /** What the step needs in place before the release (not timed): its schema, the state it assumes. */
  prepare?(db: Database): Promise<void>
  run(db: Database, context: { event: string; watchers: number }): Promise<void>
}
