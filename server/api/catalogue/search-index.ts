import type { ApiSortOption, UserLibraryApiSortOption } from '../../../shared/catalogue/catalogue.ts'
import type { ProgramPage } from '../../../shared/catalogue/program-schemas.ts'
import type { Locale } from '../../../shared/locales.ts'
import type { Database, Queryable } from '../../db/database.ts'
import { programsByIds, type ProgramQuery } from './repository.ts'

// The program listing's filters, search and sorts, answered from memory (search must be
// fast on a 10,000-program catalogue). What a listing needs of every program — ids, search text,
// filter fields, sort keys — is small and changes only when the seed does, so each API instance
// keeps it in memory, presorted for every sort, and reads from the database only the rows of the
// page it returns. The index reloads when the catalogue version changes — the seed's checksum and
// the counter every editor's write raises (a change is public within 2 s on every
// instance) — checked at most every CATALOGUE_VERSION_CHECK_MS. Typo tolerance uses trigrams as pg_trgm does: when nothing
// matches literally, programs whose search text holds at least FUZZY_THRESHOLD of the query's
// trigrams match, the closest first. A query also finds programs by the words of their summary in
// the visitor's language, where it is translated; texts and queries are compared without
// letter case or accents ("uprava" finds "úprava").

interface Entry {
  id: string
  /** For sorting by name. */
  nameLower: string
  /** The name, lower case without accents: what name matches rank by. */
  nameFolded: string
  /** Name, English summary, developer and publisher, folded like the query. */
  searchText: string
  /** The summary in each language it is translated into, folded like the query. */
  translated: Map<Locale, string>
  developerId: string
  publisherId: string
  licenseType: string
  isFree: boolean
  categories: Set<string>
  languages: Set<string>
  /** The platform filter. */
  platforms: Set<string>
  popularity: number
  updatedOn: string
  /** Left out of the public listing, kept in the libraries that hold it. */
  retired: boolean
}

interface State {
  version: string | null
  orders: Record<ApiSortOption, Entry[]>
  byId: Map<string, Entry>
  /** trigram → the entries whose search text has it */
  trigrams: Map<string, Entry[]>
  /** The same for the translated summaries of one language, made when a typo is first looked for in it. */
  translatedTrigrams: Map<Locale, Map<string, Entry[]>>
}

/** Typo tolerance starts at this many characters: shorter queries match too much by trigrams. */
const FUZZY_MIN_LENGTH = 4

/** Lower case without accents: "Systèmes" → "systemes", so a visitor who types without them still finds. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase()
}

/** The search text of a visitor's query: folded, single spaces; empty means no query. */
function normaliseQuery(q: string | undefined): string {
  return fold(q?.trim() ?? '').replace(/\s+/g, ' ')
}

/** Share of the query's trigrams a program's text must hold to match a typo (pg_trgm's default for word similarity is 0.6; 0.45 finds "blendr"). */
const FUZZY_THRESHOLD = 0.45

/** pg_trgm's trigrams: each alphanumeric word padded with two spaces before and one after. */
export function trigramsOf(text: string): Set<string> {
  const out = new Set<string>()
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '') continue
    const padded = `  ${word} `
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3))
  }
  return out
}

/** trigram → the entries whose text (as `textOf` gives it; none: left out) has it. */
function trigramIndex(entries: Entry[], textOf: (entry: Entry) => string | undefined): Map<string, Entry[]> {
  const index = new Map<string, Entry[]>()
  for (const entry of entries) {
    const text = textOf(entry)
    if (text === undefined) continue
    for (const trigram of trigramsOf(text)) {
      const list = index.get(trigram)
      if (list) list.push(entry)
      else index.set(trigram, [entry])
    }
  }
  return index
}

const byName = (a: Entry, b: Entry) => (a.nameLower < b.nameLower ? -1 : a.nameLower > b.nameLower ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const COMPARE: Record<ApiSortOption, (a: Entry, b: Entry) => number> = {
  namePopular: (a, b) => b.popularity - a.popularity || byName(a, b),
  nameAsc: byName,
  nameDesc: (a, b) => byName(b, a),
  updated: (a, b) => (a.updatedOn < b.updatedOn ? 1 : a.updatedOn > b.updatedOn ? -1 : 0) || b.popularity - a.popularity || byName(a, b),
}

/**
 * How old the index may be: a change of the catalogue is listed within this, plus the BFF's own
 * wait for the version (upstream-api.ts), well within the 2 s an editor may wait to see a change listed.
 */
export const CATALOGUE_VERSION_CHECK_MS = 500

/** The catalogue's version: the seed applied and the count of editors' writes since the table was made. */
export async function catalogueVersion(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    `SELECT coalesce((SELECT checksum FROM api.seed_state), '') || ':' || coalesce((SELECT version::text FROM api.catalogue_version), '0') AS version`,
  )
  return rows[0]!.version
}

export class CatalogueIndex {
  private state: Promise<State> | null = null
  private checkedAt = 0

  constructor(
    private readonly db: Database,
    private readonly versionCheckMs = CATALOGUE_VERSION_CHECK_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private version(): Promise<string | null> {
    return catalogueVersion(this.db)
  }

  /** The version of the catalogue the index holds now (loading it when there is none yet or it is stale). */
  async currentVersion(): Promise<string | null> {
    return (await this.current()).version
  }

  private async load(): Promise<State> {
    const version = await this.version()
    const { rows } = await this.db.query<{
      id: string
      name: string
      search_text: string
      developer_id: string
      publisher_id: string
      license_type: string
      is_free: boolean
      languages: string[]
      platforms: string[]
      popularity: number
      updated_on: string
      categories: string[]
      retired: boolean
    }>(
      `SELECT p.id, p.name, p.search_text, p.developer_id, p.publisher_id, p.license_type, lt.is_free, p.languages, p.platforms, p.popularity,
              p.updated_on::text AS updated_on, p.retired_at IS NOT NULL AS retired, ARRAY(SELECT pc.category_id FROM api.program_categories pc WHERE pc.program_id = p.id) AS categories
         FROM api.programs p JOIN api.license_types lt ON lt.id = p.license_type`,
    )
    const translations = await this.db.query<{ program_id: string; locale: Locale; summary: string }>(
      'SELECT program_id, locale, summary FROM api.program_translations',
    )
    const translated = new Map<string, Map<Locale, string>>()
    for (const row of translations.rows) {
      const texts = translated.get(row.program_id) ?? new Map<Locale, string>()
      texts.set(row.locale, fold(row.summary))
      translated.set(row.program_id, texts)
    }
    const entries: Entry[] = rows.map((row) => ({
      id: row.id,
      nameLower: row.name.toLowerCase(),
      nameFolded: fold(row.name),
      searchText: fold(row.search_text),
      translated: translated.get(row.id) ?? new Map(),
      developerId: row.developer_id,
      publisherId: row.publisher_id,
      licenseType: row.license_type,
      isFree: row.is_free,
      categories: new Set(row.categories),
      languages: new Set(row.languages),
      platforms: new Set(row.platforms),
      popularity: row.popularity,
      updatedOn: row.updated_on.slice(0, 10),
      retired: row.retired,
    }))
    const orders = Object.fromEntries(Object.entries(COMPARE).map(([sort, compare]) => [sort, [...entries].sort(compare)])) as State['orders']
    return { version, orders, trigrams: trigramIndex(entries, (entry) => entry.searchText), translatedTrigrams: new Map(), byId: new Map(entries.map((entry) => [entry.id, entry])) }
  }

  /** Loads the index; a failed load (database away) is forgotten, so the next request tries again. */
  private reload(): Promise<State> {
    const loading = this.load()
    this.state = loading
    this.checkedAt = this.now()
    loading.catch(() => {
      if (this.state === loading) this.state = null
    })
    return loading
  }

  /** The current index; a changed catalogue version is picked up within `versionCheckMs` (at once with `fresh`). */
  private async current(fresh = false): Promise<State> {
    if (!this.state) return this.reload()
    const state = await this.state
    if (fresh || this.now() - this.checkedAt >= this.versionCheckMs) {
      this.checkedAt = this.now()
      if ((await this.version()) !== state.version) return this.reload()
    }
    return state
  }

  /**
   * Entries holding at least FUZZY_THRESHOLD of the query's trigrams, with the share they hold; a
   * trigram counts once for a program whether its English text or its summary in `locale` has it.
   */
  private static typoMatches(state: State, q: string, locale: Locale): Map<Entry, number> {
    let translated = state.translatedTrigrams.get(locale)
    if (!translated) {
      translated = trigramIndex(state.orders.nameAsc, (entry) => entry.translated.get(locale))
      state.translatedTrigrams.set(locale, translated)
    }
    const wanted = trigramsOf(q)
    const counts = new Map<Entry, number>()
    for (const trigram of wanted) {
      const holders = new Set([...(state.trigrams.get(trigram) ?? []), ...(translated.get(trigram) ?? [])])
      for (const entry of holders) counts.set(entry, (counts.get(entry) ?? 0) + 1)
    }
    const out = new Map<Entry, number>()
    for (const [entry, count] of counts) if (count / wanted.size >= FUZZY_THRESHOLD) out.set(entry, count / wanted.size)
    return out
  }

  /**
   * A page of the listing, texts in `locale` where translated. `library` narrows it to a user's
   * library: its program ids, newest first, which is also the order of the library's own sort,
   * recentlyAdded.
   */
  async list(query: Omit<ProgramQuery, 'sort'> & { sort: UserLibraryApiSortOption }, library?: readonly string[], locale: Locale = 'en'): Promise<ProgramPage> {
    const matches = this.select(await this.current(), query, library, locale)
    const start = (query.page - 1) * query.pageSize
    const ids = matches.slice(start, start + query.pageSize).map((e) => e.id)
    return { items: await programsByIds(this.db, ids, locale), total: matches.length, page: query.page, pageSize: query.pageSize }
  }

  /**
   * Saved searches: the catalogue as it is now (its version read at once, not after
   * `versionCheckMs`), and what a query matches in it — every public program, as the listing
   * would list them, without reading the database again.
   */
  async matcher(): Promise<{ version: string | null; matches: (query: Omit<ProgramQuery, 'sort' | 'page' | 'pageSize'>, locale?: Locale) => string[] }> {
    const state = await this.current(true)
    return { version: state.version, matches: (query, locale = 'en') => this.select(state, { ...query, sort: 'namePopular' }, undefined, locale).map((e) => e.id) }
  }

  /** The entries a listing's query selects, in its order (all of them: the caller pages). */
  private select(state: State, query: Omit<ProgramQuery, 'sort' | 'page' | 'pageSize'> & { sort: UserLibraryApiSortOption }, library: readonly string[] | undefined, locale: Locale): Entry[] {
    const within = library === undefined ? undefined : new Set(library)
    const q = normaliseQuery(query.q)
    const category = query.category && query.category !== 'all' ? query.category : undefined
    const keep = (e: Entry) =>
      (within === undefined ? !e.retired : within.has(e.id)) &&
      (category === undefined || e.categories.has(category)) &&
      (query.developer === undefined || e.developerId === query.developer) &&
      (query.publisher === undefined || e.publisherId === query.publisher) &&
      (query.licenseType === undefined || e.licenseType === query.licenseType) &&
      (query.price === 'all' || e.isFree === (query.price === 'free')) &&
      (query.language === undefined || e.languages.has(query.language)) &&
      (query.platform === undefined || e.platforms.has(query.platform))
    let ordered: Entry[]
    if (query.sort !== 'recentlyAdded') ordered = state.orders[query.sort]
    else if (library) ordered = library.flatMap((id) => state.byId.get(id) ?? [])
    else throw new Error('the recentlyAdded sort needs a library')
    let matches: Entry[]
    if (q === '') {
      matches = ordered.filter(keep)
    } else {
      // Literal matches: name prefix first, then name, then the rest of the text; each group in the chosen order.
      const groups: Entry[][] = [[], [], []]
      for (const entry of ordered) {
        if (!(entry.searchText.includes(q) || entry.translated.get(locale)?.includes(q)) || !keep(entry)) continue
        groups[entry.nameFolded.startsWith(q) ? 0 : entry.nameFolded.includes(q) ? 1 : 2]!.push(entry)
      }
      matches = groups.flat()
      if (matches.length === 0 && q.length >= FUZZY_MIN_LENGTH) {
        // Nothing literal: a typo. Closest first, then the chosen order.
        const similar = CatalogueIndex.typoMatches(state, q, locale)
        const position = new Map(ordered.map((entry, i) => [entry, i]))
        matches = [...similar.keys()].filter(keep).sort((a, b) => similar.get(b)! - similar.get(a)! || position.get(a)! - position.get(b)!)
      }
    }
    return matches
  }
}
