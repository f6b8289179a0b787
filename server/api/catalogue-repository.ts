import type {
  LicenseType,
  Platform,
  PriceFilter,
  ProgramCategory,
  ProgramDetail,
  ProgramPage,
  ProgramSummary,
  ApiSortOption,
} from '../../shared/catalogue.ts'
import type { Queryable } from '../db/database.ts'

export interface ProgramQuery {
  category?: string | undefined
  developer?: string | undefined
  publisher?: string | undefined
  licenseType?: string | undefined
  price: PriceFilter
  q?: string | undefined
  language?: string | undefined
  sort: ApiSortOption
  page: number
  pageSize: number
}

interface ProgramRow {
  id: string
  name: string
  summary: string
  description?: string
  homepage?: string
  released_on?: string | Date
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
  updated_on: string | Date
  popularity: number
}

/** Trigram word similarity above which a query counts as a (typo-tolerant) match. */
const FUZZY_THRESHOLD = 0.45

const SELECT_PROGRAM = `
  SELECT p.id, p.name, p.summary, p.developer_id, d.name AS developer_name, p.publisher_id, pub.name AS publisher_name,
    p.license_type, lt.is_free, p.price_amount, p.price_currency, p.price_period, p.platforms, p.languages,
    p.version, p.updated_on, p.popularity,
    ARRAY(SELECT pc.category_id FROM api.program_categories pc JOIN api.categories c ON c.id = pc.category_id
          WHERE pc.program_id = p.id ORDER BY pc.is_primary DESC, c.position) AS categories`

const FROM_PROGRAM = `
  FROM api.programs p
  JOIN api.developers d ON d.id = p.developer_id
  JOIN api.publishers pub ON pub.id = p.publisher_id
  JOIN api.license_types lt ON lt.id = p.license_type`

function isoDate(value: string | Date): string {
  return typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10)
}

function toSummary(row: ProgramRow): ProgramSummary {
  return {
    id: row.id,
    name: row.name,
    summary: row.summary,
    developer: { id: row.developer_id, name: row.developer_name },
    publisher: { id: row.publisher_id, name: row.publisher_name },
    licenseType: row.license_type,
    isFree: row.is_free,
    price:
      row.price_amount === null || row.price_currency === null
        ? null
        : { amount: Number(row.price_amount), currency: row.price_currency, period: row.price_period ?? 'one-time' },
    categories: row.categories,
    platforms: row.platforms,
    languages: row.languages,
    version: row.version,
    updated: isoDate(row.updated_on),
    popularity: row.popularity,
  }
}

const ORDER: Record<ApiSortOption, string> = {
  namePopular: 'p.popularity DESC, lower(p.name) ASC, p.id ASC',
  nameAsc: 'lower(p.name) ASC, p.id ASC',
  nameDesc: 'lower(p.name) DESC, p.id DESC',
  updated: 'p.updated_on DESC, p.popularity DESC, lower(p.name) ASC, p.id ASC',
}

/** `%` and `_` in a visitor's query are literal characters, not LIKE wildcards. */
function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`)
}

export async function listPrograms(db: Queryable, query: ProgramQuery): Promise<ProgramPage> {
  const where: string[] = []
  const params: unknown[] = []
  const param = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  if (query.category && query.category !== 'all') {
    where.push(`EXISTS (SELECT 1 FROM api.program_categories pc WHERE pc.program_id = p.id AND pc.category_id = ${param(query.category)})`)
  }
  if (query.developer) where.push(`p.developer_id = ${param(query.developer)}`)
  if (query.publisher) where.push(`p.publisher_id = ${param(query.publisher)}`)
  if (query.licenseType) where.push(`p.license_type = ${param(query.licenseType)}`)
  if (query.price === 'free') where.push('lt.is_free')
  if (query.price === 'paid') where.push('NOT lt.is_free')
  if (query.language) where.push(`${param(query.language)} = ANY (p.languages)`)
  const q = query.q?.trim().toLowerCase().replace(/\s+/g, ' ')
  let like = ''
  if (q) {
    const text = param(q)
    like = param(`%${likeLiteral(q)}%`)
    where.push(`(p.search_text LIKE ${like} OR word_similarity(${text}, p.search_text) >= ${FUZZY_THRESHOLD})`)
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
  const countResult = await db.query<{ total: number | string }>(`SELECT count(*) AS total ${FROM_PROGRAM} ${whereSql}`, [...params])
  const total = Number(countResult.rows[0]?.total ?? 0)
  // With a query: name prefix matches first, then name matches, then other text, then typo
  // matches; the chosen sort orders within each group.
  let rank = ''
  if (q) {
    const prefix = param(`${likeLiteral(q)}%`)
    rank = `CASE WHEN lower(p.name) LIKE ${prefix} THEN 0 WHEN lower(p.name) LIKE ${like} THEN 1 WHEN p.search_text LIKE ${like} THEN 2 ELSE 3 END, `
  }
  const limit = param(query.pageSize)
  const offset = param((query.page - 1) * query.pageSize)
  const { rows } = await db.query<ProgramRow>(
    `${SELECT_PROGRAM} ${FROM_PROGRAM} ${whereSql} ORDER BY ${rank}${ORDER[query.sort]} LIMIT ${limit} OFFSET ${offset}`,
    params,
  )
  return { items: rows.map(toSummary), total, page: query.page, pageSize: query.pageSize }
}

export async function getProgram(db: Queryable, id: string): Promise<ProgramDetail | null> {
  const { rows } = await db.query<ProgramRow>(
    `${SELECT_PROGRAM}, p.description, p.homepage, p.released_on ${FROM_PROGRAM} WHERE p.id = $1`,
    [id],
  )
  const row = rows[0]
  if (!row) return null
  const more = await db.query<ProgramRow>(
    `${SELECT_PROGRAM} ${FROM_PROGRAM} WHERE p.developer_id = $1 AND p.id <> $2 ORDER BY ${ORDER.namePopular} LIMIT 6`,
    [row.developer_id, id],
  )
  // Related: programs sharing the primary category, other developers, most popular first.
  const related = await db.query<ProgramRow>(
    `${SELECT_PROGRAM} ${FROM_PROGRAM}
     WHERE p.id <> $1 AND p.developer_id <> $2
       AND EXISTS (SELECT 1 FROM api.program_categories pc WHERE pc.program_id = p.id AND pc.category_id = $3)
     ORDER BY ${ORDER.namePopular} LIMIT 6`,
    [id, row.developer_id, row.categories[0]],
  )
  return {
    ...toSummary(row),
    description: row.description ?? '',
    homepage: row.homepage ?? '',
    released: isoDate(row.released_on ?? ''),
    moreFromDeveloper: more.rows.map(toSummary),
    related: related.rows.map(toSummary),
  }
}

export interface CategoryCount {
  id: ProgramCategory
  count: number
}

export async function listCategories(db: Queryable): Promise<CategoryCount[]> {
  const { rows } = await db.query<{ id: ProgramCategory; count: string | number }>(
    `SELECT c.id, count(pc.program_id) AS count FROM api.categories c
     LEFT JOIN api.program_categories pc ON pc.category_id = c.id GROUP BY c.id, c.position ORDER BY c.position`,
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
     LEFT JOIN api.programs p ON p.license_type = lt.id GROUP BY lt.id, lt.is_free, lt.position ORDER BY lt.position`,
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
    `SELECT o.id, o.name, o.website, (SELECT count(*) FROM api.programs p WHERE p.${column} = o.id) AS count FROM ${table} o WHERE o.id = $1`,
    [id],
  )
  const row = rows[0]
  return row ? { id: row.id, name: row.name, website: row.website, programCount: Number(row.count) } : null
}
