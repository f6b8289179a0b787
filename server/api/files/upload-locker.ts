import { randomBytes } from 'node:crypto'
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/server'
import type { Database } from '../../db/database.ts'

// tus's lock of an upload, shared by every API instance through PostgreSQL (decision 014): a
// lease row (api.file_upload_locks) with its holder and expiry. The holder renews it while its
// request runs and reads, each time, whether a newer request for the same upload asked for it —
// a client that reconnected while its old connection still hangs half-open — and then gives up
// at once (tus's requestRelease: the old PATCH stops, keeping the bytes that arrived). Every
// step is one short statement: no connection is held for the length of a PATCH, and an instance
// that dies holding a lease loses it when it expires. Waits are bounded: past `acquireTimeoutMs`
// the request answers 423 and the client tries again.

export interface LockTimings {
  /** How long a lease lasts without renewal (an instance that died gives its uploads up after this). */
  leaseMs: number
  /** How often the holder renews its lease and looks for a request to release it. */
  heartbeatMs: number
  /** How long a request waits for an upload's lock before it gives up. */
  acquireTimeoutMs: number
  /** First pause between attempts to take a held lock (doubling up to heartbeatMs). */
  pollMs: number
}

export const DEFAULT_LOCK_TIMINGS: LockTimings = { leaseMs: 15_000, heartbeatMs: 500, acquireTimeoutMs: 20_000, pollMs: 50 }

/** Resolves once this process's work on the upload has ended (its write has recorded what it stored). */
export type Settle = (uploadId: string) => Promise<void>

export class PostgresLocker implements Locker {
  constructor(
    private readonly db: Database,
    private readonly timings: LockTimings = DEFAULT_LOCK_TIMINGS,
    private readonly settle: Settle = async () => {},
  ) {}

  newLock(id: string): Lock {
    return new PostgresLock(this.db, id, this.timings, this.settle)
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

class PostgresLock implements Lock {
  private readonly owner = randomBytes(12).toString('base64url')
  private heartbeat: NodeJS.Timeout | undefined
  private held = false

  constructor(
    private readonly db: Database,
    private readonly uploadId: string,
    private readonly timings: LockTimings,
    private readonly settle: Settle,
  ) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const deadline = Date.now() + this.timings.acquireTimeoutMs
    let wait = this.timings.pollMs
    for (;;) {
      if (await this.take()) break
      // Held by another request: ask it to let go (it reads this at its next renewal).
      await this.db.query('UPDATE api.file_upload_locks SET release_requested = true WHERE upload_id = $1 AND owner <> $2', [this.uploadId, this.owner])
      const left = deadline - Date.now()
      if (left <= 0 || signal.aborted) throw ERRORS.ERR_LOCK_TIMEOUT
      await pause(Math.min(wait, left), signal)
      wait = Math.min(wait * 2, this.timings.heartbeatMs)
    }
    this.held = true
    this.renewLater(requestRelease)
  }

  /** Takes the lock when nobody holds it or the holder's lease has run out. */
  private async take(): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO api.file_upload_locks AS l (upload_id, owner, expires_at, release_requested)
       VALUES ($1, $2, now() + $3::integer * interval '1 millisecond', false)
       ON CONFLICT (upload_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, release_requested = false
       WHERE l.expires_at <= now()
       RETURNING owner`,
      [this.uploadId, this.owner, this.timings.leaseMs],
    )
    return rows.length > 0
  }

  private renewLater(requestRelease: RequestRelease): void {
    this.heartbeat = setTimeout(() => {
      void this.renew(requestRelease)
    }, this.timings.heartbeatMs)
    this.heartbeat.unref()
  }

  private async renew(requestRelease: RequestRelease): Promise<void> {
    let release = false
    try {
      const { rows } = await this.db.query<{ release_requested: boolean }>(
        `UPDATE api.file_upload_locks SET expires_at = now() + $3::integer * interval '1 millisecond'
         WHERE upload_id = $1 AND owner = $2 RETURNING release_requested`,
        [this.uploadId, this.owner, this.timings.leaseMs],
      )
      // Asked for, or lost (the lease ran out while this instance was stalled): stop writing.
      release = !rows[0] || rows[0].release_requested
    } catch {
      // The database is briefly unreachable: the lease may still hold; try again at the next beat.
    }
    if (!this.held) return
    if (release) {
      await requestRelease()
      return
    }
    this.renewLater(requestRelease)
  }

  async unlock(): Promise<void> {
    // Still renewed while the write ends, so nobody takes the lock in between.
    await this.settle(this.uploadId)
    this.held = false
    clearTimeout(this.heartbeat)
    await this.db.query('DELETE FROM api.file_upload_locks WHERE upload_id = $1 AND owner = $2', [this.uploadId, this.owner])
  }
}
