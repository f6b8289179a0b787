import { randomBytes } from 'node:crypto'
import type { StreamingCluster } from '../../config.ts'
import type { Database, Queryable } from '../../db/database.ts'
import { STREAMABLE_PLATFORMS, defaultLayoutFor, isKeyboardLayout, type StreamingRegion } from '../../../shared/streaming.ts'
import { unentitledPaidPrograms } from '../checkout/purchases.ts'
import { StreamingAlreadyAssigned, StreamingClustersFull, StreamingNotInLibrary, StreamingNotOwned, StreamingNotStreamable, StreamingProgramNotFound, StreamingUnknownRegion } from './errors.ts'

// Which cluster streams to whom (decision 017). Every change of assignments happens in
// one transaction under one advisory lock, so the places counted are those in PostgreSQL at that
// moment, whichever API instance asks: two requests — from one instance or two — can never both
// take a cluster's last place.

export interface Assignment {
  id: string
  userId: string
  programId: string
  clusterId: string
  region: string
  keyboardLayout: string
  fallback: boolean
  createdAt: number
  expiresAt: number
}

interface AssignmentRow {
  id: string
  user_id: string
  program_id: string
  cluster_id: string
  region: string
  keyboard_layout: string
  fallback: boolean
  created_at: Date | string
  expires_at: Date | string
}

function toAssignment(row: AssignmentRow): Assignment {
  return {
    id: row.id,
    userId: row.user_id,
    programId: row.program_id,
    clusterId: row.cluster_id,
    region: row.region,
    keyboardLayout: row.keyboard_layout,
    fallback: row.fallback,
    createdAt: new Date(row.created_at).getTime(),
    expiresAt: new Date(row.expires_at).getTime(),
  }
}

export interface AssignRequest {
  userId: string
  programId: string
  /** The asked region; undefined: any. */
  region: string | undefined
  keyboardLayout: string
}

const LOCK = 'softshelf:api:streaming-assignments'

export class StreamingAssignments {
  constructor(
    private readonly db: Database,
    private readonly clusters: readonly StreamingCluster[],
    private readonly assignmentMs: number,
    private readonly now: () => number,
  ) {}

  get configured(): boolean {
    return this.clusters.length > 0
  }

  private cluster(id: string): StreamingCluster | undefined {
    return this.clusters.find((cluster) => cluster.id === id)
  }

  /** Live places taken per cluster at `now`. */
  private async load(db: Queryable, now: number): Promise<Map<string, number>> {
    const { rows } = await db.query<{ cluster_id: string; n: string | number }>(
      'SELECT cluster_id, count(*) AS n FROM api.streaming_assignments WHERE expires_at > $1 GROUP BY cluster_id',
      [new Date(now)],
    )
    return new Map(rows.map((row) => [row.cluster_id, Number(row.n)]))
  }

  /** The user's live assignment on a cluster still configured, or null. */
  async current(userId: string, db: Queryable = this.db): Promise<Assignment | null> {
    const { rows } = await db.query<AssignmentRow>('SELECT * FROM api.streaming_assignments WHERE user_id = $1 AND expires_at > $2', [userId, new Date(this.now())])
    const row = rows[0]
    return row && this.cluster(row.cluster_id) ? toAssignment(row) : null
  }

  /** The regions in configuration order, with their free places now. */
  async regions(): Promise<StreamingRegion[]> {
    const taken = await this.load(this.db, this.now())
    const regions = new Map<string, number>()
    for (const cluster of this.clusters) {
      regions.set(cluster.region, (regions.get(cluster.region) ?? 0) + Math.max(0, cluster.capacity - (taken.get(cluster.id) ?? 0)))
    }
    return [...regions].map(([id, free]) => ({ id, free }))
  }

  /**
   * Checks that the program may be streamed by this user: it exists (404), it is in the library
   * and runs on a desktop system (400), and a paid one is bought (403): adding a program
   * to the library is free, so the library alone proves nothing.
   */
  async checkProgram(userId: string, programId: string): Promise<{ name: string }> {
    const { rows } = await this.db.query<{ name: string; platforms: string[]; in_library: boolean }>(
      `SELECT p.name, p.platforms, EXISTS (SELECT 1 FROM api.user_programs l WHERE l.user_id = $1 AND l.program_id = p.id) AS in_library
       FROM api.programs p WHERE p.id = $2`,
      [userId, programId],
    )
    const program = rows[0]
    if (!program) throw new StreamingProgramNotFound(programId)
    if (!program.in_library) throw new StreamingNotInLibrary()
    if (!program.platforms.some((platform) => (STREAMABLE_PLATFORMS as readonly string[]).includes(platform))) throw new StreamingNotStreamable()
    if ((await unentitledPaidPrograms(this.db, userId, [programId], new Date(this.now()))).size > 0) throw new StreamingNotOwned(program.name)
    return { name: program.name }
  }

  /** The library's programs that run on a desktop system, by name; `entitled: false` for a paid one not bought. */
  async streamablePrograms(userId: string): Promise<Array<{ id: string; name: string; entitled: boolean }>> {
    const { rows } = await this.db.query<{ id: string; name: string }>(
      `SELECT p.id, p.name FROM api.user_programs l JOIN api.programs p ON p.id = l.program_id
       WHERE l.user_id = $1 AND p.platforms && $2::text[] ORDER BY lower(p.name), p.id`,
      [userId, [...STREAMABLE_PLATFORMS]],
    )
    const unentitled = await unentitledPaidPrograms(this.db, userId, rows.map((row) => row.id), new Date(this.now()))
    return rows.map((row) => ({ id: row.id, name: row.name, entitled: !unentitled.has(row.id) }))
  }

  /**
   * Assigns a cluster, or returns the user's live assignment for the same program as it is
   * (`created: false`). The least-loaded cluster with a free place in the asked region is chosen,
   * else one of another region (`fallback`); none free anywhere is STREAMING_CLUSTERS_FULL with
   * Retry-After until the first live assignment ends.
   */
  async assign(request: AssignRequest): Promise<{ assignment: Assignment; created: boolean }> {
    if (request.region !== undefined && !this.clusters.some((cluster) => cluster.region === request.region)) throw new StreamingUnknownRegion(request.region)
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK])
      const now = this.now()
      const live = await this.current(request.userId, tx)
      if (live) {
        if (live.programId === request.programId) return { assignment: live, created: false }
        const { rows } = await tx.query<{ name: string }>('SELECT name FROM api.programs WHERE id = $1', [live.programId])
        throw new StreamingAlreadyAssigned(rows[0]?.name ?? live.programId)
      }
      // Ended ones count for nothing; clearing them here keeps the table at the live ones.
      await tx.query('DELETE FROM api.streaming_assignments WHERE expires_at <= $1 OR user_id = $2', [new Date(now), request.userId])
      const taken = await this.load(tx, now)
      const free = (cluster: StreamingCluster) => cluster.capacity - (taken.get(cluster.id) ?? 0)
      const leastLoaded = (candidates: StreamingCluster[]) =>
        candidates
          .filter((cluster) => free(cluster) > 0)
          .sort((a, b) => (taken.get(a.id) ?? 0) / a.capacity - (taken.get(b.id) ?? 0) / b.capacity || free(b) - free(a) || a.id.localeCompare(b.id))[0]
      const inRegion = request.region === undefined ? [...this.clusters] : this.clusters.filter((cluster) => cluster.region === request.region)
      let chosen = leastLoaded(inRegion)
      const fallback = chosen === undefined && request.region !== undefined
      if (fallback) chosen = leastLoaded(this.clusters.filter((cluster) => cluster.region !== request.region))
      if (!chosen) {
        const { rows } = await tx.query<{ first: Date | string | null }>('SELECT min(expires_at) AS first FROM api.streaming_assignments WHERE expires_at > $1', [new Date(now)])
        const first = rows[0]?.first ? new Date(rows[0].first).getTime() : now + this.assignmentMs
        throw Object.assign(new StreamingClustersFull(), { retryAfter: Math.max(1, Math.ceil((first - now) / 1000)) })
      }
      // Whole seconds: the grant's exp says the same instant as expiresAt.
      const expiresAt = Math.floor((now + this.assignmentMs) / 1000) * 1000
      const assignment: Assignment = {
        id: randomBytes(16).toString('base64url'),
        userId: request.userId,
        programId: request.programId,
        clusterId: chosen.id,
        region: chosen.region,
        keyboardLayout: request.keyboardLayout,
        fallback,
        createdAt: now,
        expiresAt,
      }
      await tx.query(
        `INSERT INTO api.streaming_assignments (user_id, id, program_id, cluster_id, region, keyboard_layout, fallback, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [assignment.userId, assignment.id, assignment.programId, assignment.clusterId, assignment.region, assignment.keyboardLayout, fallback, new Date(now), new Date(expiresAt)],
      )
      // The layout is remembered on the account: the page preselects it next time.
      await tx.query('UPDATE api.users SET keyboard_layout = $2 WHERE id = $1', [request.userId, request.keyboardLayout])
      return { assignment, created: true }
    })
  }

  /** Ends the user's assignment; true when there was a live one. */
  async release(userId: string): Promise<boolean> {
    const { rows } = await this.db.query<{ expires_at: Date | string }>('DELETE FROM api.streaming_assignments WHERE user_id = $1 RETURNING expires_at', [userId])
    return rows.some((row) => new Date(row.expires_at).getTime() > this.now())
  }

  /** The account's remembered layout, else the one of its language. */
  async keyboardLayout(userId: string, language: string): Promise<string> {
    const { rows } = await this.db.query<{ keyboard_layout: string | null }>('SELECT keyboard_layout FROM api.users WHERE id = $1', [userId])
    const remembered = rows[0]?.keyboard_layout
    return isKeyboardLayout(remembered) ? remembered : defaultLayoutFor(language)
  }

  clusterUrl(id: string): string {
    return this.cluster(id)!.url
  }
}
