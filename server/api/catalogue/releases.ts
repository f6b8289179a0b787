import { parsePartialDate } from '../../../shared/catalogue/partial-dates.ts'
import type { Release } from '../../../shared/catalogue/living-schemas.ts'
import type { Queryable } from '../../db/database.ts'
import type { AuditActor } from '../operator/audit-log.ts'
import { readProgram, recordRevision } from './program-editor.ts'
import { recordCatalogueEvent } from './release-history.ts'

// Releases: a program's versions, from editors and from feeds. A program's version and
// "updated" are its newest release's (by date, then by when it was recorded): recording a release
// keeps programs.version and updated_on in step, writes a revision of the program (action
// 'release') with its audit entry, bumps the catalogue version and records — when it is the newest — the 'release' event
// that the watchers are told of — all in the caller's transaction.

/**
 * Orders two version strings the way people read them: runs of digits as numbers, the rest as
 * text ("4.10" after "4.9", "2.0" after "2.0-rc1", "1.2.3" after "1.2"). Negative when `a` is older.
 */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.trim().replace(/^v(?=\d)/i, '').split(/[.\-_+ ]/).filter((p) => p !== '')
  const pa = parts(a)
  const pb = parts(b)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i]
    const y = pb[i]
    // "2.0" and "2.0.0" are the same; "2.0-rc1" is before "2.0", which has nothing after it.
    if (x === undefined) return y !== undefined && /^\d+$/.test(y) ? (Number(y) === 0 ? 0 : -1) : 1
    if (y === undefined) return /^\d+$/.test(x) ? (Number(x) === 0 ? 0 : 1) : -1
    const nx = /^\d+$/.test(x)
    const ny = /^\d+$/.test(y)
    if (nx && ny) {
      const d = Number(x) - Number(y)
      if (d !== 0) return Math.sign(d)
    } else if (nx !== ny) {
      return nx ? 1 : -1
    } else {
      const d = x.localeCompare(y, 'en', { numeric: true, sensitivity: 'base' })
      if (d !== 0) return Math.sign(d)
    }
  }
  return 0
}

export interface NewRelease {
  programId: string
  version: string
  /** "YYYY-MM-DD" (a day; the seed's own releases may say less). */
  date: string
  notesUrl?: string | undefined
  /** 'editor', or the feed's name. */
  source: string
}

export type ReleaseOutcome =
  | { outcome: 'recorded'; revision: number; current: boolean }
  | { outcome: 'known' }
  | { outcome: 'no-program' }

/**
 * Records a release inside the caller's transaction. A version the program already has changes
 * nothing ('known'). The program's version and "updated" follow when it is the newest.
 */
export async function recordRelease(tx: Queryable, release: NewRelease, context: { actor: AuditActor; requestId: string }): Promise<ReleaseOutcome> {
  const before = await readProgram(tx, release.programId, true)
  if (!before) return { outcome: 'no-program' }
  const version = release.version.trim()
  const date = parsePartialDate(release.date)
  if (!date) throw new Error(`recordRelease: "${release.date}" is not a date`)
  const inserted = await tx.query(
    `INSERT INTO api.program_releases (program_id, version, released_on, released_precision, notes_url, source)
     VALUES ($1, $2, $3::date, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING version`,
    [release.programId, version, date.start, date.precision, release.notesUrl ?? null, release.source],
  )
  if (inserted.rows.length === 0) return { outcome: 'known' }
  const { rows } = await tx.query<{ version: string; released_on: string; released_precision: string }>(
    `SELECT version, released_on::text AS released_on, released_precision FROM api.program_releases
     WHERE program_id = $1 ORDER BY released_on DESC, recorded_at DESC LIMIT 1`,
    [release.programId],
  )
  const newest = rows[0]!
  const current = newest.version === version
  const revision = before.revision + 1
  await tx.query(
    `UPDATE api.programs SET version = $2, updated_on = $3::date, updated_precision = $4, revision = $5 WHERE id = $1`,
    [release.programId, newest.version, newest.released_on, newest.released_precision, revision],
  )
  const after = (await readProgram(tx, release.programId))!
  const { revision: _r, retired: _t, retiredAt: _a, ...stored } = after
  const recorded: Release = { version, date: release.date, source: release.source, ...(release.notesUrl ? { notesUrl: release.notesUrl } : {}) }
  const changes: Record<string, { before: unknown; after: unknown }> = { releases: { before: null, after: recorded } }
  if (before.version !== after.version) changes.version = { before: before.version, after: after.version }
  if (before.updated !== after.updated) changes.updated = { before: before.updated, after: after.updated }
  await recordRevision(tx, context, stored, revision, 'release', changes)
  // Watchers hear of a new current version, not of an older one filled into the history.
  if (current) await recordCatalogueEvent(tx, release.programId, 'release', { ...recorded, programName: after.name })
  return { outcome: 'recorded', revision, current }
}
