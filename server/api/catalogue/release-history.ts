import { parsePartialDate, partialDate, type DatePrecision } from '../../../shared/catalogue/partial-dates.ts'
import { EDITOR_RELEASE_SOURCE, type WatchEvent } from '../../../shared/catalogue/living.ts'
import type { Release } from '../../../shared/catalogue/living-schemas.ts'
import type { Queryable } from '../../db/database.ts'

// A program's release history and the events its watchers hear of: the rows both the program
// editor (a version written into the program) and releases.ts (a release recorded with its own
// revision) write, so that neither imports the other's module.

/** Records what happened to a program for its watchers (fanned out later, in batches). */
export async function recordCatalogueEvent(tx: Queryable, programId: string, type: WatchEvent, data: Record<string, unknown>): Promise<void> {
  await tx.query('INSERT INTO api.catalogue_events (program_id, type, data) VALUES ($1, $2, $3::jsonb)', [programId, type, JSON.stringify(data)])
}

/**
 * A version an editor wrote into the program itself (PATCH, revert): recorded in its release
 * history, dated the program's "updated", in the change's transaction — the revision is the
 * change's own, not a second one. A version the history has already changes nothing. Watchers hear
 * of it when it is the newest release. True when it was recorded.
 */
export async function recordEditedVersion(
  tx: Queryable,
  release: { programId: string; version: string; date: string; programName: string },
  /** False for a program just added: no one watches it yet. */
  announce = true,
): Promise<boolean> {
  const date = parsePartialDate(release.date)
  if (!date) throw new Error(`recordEditedVersion: "${release.date}" is not a date`)
  const inserted = await tx.query(
    `INSERT INTO api.program_releases (program_id, version, released_on, released_precision, source)
     VALUES ($1, $2, $3::date, $4, $5) ON CONFLICT DO NOTHING RETURNING version`,
    [release.programId, release.version, date.start, date.precision, EDITOR_RELEASE_SOURCE],
  )
  if (inserted.rows.length === 0) return false
  if (!announce) return true
  const { rows } = await tx.query<{ version: string }>(
    'SELECT version FROM api.program_releases WHERE program_id = $1 ORDER BY released_on DESC, recorded_at DESC LIMIT 1',
    [release.programId],
  )
  if (rows[0]?.version === release.version) {
    await recordCatalogueEvent(tx, release.programId, 'release', { version: release.version, date: release.date, source: EDITOR_RELEASE_SOURCE, programName: release.programName })
  }
  return true
}

/** A program's releases, newest first (by date, then by when they were recorded). */
export async function listReleases(db: Queryable, programId: string): Promise<Release[]> {
  const { rows } = await db.query<{ version: string; released_on: string; released_precision: DatePrecision; notes_url: string | null; source: string }>(
    `SELECT version, released_on::text AS released_on, released_precision, notes_url, source FROM api.program_releases
     WHERE program_id = $1 ORDER BY released_on DESC, recorded_at DESC`,
    [programId],
  )
  return rows.map((row) => ({
    version: row.version,
    date: partialDate(row.released_on, row.released_precision),
    ...(row.notes_url !== null ? { notesUrl: row.notes_url } : {}),
    source: row.source,
  }))
}
