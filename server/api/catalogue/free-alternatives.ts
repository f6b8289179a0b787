import type { ProgramDetail, ProgramSummary } from '../../../shared/catalogue/program-schemas.ts'
import type { Locale } from '../../../shared/locales.ts'
import type { Queryable } from '../../db/database.ts'
import { programsByIds } from './repository.ts'

// Free alternatives: the page of a paid program — its licence type is not a free one
// (license_types.is_free) — lists free programs of its primary category, most popular first;
// never itself, never a retired one. A free program has none.

export const FREE_ALTERNATIVES_MAX = 6

export async function freeAlternatives(db: Queryable, program: Pick<ProgramDetail, 'id' | 'isFree' | 'categories'>, locale: Locale): Promise<ProgramSummary[]> {
  const primary = program.categories[0]
  if (program.isFree || primary === undefined) return []
  const { rows } = await db.query<{ id: string }>(
    `SELECT p.id FROM api.programs p JOIN api.license_types lt ON lt.id = p.license_type
      WHERE lt.is_free AND p.retired_at IS NULL AND p.id <> $1
        AND EXISTS (SELECT 1 FROM api.program_categories pc WHERE pc.program_id = p.id AND pc.category_id = $2)
      ORDER BY p.popularity DESC, lower(p.name) ASC, p.id ASC LIMIT $3`,
    [program.id, primary, FREE_ALTERNATIVES_MAX],
  )
  return programsByIds(db, rows.map((row) => row.id), locale)
}
