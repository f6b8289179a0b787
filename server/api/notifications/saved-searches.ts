import { randomUUID } from 'node:crypto'
import { Value } from 'typebox/value'
import type { TLocalizedValidationError } from 'typebox/error'
import { SAVED_SEARCH_IGNORED_PARAMS, SAVED_SEARCHES_MAX } from '../../../shared/catalogue/living.ts'
import type { SavedSearch } from '../../../shared/catalogue/living-schemas.ts'
import { LOCALES, type Locale } from '../../../shared/locales.ts'
import type { Database, Queryable } from '../../db/database.ts'
import { schemaErrorFormatter } from '../../http/errors.ts'
import type { CatalogueIndex } from '../catalogue/search-index.ts'
import type { ProgramQuery } from '../catalogue/repository.ts'
import { ApiSavedSearchesLimit, ApiValidation } from '../errors.ts'
import { ProgramListQuery } from '../catalogue/routes.ts'

// Saved searches: an account keeps a listing's query string under a name; a program
// that newly matches it becomes a notification (type 'search'). A search is read with the very
// schema GET /api/programs reads its query with (ProgramListQuery: a value it refuses is refused
// here, naming the field; a parameter it does not know is dropped, as it drops it), and matched by
// the listing's own index (catalogue/search-index.ts), so it finds what the listing would show.
//
// Matching: when the catalogue's version moves (an editor's write, a release, a feed), every saved
// search whose `checked_version` is behind is run again, in batches, each batch in a transaction
// that locks its searches (SKIP LOCKED: several API instances share the work, none does a search
// twice); what it matches and did not before is recorded in saved_search_matches and told to the
// account once (dedupe 'search:<searchId>:<programId>'). What a search matches when it is saved is
// recorded without a notification: only what comes after is news. Retired programs match nothing.

/** The filters of a saved search, as the listing reads them. */
export type SavedSearchFilters = Omit<ProgramQuery, 'sort' | 'page' | 'pageSize'>

/** How many saved searches one transaction runs again. */
export const SAVED_SEARCH_BATCH = 100
/** How often the API looks whether the catalogue moved past its saved searches. */
export const SAVED_SEARCH_CHECK_MS = 2_000

const IGNORED = new Set<string>(SAVED_SEARCH_IGNORED_PARAMS)

/**
 * A saved search's query string read as the listing reads its own: `{ query }` (normalised: no
 * leading "?", no sort or page, parameters the listing does not know left out) and its filters; a
 * value the listing refuses throws ApiValidation naming the parameter.
 */
export function parseSavedQuery(raw: string): { query: string; filters: SavedSearchFilters } {
  const params = new URLSearchParams(raw.startsWith('?') ? raw.slice(1) : raw)
  const given = new Map<string, string>()
  const kept = new URLSearchParams()
  for (const [name, value] of params) {
    // Own properties only: "constructor" or "__proto__" is no parameter of the listing.
    if (IGNORED.has(name) || !Object.hasOwn(ProgramListQuery.properties, name)) continue
    if (given.has(name)) throw new ApiValidation(`query: ${name} is given more than once`)
    given.set(name, value)
    kept.append(name, value)
  }
  const read = Value.Clean(ProgramListQuery, Value.Convert(ProgramListQuery, Value.Default(ProgramListQuery, Object.fromEntries(given))))
  const errors = Value.Errors(ProgramListQuery, read) as TLocalizedValidationError[]
  if (errors.length > 0) throw new ApiValidation(`query: ${schemaErrorFormatter(errors as never, 'query').message}`)
  const { sort: _sort, page: _page, pageSize: _pageSize, ...filters } = read as ProgramQuery
  return { query: kept.toString(), filters }
}

interface SavedSearchRow {
  id: string
  name: string
  query: string
  created_at: Date | string
}

const toSavedSearch = (row: SavedSearchRow): SavedSearch => ({ id: row.id, name: row.name, query: row.query, createdAt: new Date(row.created_at).toISOString() })

/** The catalogue version's counter in a version string ("<seed checksum>:<counter>"): what checked_version holds. */
function counterOf(version: string | null): number {
  const counter = Number(version?.split(':').pop())
  return Number.isSafeInteger(counter) ? counter : 0
}

function localeOf(language: string): Locale {
  return (LOCALES as readonly string[]).includes(language) ? (language as Locale) : 'en'
}

/** An account's saved searches, oldest first. */
export async function listSavedSearches(db: Queryable, userId: string): Promise<SavedSearch[]> {
  const { rows } = await db.query<SavedSearchRow>('SELECT id, name, query, created_at FROM api.saved_searches WHERE user_id = $1 ORDER BY created_at, id', [userId])
  return rows.map(toSavedSearch)
}

/**
 * Saves a search for an account (at most SAVED_SEARCHES_MAX: ApiSavedSearchesLimit past it), with
 * what it matches now recorded as known: no notification for those.
 */
export async function createSavedSearch(db: Database, index: CatalogueIndex, user: { id: string; language: string }, name: string, rawQuery: string): Promise<SavedSearch> {
  const { query, filters } = parseSavedQuery(rawQuery)
  // Matched before the transaction: on the embedded database a transaction holds the only connection.
  const matcher = await index.matcher()
  const matches = matcher.matches(filters, localeOf(user.language))
  return db.transaction(async (tx) => {
    // One account's saves one after the other, so two at once cannot pass the limit together.
    await tx.query('SELECT 1 FROM api.users WHERE id = $1 FOR UPDATE', [user.id])
    const { rows: counted } = await tx.query<{ count: string | number }>('SELECT count(*) AS count FROM api.saved_searches WHERE user_id = $1', [user.id])
    if (Number(counted[0]!.count) >= SAVED_SEARCHES_MAX) throw new ApiSavedSearchesLimit(SAVED_SEARCHES_MAX)
    const { rows } = await tx.query<SavedSearchRow>(
      'INSERT INTO api.saved_searches (id, user_id, name, query, checked_version) VALUES ($1, $2, $3, $4, $5) RETURNING id, name, query, created_at',
      [randomUUID(), user.id, name, query, counterOf(matcher.version)],
    )
    const saved = rows[0]!
    await tx.query('INSERT INTO api.saved_search_matches (search_id, program_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [saved.id, matches])
    return toSavedSearch(saved)
  })
}

/** Deletes one of an account's saved searches; false when it has none with this id (another account's included). */
export async function deleteSavedSearch(db: Queryable, userId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM api.saved_searches WHERE id = $1 AND user_id = $2', [id, userId])
  return rowCount > 0
}

interface DueSearch {
  id: string
  user_id: string
  name: string
  query: string
  language: string
}

/**
 * Runs again every saved search the catalogue has moved past, in batches: a program that newly
 * matches one is recorded and becomes its account's notification (mailed_at set at once when the
 * account takes no mail). Returns how many notifications it made. Safe to run on several
 * instances at once, and again after a crash halfway: a batch is one transaction.
 */
export async function runSavedSearches(db: Database, index: CatalogueIndex, batchSize = SAVED_SEARCH_BATCH): Promise<number> {
  const { rows: versions } = await db.query<{ version: string | number }>('SELECT version FROM api.catalogue_version')
  const latest = Number(versions[0]?.version ?? 0)
  const { rows: behind } = await db.query('SELECT 1 FROM api.saved_searches WHERE checked_version < $1 LIMIT 1', [latest])
  if (behind.length === 0) return 0
  const matcher = await index.matcher()
  const version = counterOf(matcher.version)
  let notified = 0
  let after = ''
  for (;;) {
    const { rows: candidates } = await db.query<{ id: string }>('SELECT id FROM api.saved_searches WHERE checked_version < $1 AND id > $2 ORDER BY id LIMIT $3', [version, after, batchSize])
    if (candidates.length === 0) break
    after = candidates.at(-1)!.id
    notified += await db.transaction(async (tx) => {
      // Those another instance holds now are its to run; those it has run since are no longer behind.
      const { rows: due } = await tx.query<DueSearch>(
        `SELECT s.id, s.user_id, s.name, s.query, u.language FROM api.saved_searches s JOIN api.users u ON u.id = s.user_id
          WHERE s.id = ANY($1::text[]) AND s.checked_version < $2 ORDER BY s.id FOR UPDATE OF s SKIP LOCKED`,
        [candidates.map((c) => c.id), version],
      )
      let made = 0
      for (const search of due) made += await rerun(tx, search, matcher.matches, version)
      return made
    })
  }
  return notified
}

/** One saved search brought to `version`: its new matches recorded and told. Returns the notifications made. */
async function rerun(tx: Queryable, search: DueSearch, matches: Awaited<ReturnType<CatalogueIndex['matcher']>>['matches'], version: number): Promise<number> {
  let filters: SavedSearchFilters | undefined
  try {
    filters = parseSavedQuery(search.query).filters
  } catch {
    // A query the listing no longer reads (a value it stopped taking) finds nothing new; it stays saved.
  }
  const found = filters ? matches(filters, localeOf(search.language)) : []
  let made = 0
  if (found.length > 0) {
    const { rows: fresh } = await tx.query<{ program_id: string }>(
      `INSERT INTO api.saved_search_matches (search_id, program_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING program_id`,
      [search.id, found],
    )
    if (fresh.length > 0) {
      const { rowCount } = await tx.query(
        `INSERT INTO api.notifications (user_id, type, program_id, data, dedupe, mailed_at)
         SELECT $1, 'search', p.id,
                jsonb_build_object('searchId', $2::text, 'searchName', $3::text, 'query', $4::text, 'programName', p.name),
                'search:' || $2::text || ':' || p.id,
                CASE WHEN u.notify = 'off' THEN now() END
           FROM api.programs p JOIN api.users u ON u.id = $1
          WHERE p.id = ANY($5::text[]) AND p.retired_at IS NULL
          ORDER BY p.id
         ON CONFLICT (user_id, dedupe) DO NOTHING`,
        [search.user_id, search.id, search.name, search.query, fresh.map((row) => row.program_id)],
      )
      made = rowCount
    }
  }
  await tx.query('UPDATE api.saved_searches SET checked_version = GREATEST(checked_version, $2) WHERE id = $1', [search.id, version])
  return made
}
