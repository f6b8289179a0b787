import type { LicenseType, Platform, PriceFilter, ProgramCategory, ApiSortOption } from '../../../shared/catalogue/catalogue.ts'
import type { ProgramDetail, ProgramSummary } from '../../../shared/catalogue/program-schemas.ts'
import type { Queryable } from '../../db/database.ts'
import type { Locale } from '../../../shared/locales.ts'
import type { ExternalIds } from '../../../shared/catalogue/living.ts'
import { normalisedExternalIds } from '../../../shared/catalogue/program-editor.ts'
import { partialDate, type DatePrecision } from '../../../shared/catalogue/partial-dates.ts'

export interface ProgramQuery {
  category?: string | undefined
  developer?: string | undefined
  publisher?: string | undefined
  licenseType?: string | undefined
  price: PriceFilter
  q?: string | undefined
  language?: string | undefined
  /** Windows, macos, linux or web. */
  platform?: string | undefined
  sort: ApiSortOption
  page: number
  pageSize: number
}

interface ProgramRow {
  id: string
  name: string
  summary: string
  text_language: Locale
  description?: string
  homepage?: string
  /** Dates are selected as text (`::text`, ISO): pg's Date is local midnight, which toISOString() turns into the day before east of UTC. */
  released_on?: string
  released_precision?: DatePrecision
  developer_id: string
  developer_name: string
  publisher_id: string
  publisher_name: string
  license_type: LicenseType
  is_free: boolean
  price_amount: string | number | null
  price_currency: string | null
  price_period: 'one-time' | 'month' | 'year' | null
  categories: ProgramCategory[]
  platforms: Platform[]
  languages: string[]
  version: string
  updated_on: string
  updated_precision: DatePrecision
  popularity: number
  retired: boolean
  external_ids?: ExternalIds
}

// Texts in the language asked for ($1), English where the program has no translation into it;
// `text_language` says which one each program's texts are in.
const SELECT_PROGRAM = `
  SELECT p.id, p.name, COALESCE(tr.summary, p.summary) AS summary, COALESCE(tr.locale, 'en') AS text_language,
    p.developer_id, d.name AS developer_name, p.publisher_id, pub.name AS publisher_name,
    p.license_type, lt.is_free, p.price_amount, p.price_currency, p.price_period, p.platforms, p.languages,
    p.version, p.updated_on::text AS updated_on, p.updated_precision, p.popularity, p.retired_at IS NOT NULL AS retired,
    ARRAY(SELECT pc.category_id FROM api.program_categories pc JOIN api.categories c ON c.id = pc.category_id
          WHERE pc.program_id = p.id ORDER BY pc.is_primary DESC, c.position) AS categories`

const FROM_PROGRAM = `
  FROM api.programs p
  JOIN api.developers d ON d.id = p.developer_id
  JOIN api.publishers pub ON pub.id = p.publisher_id
  JOIN api.license_types lt ON lt.id = p.license_type
  LEFT JOIN api.program_translations tr ON tr.program_id = p.id AND tr.locale = $1`

/** A program's price from its row: null for a free one (no amount and currency stored). */
export function priceOf(row: Pick<ProgramRow, 'price_amount' | 'price_currency' | 'price_period'>): ProgramSummary['price'] {
  return row.price_amount === null || row.price_currency === null ? null : { amount: Number(row.price_amount), currency: row.price_currency, period: row.price_period ?? 'one-time' }
}

function toSummary(row: ProgramRow): ProgramSummary {
  return {
    id: row.id,
    name: row.name,
    summary: row.summary,
    textLanguage: row.text_language,
    developer: { id: row.developer_id, name: row.developer_name },
    publisher: { id: row.publisher_id, name: row.publisher_name },
    licenseType: row.license_type,
    isFree: row.is_free,
    price: priceOf(row),
    categories: row.categories,
    platforms: row.platforms,
    languages: row.languages,
    version: row.version,
    updated: partialDate(row.updated_on, row.updated_precision),
    updatedPrecision: row.updated_precision,
    popularity: row.popularity,
    // Only where a library or a purchase still shows a program editors retired.
    ...(row.retired ? { retired: true } : {}),
  }
}

/** "More from the developer" and related programs: most popular first, name as tie-break (listings sort in search-index.ts). */
const MOST_POPULAR = 'p.popularity DESC, lower(p.name) ASC, p.id ASC'

/** Whole summaries of the given programs, in the order of `ids`, with their texts in `locale` where translated. */
export async function programsByIds(db: Queryable, ids: string[], locale: Locale = 'en'): Promise<ProgramSummary[]> {
  if (ids.length === 0) return []
  const { rows } = await db.query<ProgramRow>(`${SELECT_PROGRAM} ${FROM_PROGRAM} WHERE p.id = ANY($2::text[])`, [locale, ids])
  const byId = new Map(rows.map((row) => [row.id, toSummary(row)]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}

/**
 * A program in full, its texts (and those of the programs it lists) in `locale` where translated.
 * A retired one comes with `retired: true`: the public page answers 410 for it.
 */
/** A program as the catalogue holds it; the route adds what depends on more than the catalogue (screenshots, alternatives, whether it is for sale). */
export type StoredProgram = Omit<ProgramDetail, 'forSale' | 'screenshots' | 'alternatives'>

export async function getProgram(db: Queryable, id: string, locale: Locale = 'en'): Promise<StoredProgram | null> {
  const { rows } = await db.query<ProgramRow>(
    `${SELECT_PROGRAM}, COALESCE(tr.description, p.description) AS description, p.homepage, p.released_on::text AS released_on, p.released_precision, p.external_ids
     ${FROM_PROGRAM} WHERE p.id = $2`,
    [locale, id],
  )
  const row = rows[0]
  if (!row) return null
  const more = await db.query<ProgramRow>(
    `${SELECT_PROGRAM} ${FROM_PROGRAM} WHERE p.developer_id = $2 AND p.id <> $3 AND p.retired_at IS NULL ORDER BY ${MOST_POPULAR} LIMIT 6`,
    [locale, row.developer_id, id],
  )
  // Related: programs sharing the primary category, other developers, most popular first.
  const related = await db.query<ProgramRow>(
    `${SELECT_PROGRAM} ${FROM_PROGRAM}
     WHERE p.id <> $2 AND p.developer_id <> $3 AND p.retired_at IS NULL
       AND EXISTS (SELECT 1 FROM api.program_categories pc WHERE pc.program_id = p.id AND pc.category_id = $4)
     ORDER BY ${MOST_POPULAR} LIMIT 6`,
    [locale, id, row.developer_id, row.categories[0]],
  )
  return {
    ...toSummary(row),
    description: row.description ?? '',
    homepage: row.homepage ?? '',
    released: partialDate(row.released_on ?? '', row.released_precision ?? 'day'),
    releasedPrecision: row.released_precision ?? 'day',
    moreFromDeveloper: more.rows.map(toSummary),
    related: related.rows.map(toSummary),
    externalIds: normalisedExternalIds(row.external_ids ?? {}),
  }
}

export interface CategoryCount {
  id: ProgramCategory
  count: number
}

export async function listCategories(db: Queryable): Promise<CategoryCount[]> {
  const { rows } = await db.query<{ id: ProgramCategory; count: string | number }>(
    `SELECT c.id, count(p.id) AS count FROM api.categories c
     LEFT JOIN api.program_categories pc ON pc.category_id = c.id
     LEFT JOIN api.programs p ON p.id = pc.program_id AND p.retired_at IS NULL
     GROUP BY c.id, c.position ORDER BY c.position`,
  )
  return rows.map((row) => ({ id: row.id, count: Number(row.count) }))
}

export interface LicenseTypeCount {
  id: LicenseType
  isFree: boolean
  count: number
}

export async function listLicenseTypes(db: Queryable): Promise<LicenseTypeCount[]> {
  const { rows } = await db.query<{ id: LicenseType; is_free: boolean; count: string | number }>(
    `SELECT lt.id, lt.is_free, count(p.id) AS count FROM api.license_types lt
     LEFT JOIN api.programs p ON p.license_type = lt.id AND p.retired_at IS NULL GROUP BY lt.id, lt.is_free, lt.position ORDER BY lt.position`,
  )
  return rows.map((row) => ({ id: row.id, isFree: row.is_free, count: Number(row.count) }))
}

export interface Organisation {
  id: string
  name: string
  website: string | null
  programCount: number
}

export async function getOrganisation(db: Queryable, kind: 'developer' | 'publisher', id: string): Promise<Organisation | null> {
  const table = kind === 'developer' ? 'api.developers' : 'api.publishers'
  const column = kind === 'developer' ? 'developer_id' : 'publisher_id'
  const { rows } = await db.query<{ id: string; name: string; website: string | null; count: string | number }>(
    `SELECT o.id, o.name, o.website, (SELECT count(*) FROM api.programs p WHERE p.${column} = o.id AND p.retired_at IS NULL) AS count FROM ${table} o WHERE o.id = $1`,
    [id],
  )
  const row = rows[0]
  return row ? { id: row.id, name: row.name, website: row.website, programCount: Number(row.count) } : null
}

/** Whether editors retired the program (false for one that is not, or does not exist). */
export async function isRetired(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM api.programs WHERE id = $1 AND retired_at IS NOT NULL', [id])
  return rows.length > 0
}
