import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { PROGRAM_CATEGORIES, type LicenseType } from '../../../shared/catalogue/catalogue.ts'
import { LICENSE_TYPES, PLATFORMS } from '../../../shared/catalogue/vocabulary.ts'
import { EXTERNAL_CATALOGUES, EXTERNAL_ID_MAX_LENGTH, EXTERNAL_ID_PATTERNS, type ExternalIds } from '../../../shared/catalogue/living.ts'
import { LOCALES, DEFAULT_LOCALE, type Locale } from '../../../shared/locales.ts'
import { mayPrecede, parsePartialDate } from '../../../shared/catalogue/partial-dates.ts'
import type { Database } from '../../db/database.ts'
import { START_UP_TIMEOUT_MS } from '../../db/guard.ts'

// The catalogue's seed: real programs described in our own words (server/api/seed/*.json), and
// their summaries and descriptions in the other interface languages
// (server/api/seed/translations/<locale>/programs-*.json, keyed by program id; English is the
// source, a program without one is shown in English). Applied at start when the database does not
// hold this exact seed yet; applying it twice changes nothing. A program editors have written in
// the operator console (revision above 0, retired ones too) is theirs: the seed adds the
// programs it does not hold yet and never changes, nor brings back, an edited one.

export interface SeedProgram {
  id: string
  name: string
  summary: string
  description: string
  developer: string
  developerWebsite: string
  publisher: string
  publisherWebsite: string
  licenseType: LicenseType
  price: { amount: number; currency: string; period: 'one-time' | 'month' | 'year' } | null
  categories: string[]
  platforms: string[]
  languages: string[]
  homepage: string
  version: string
  /** First release: only what is known — "1998", "1998-02" or "1998-02-14" (shared/catalogue/partial-dates.ts). */
  released: string
  /** The current version's release, written the same way. */
  updated: string
  popularity: number
  /** The ids it has in other catalogues — only ids known to be real. */
  externalIds?: ExternalIds
}

/** One program's texts in one language other than English. */
export interface SeedTranslation {
  programId: string
  locale: Locale
  summary: string
  description: string
}

/** The languages a program's texts are translated into (English is the seed itself). */
export const TRANSLATED_LOCALES = LOCALES.filter((locale) => locale !== DEFAULT_LOCALE)

/** A stable id for a developer or publisher name: "Adobe Inc." → "adobe-inc". */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

function check(condition: boolean, id: string, problem: string): void {
  if (!condition) throw new Error(`Seed program "${id}": ${problem}`)
}

/** "Adobe Inc." and "Adobe" are one company: the key that catches one organisation named two ways. */
function organisationKey(name: string): string {
  return slugify(name).replace(/-(inc|ltd|llc|gmbh|corp|corporation|co|sa|ag|plc|limited)$/, '')
}

export function validateSeed(programs: SeedProgram[]): void {
  const ids = new Set<string>()
  const organisations = new Map<string, string>()
  const externalIds = new Map<string, string>()
  for (const p of programs) {
    for (const name of [p.developer, p.publisher]) {
      const known = organisations.get(organisationKey(name))
      check(known === undefined || known === name, p.id, `organisation "${name}" is also named "${known}"`)
      organisations.set(organisationKey(name), name)
    }
    check(SLUG.test(p.id), p.id, 'id is not a slug')
    check(!ids.has(p.id), p.id, 'duplicate id')
    ids.add(p.id)
    check(p.name.trim() !== '' && p.summary.trim() !== '' && p.description.trim() !== '', p.id, 'empty text')
    check(p.licenseType in LICENSE_TYPES, p.id, `unknown licence type ${p.licenseType}`)
    check(LICENSE_TYPES[p.licenseType].free === (p.price === null), p.id, 'price must be null exactly for free licence types')
    check(p.categories.length > 0 && p.categories.every((c) => (PROGRAM_CATEGORIES as readonly string[]).includes(c)), p.id, 'bad categories')
    check(new Set(p.categories).size === p.categories.length, p.id, 'repeated category')
    check(p.platforms.length > 0 && p.platforms.every((x) => (PLATFORMS as readonly string[]).includes(x)), p.id, 'bad platforms')
    check(p.languages.length > 0 && p.languages.every((l) => /^[a-z]{2}$/.test(l)), p.id, 'bad languages')
    check(parsePartialDate(p.released) !== null, p.id, `released "${p.released}" is not YYYY, YYYY-MM or YYYY-MM-DD`)
    check(parsePartialDate(p.updated) !== null, p.id, `updated "${p.updated}" is not YYYY, YYYY-MM or YYYY-MM-DD`)
    check(mayPrecede(p.released, p.updated), p.id, 'updated before released')
    check(Number.isInteger(p.popularity) && p.popularity >= 0 && p.popularity <= 100, p.id, 'bad popularity')
    check(/^https:\/\//.test(p.homepage), p.id, 'homepage must be https')
    for (const [catalogue, value] of Object.entries(p.externalIds ?? {})) {
      check((EXTERNAL_CATALOGUES as readonly string[]).includes(catalogue), p.id, `externalIds.${catalogue} is not a catalogue`)
      const pattern = EXTERNAL_ID_PATTERNS[catalogue as keyof ExternalIds]
      check(typeof value === 'string' && value.length <= EXTERNAL_ID_MAX_LENGTH && pattern.test(value), p.id, `externalIds.${catalogue} "${String(value)}" is not such an id`)
      const key = `${catalogue}:${value}`
      check(!externalIds.has(key), p.id, `externalIds.${catalogue} "${value}" is also ${externalIds.get(key)}'s`)
      externalIds.set(key, p.id)
    }
  }
}

/**
 * Checks one translation file's entries against the seed: every id a program of the seed, each
 * entry exactly `{ summary, description }`, both non-empty. `file` names it in the error.
 */
export function validateTranslations(programs: SeedProgram[], locale: string, file: string, entries: unknown): SeedTranslation[] {
  const where = `Seed translation ${locale}/${file}`
  if (!(TRANSLATED_LOCALES as readonly string[]).includes(locale)) throw new Error(`${where}: "${locale}" is not a language to translate into (${TRANSLATED_LOCALES.join(', ')})`)
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) throw new Error(`${where}: not an object keyed by program id`)
  const ids = new Set(programs.map((p) => p.id))
  return Object.entries(entries).map(([programId, entry]) => {
    if (!ids.has(programId)) throw new Error(`${where}: no program "${programId}" in the seed`)
    const fields = typeof entry === 'object' && entry !== null ? Object.keys(entry).sort().join(',') : ''
    if (fields !== 'description,summary') throw new Error(`${where}: "${programId}" must be exactly { summary, description }`)
    const { summary, description } = entry as Record<string, unknown>
    if (typeof summary !== 'string' || typeof description !== 'string' || summary.trim() === '' || description.trim() === '') {
      throw new Error(`${where}: "${programId}" has an empty or non-text summary or description`)
    }
    return { programId, locale: locale as Locale, summary, description }
  })
}

const PROGRAM_FILE = /^programs-.+\.json$/

export interface Seed {
  programs: SeedProgram[]
  translations: SeedTranslation[]
  /** Of every file read: a change to any of them applies the seed again. */
  checksum: string
}

export function readSeed(dir: URL = new URL('../seed/', import.meta.url)): Seed {
  const folder = fileURLToPath(dir)
  const files = fs.readdirSync(folder).filter((f) => PROGRAM_FILE.test(f)).sort()
  const hash = createHash('sha256')
  const programs: SeedProgram[] = []
  for (const file of files) {
    const text = fs.readFileSync(`${folder}/${file}`, 'utf8')
    hash.update(`${file}\n${text}`)
    programs.push(...(JSON.parse(text) as SeedProgram[]))
  }
  validateSeed(programs)
  // A language or a file that is missing means English for it (a new language can land file by file).
  const translations: SeedTranslation[] = []
  const seen = new Set<string>()
  const translationsFolder = `${folder}/translations`
  const locales = fs.existsSync(translationsFolder)
    ? fs.readdirSync(translationsFolder, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
    : []
  for (const locale of locales) {
    for (const file of fs.readdirSync(`${translationsFolder}/${locale}`).filter((f) => PROGRAM_FILE.test(f)).sort()) {
      const text = fs.readFileSync(`${translationsFolder}/${locale}/${file}`, 'utf8')
      hash.update(`translations/${locale}/${file}\n${text}`)
      for (const translation of validateTranslations(programs, locale, file, JSON.parse(text))) {
        const key = `${locale}/${translation.programId}`
        if (seen.has(key)) throw new Error(`Seed translation ${locale}/${file}: "${translation.programId}" is translated twice`)
        seen.add(key)
        translations.push(translation)
      }
    }
  }
  return { programs, translations, checksum: hash.digest('hex') }
}

/** Upserts the seed in one transaction; returns false when the database already holds it. */
export async function applySeed(db: Database, seed = readSeed()): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['softshelf:seed:api'])
    const current = await tx.query<{ checksum: string }>('SELECT checksum FROM api.seed_state WHERE id')
    if (current.rows[0]?.checksum === seed.checksum) return false

    const people = (kind: 'developer' | 'publisher') => {
      const byId = new Map<string, { name: string; website: string }>()
      for (const p of seed.programs) {
        const id = slugify(p[kind])
        if (!byId.has(id)) byId.set(id, { name: p[kind], website: p[kind === 'developer' ? 'developerWebsite' : 'publisherWebsite'] })
      }
      return [[...byId.keys()], [...byId.values()].map((v) => v.name), [...byId.values()].map((v) => v.website)]
    }
    for (const [table, kind] of [
      ['developers', 'developer'],
      ['publishers', 'publisher'],
    ] as const) {
      await tx.query(
        `INSERT INTO api.${table} (id, name, website) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, website = EXCLUDED.website`,
        people(kind),
      )
    }

    const ps = seed.programs
    // An id of another catalogue names one program. An editor's program keeps the ids it
    // has (the seed gives way: its program goes without); the seed's own are set afresh, cleared
    // first so that ids moving between two of its programs never meet in the unique index.
    const edited = await tx.query<{ external_ids: ExternalIds }>("SELECT external_ids FROM api.programs WHERE revision > 0 AND external_ids <> '{}'::jsonb")
    const takenByEditors = new Set(edited.rows.flatMap((row) => Object.entries(row.external_ids).map(([catalogue, value]) => `${catalogue}:${value}`)))
    // (readSeed refuses a seed that gives one id twice; one made otherwise gives it to the first.)
    const claimed = new Set(takenByEditors)
    const seedIds = ps.map((p) => {
      const ids: ExternalIds = {}
      for (const catalogue of EXTERNAL_CATALOGUES) {
        const value = p.externalIds?.[catalogue]
        if (value === undefined || claimed.has(`${catalogue}:${value}`)) continue
        claimed.add(`${catalogue}:${value}`)
        ids[catalogue] = value
      }
      return JSON.stringify(ids)
    })
    await tx.query("UPDATE api.programs SET external_ids = '{}'::jsonb WHERE revision = 0 AND external_ids <> '{}'::jsonb")
    const released = ps.map((p) => parsePartialDate(p.released)!)
    const updated = ps.map((p) => parsePartialDate(p.updated)!)
    await tx.query(
      `INSERT INTO api.programs (id, name, summary, description, developer_id, publisher_id, license_type,
         price_amount, price_currency, price_period, platforms, languages, homepage, version, released_on,
         updated_on, popularity, search_text, released_precision, updated_precision, external_ids)
       SELECT id, name, summary, description, developer_id, publisher_id, license_type, price_amount, price_currency,
         price_period, string_to_array(platforms, ','), string_to_array(languages, ','), homepage, version,
         released_on::date, updated_on::date, popularity, search_text, released_precision, updated_precision, external_ids::jsonb
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[],
         $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
         $17::int[], $18::text[], $19::text[], $20::text[], $21::text[])
         AS s(id, name, summary, description, developer_id, publisher_id, license_type, price_amount, price_currency,
           price_period, platforms, languages, homepage, version, released_on, updated_on, popularity, search_text,
           released_precision, updated_precision, external_ids)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, summary = EXCLUDED.summary, description = EXCLUDED.description,
         developer_id = EXCLUDED.developer_id, publisher_id = EXCLUDED.publisher_id, license_type = EXCLUDED.license_type,
         price_amount = EXCLUDED.price_amount, price_currency = EXCLUDED.price_currency, price_period = EXCLUDED.price_period,
         platforms = EXCLUDED.platforms, languages = EXCLUDED.languages, homepage = EXCLUDED.homepage,
         version = EXCLUDED.version, released_on = EXCLUDED.released_on, updated_on = EXCLUDED.updated_on,
         popularity = EXCLUDED.popularity, search_text = EXCLUDED.search_text,
         released_precision = EXCLUDED.released_precision, updated_precision = EXCLUDED.updated_precision,
         external_ids = EXCLUDED.external_ids
       WHERE api.programs.revision = 0`,
      [
        ps.map((p) => p.id),
        ps.map((p) => p.name),
        ps.map((p) => p.summary),
        ps.map((p) => p.description),
        ps.map((p) => slugify(p.developer)),
        ps.map((p) => slugify(p.publisher)),
        ps.map((p) => p.licenseType),
        ps.map((p) => p.price?.amount ?? null),
        ps.map((p) => p.price?.currency ?? null),
        ps.map((p) => p.price?.period ?? null),
        ps.map((p) => p.platforms.join(',')),
        ps.map((p) => p.languages.join(',')),
        ps.map((p) => p.homepage),
        ps.map((p) => p.version),
        released.map((d) => d.start),
        updated.map((d) => d.start),
        ps.map((p) => p.popularity),
        ps.map((p) => [p.name, p.summary, p.developer, p.publisher].join(' ').toLowerCase()),
        released.map((d) => d.precision),
        updated.map((d) => d.precision),
        seedIds,
      ],
    )
    // The version of a program as the seed writes it is a release of its history (dated
    // its "updated"), so the history and the version agree; one the history has changes nothing.
    await tx.query(
      `INSERT INTO api.program_releases (program_id, version, released_on, released_precision, source)
       SELECT id, version, updated_on, updated_precision, 'editor' FROM api.programs WHERE revision = 0 AND id = ANY($1::text[])
       ON CONFLICT DO NOTHING`,
      [ps.map((p) => p.id)],
    )
    // The translations of the programs as the seed wrote them are the seed's alone: replaced whole,
    // so one the seed no longer has goes. Those of a program an editor has written are the editor's.
    const ts = seed.translations
    await tx.query('DELETE FROM api.program_translations t USING api.programs p WHERE p.id = t.program_id AND p.revision = 0')
    await tx.query(
      `INSERT INTO api.program_translations (program_id, locale, summary, description)
       SELECT t.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(program_id, locale, summary, description)
       JOIN api.programs p ON p.id = t.program_id AND p.revision = 0`,
      [ts.map((t) => t.programId), ts.map((t) => t.locale), ts.map((t) => t.summary), ts.map((t) => t.description)],
    )
    // An organisation the seed no longer names, with no program left, would be an empty page.
    for (const [table, column] of [
      ['developers', 'developer_id'],
      ['publishers', 'publisher_id'],
    ] as const) {
      await tx.query(`DELETE FROM api.${table} o WHERE NOT EXISTS (SELECT 1 FROM api.programs p WHERE p.${column} = o.id)`)
    }
    await tx.query('DELETE FROM api.program_categories WHERE program_id = ANY($1::text[]) AND program_id IN (SELECT id FROM api.programs WHERE revision = 0)', [ps.map((p) => p.id)])
    const links = ps.flatMap((p) => p.categories.map((category, index) => [p.id, category, index === 0] as const))
    await tx.query(
      `INSERT INTO api.program_categories (program_id, category_id, is_primary)
       SELECT l.* FROM unnest($1::text[], $2::text[], $3::boolean[]) AS l(program_id, category_id, is_primary)
       JOIN api.programs p ON p.id = l.program_id AND p.revision = 0`,
      [links.map((l) => l[0]), links.map((l) => l[1]), links.map((l) => l[2])],
    )
    await tx.query(
      `INSERT INTO api.seed_state (id, checksum, applied_at) VALUES (true, $1, now())
       ON CONFLICT (id) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
      [seed.checksum],
    )
    return true
  }, { timeoutMs: START_UP_TIMEOUT_MS })
}
