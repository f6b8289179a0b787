import { PROGRAM_CATEGORIES, type ProgramCategory } from '../../../shared/catalogue/catalogue.ts'
import { EXTERNAL_CATALOGUES, type ExternalIds } from '../../../shared/catalogue/living.ts'
import { LOCALES, type Locale } from '../../../shared/locales.ts'
import { parsePartialDate, partialDate, type DatePrecision } from '../../../shared/catalogue/partial-dates.ts'
import {
  EDITABLE_FIELDS,
  normalisedExternalIds,
  programProblems,
  RESERVED_PROGRAM_IDS,
  type EditableField,
  type EditorProgram,
  type FieldProblem,
  type ProgramAsWritten,
  type ProgramRevision,
  type ProgramTexts,
} from '../../../shared/catalogue/program-editor.ts'
import type { Database, Queryable } from '../../db/database.ts'
import { recordAudit, type AuditActor } from '../operator/audit-log.ts'
import { slugify } from './seed.ts'
import { priceOf } from './repository.ts'
import { ApiCatalogueNotFound, ApiRevisionConflict, ApiValidation } from '../errors.ts'
import { recordCatalogueEvent, recordEditedVersion } from './release-history.ts'

// The catalogue as editors write it: read a program as written, create, change on top of
// a revision (a change based on an older one is refused, never applied over someone else's), revert
// to an earlier revision, retire. Every write is one transaction holding the program's row lock:
// the program, its revision row, the audit entry and the catalogue version that tells every API
// instance's index and every BFF cache that the catalogue changed.

/** A validation error naming every field that is wrong (`fields`), the first one in the message. */
export function validationError(problems: FieldProblem[]): Error {
  const error = new ApiValidation(problems.map((p) => p.message).join('; '))
  error.details = { fields: problems }
  return error
}

function conflict(current: number): Error {
  const error = new ApiRevisionConflict(current)
  error.details = { currentRevision: current }
  return error
}

interface StoredRow {
  id: string
  name: string
  summary: string
  description: string
  developer_id: string
  developer_name: string
  publisher_id: string
  publisher_name: string
  license_type: EditorProgram['licenseType']
  price_amount: string | number | null
  price_currency: string | null
  price_period: 'one-time' | 'month' | 'year' | null
  platforms: EditorProgram['platforms']
  languages: string[]
  homepage: string
  version: string
  released_on: string
  released_precision: DatePrecision
  updated_on: string
  updated_precision: DatePrecision
  categories: ProgramCategory[]
  revision: number
  retired_at: string | null
  external_ids: ExternalIds | null
  texts: Array<{ locale: Exclude<Locale, 'en'>; summary: string; description: string }> | null
}

const SELECT_WRITTEN = `
  SELECT p.id, p.name, p.summary, p.description, p.developer_id, d.name AS developer_name, p.publisher_id, pub.name AS publisher_name,
    p.license_type, p.price_amount, p.price_currency, p.price_period, p.platforms, p.languages, p.homepage, p.version,
    p.released_on::text AS released_on, p.released_precision, p.updated_on::text AS updated_on, p.updated_precision,
    p.revision, to_json(p.retired_at)#>>'{}' AS retired_at, p.external_ids,
    ARRAY(SELECT pc.category_id FROM api.program_categories pc JOIN api.categories c ON c.id = pc.category_id
          WHERE pc.program_id = p.id ORDER BY pc.is_primary DESC, c.position) AS categories,
    (SELECT json_agg(json_build_object('locale', t.locale, 'summary', t.summary, 'description', t.description) ORDER BY t.locale)
       FROM api.program_translations t WHERE t.program_id = p.id) AS texts
  FROM api.programs p
  JOIN api.developers d ON d.id = p.developer_id
  JOIN api.publishers pub ON pub.id = p.publisher_id`

function written(row: StoredRow): EditorProgram {
  const texts: EditorProgram['texts'] = { en: { summary: row.summary, description: row.description } }
  // In the order of the interface's languages, so two reads of one program are the same JSON.
  const byLocale = new Map((row.texts ?? []).map((t) => [t.locale, { summary: t.summary, description: t.description }]))
  for (const locale of LOCALES) if (locale !== 'en' && byLocale.has(locale)) texts[locale] = byLocale.get(locale)!
  return {
    id: row.id,
    name: row.name,
    developer: { id: row.developer_id, name: row.developer_name },
    publisher: { id: row.publisher_id, name: row.publisher_name },
    licenseType: row.license_type,
    price: priceOf(row),
    categories: row.categories,
    platforms: row.platforms,
    languages: row.languages,
    version: row.version,
    updated: partialDate(row.updated_on, row.updated_precision),
    released: partialDate(row.released_on, row.released_precision),
    homepage: row.homepage,
    texts,
    revision: row.revision,
    retired: row.retired_at !== null,
    retiredAt: row.retired_at === null ? null : new Date(row.retired_at).toISOString(),
    externalIds: normalisedExternalIds(row.external_ids ?? {}),
  }
}

/** A program as editors see it, retired or not; null when there is none. */
export async function readProgram(db: Queryable, id: string, forUpdate = false): Promise<EditorProgram | null> {
  if (forUpdate) {
    // The row lock first: a second writer waits here, then reads the revision the first one wrote.
    const locked = await db.query('SELECT 1 FROM api.programs WHERE id = $1 FOR UPDATE', [id])
    if (locked.rows.length === 0) return null
  }
  const { rows } = await db.query<StoredRow>(`${SELECT_WRITTEN} WHERE p.id = $1`, [id])
  return rows[0] ? written(rows[0]) : null
}

export interface EditorProgramPage {
  items: EditorProgram[]
  total: number
  page: number
  pageSize: number
}

/** Every program, retired ones too, by name; `q` finds a part of the id, the name, the developer or the publisher (letter case aside). */
export async function listPrograms(db: Queryable, query: { q?: string | undefined; page: number; pageSize: number }): Promise<EditorProgramPage> {
  const q = query.q?.trim() ?? ''
  const where = q === '' ? 'true' : `(p.id ILIKE $1 OR p.name ILIKE $1 OR d.name ILIKE $1 OR pub.name ILIKE $1)`
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  const params = q === '' ? [] : [pattern]
  const total = await db.query<{ count: string | number }>(
    `SELECT count(*) AS count FROM api.programs p JOIN api.developers d ON d.id = p.developer_id JOIN api.publishers pub ON pub.id = p.publisher_id WHERE ${where}`,
    params,
  )
  const { rows } = await db.query<StoredRow>(
    `${SELECT_WRITTEN} WHERE ${where} ORDER BY lower(p.name), p.id LIMIT ${query.pageSize} OFFSET ${(query.page - 1) * query.pageSize}`,
    params,
  )
  return { items: rows.map(written), total: Number(total.rows[0]?.count ?? 0), page: query.page, pageSize: query.pageSize }
}

/** What is stored of a program as written: the organisations as the catalogue names them, categories in a fixed order. */
type Stored = Omit<EditorProgram, 'revision' | 'retired' | 'retiredAt'>

/** The primary category first, the others in the catalogue's order: what a read gives back. */
function normalisedCategories(categories: ProgramCategory[]): ProgramCategory[] {
  const [primary, ...rest] = categories
  return [primary!, ...rest.sort((a, b) => PROGRAM_CATEGORIES.indexOf(a) - PROGRAM_CATEGORIES.indexOf(b))]
}

/** The id of a developer or publisher as written: the one given (made when new) or the name's slug (the existing one when there is one). */
async function organisation(tx: Queryable, kind: 'developer' | 'publisher', value: { id?: string; name: string }): Promise<{ id: string; name: string }> {
  const table = kind === 'developer' ? 'api.developers' : 'api.publishers'
  const id = value.id ?? slugify(value.name)
  if (id === '') throw validationError([{ field: `${kind}.name`, message: `${kind}.name must contain a letter or a digit` }])
  const { rows } = await tx.query<{ id: string; name: string }>(
    `INSERT INTO ${table} (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id RETURNING id, name`,
    [id, value.name.trim()],
  )
  return rows[0]!
}

/** Stores the whole program as written (new or over the current one) and returns it as stored. */
async function store(tx: Queryable, id: string, program: ProgramAsWritten, revision: number, isNew: boolean): Promise<Stored> {
  const developer = await organisation(tx, 'developer', program.developer)
  const publisher = await organisation(tx, 'publisher', program.publisher)
  const released = parsePartialDate(program.released)!
  const updated = parsePartialDate(program.updated)!
  const stored: Stored = {
    id,
    name: program.name.trim(),
    developer,
    publisher,
    licenseType: program.licenseType,
    price: program.price === null ? null : { amount: program.price.amount, currency: program.price.currency, period: program.price.period },
    categories: normalisedCategories(program.categories),
    platforms: program.platforms,
    languages: program.languages,
    version: program.version.trim(),
    updated: program.updated,
    released: program.released,
    homepage: program.homepage,
    texts: program.texts,
    externalIds: normalisedExternalIds(program.externalIds),
  }
  await refuseTakenExternalIds(tx, id, stored.externalIds)
  const en = program.texts.en
  const searchText = [stored.name, en.summary, developer.name, publisher.name].join(' ').toLowerCase()
  const values = [
    id,
    stored.name,
    en.summary,
    en.description,
    developer.id,
    publisher.id,
    stored.licenseType,
    stored.price?.amount ?? null,
    stored.price?.currency ?? null,
    stored.price?.period ?? null,
    stored.platforms,
    stored.languages,
    stored.homepage,
    stored.version,
    released.start,
    released.precision,
    updated.start,
    updated.precision,
    searchText,
    revision,
    JSON.stringify(stored.externalIds),
  ]
  try {
    if (isNew) {
      await tx.query(
        `INSERT INTO api.programs (id, name, summary, description, developer_id, publisher_id, license_type, price_amount, price_currency,
           price_period, platforms, languages, homepage, version, released_on, released_precision, updated_on, updated_precision,
           search_text, revision, external_ids, popularity)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::date, $16, $17::date, $18, $19, $20, $21::jsonb, 0)`,
        values,
      )
    } else {
      await tx.query(
        `UPDATE api.programs SET name = $2, summary = $3, description = $4, developer_id = $5, publisher_id = $6, license_type = $7,
           price_amount = $8, price_currency = $9, price_period = $10, platforms = $11, languages = $12, homepage = $13, version = $14,
           released_on = $15::date, released_precision = $16, updated_on = $17::date, updated_precision = $18, search_text = $19, revision = $20,
           external_ids = $21::jsonb
         WHERE id = $1`,
        values,
      )
    }
  } catch (error) {
    // Another program took the id between the check and the write (its unique index): said as the check says it.
    const taken = takenExternalId(error)
    if (taken) throw validationError([{ field: `externalIds.${taken}`, message: `externalIds.${taken} is already the id of another program` }])
    throw error
  }
  await tx.query('DELETE FROM api.program_translations WHERE program_id = $1', [id])
  const translated = LOCALES.filter((locale) => locale !== 'en' && program.texts[locale] !== undefined) as Exclude<Locale, 'en'>[]
  if (translated.length > 0) {
    await tx.query(
      `INSERT INTO api.program_translations (program_id, locale, summary, description)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])`,
      [id, translated, translated.map((l) => program.texts[l]!.summary), translated.map((l) => program.texts[l]!.description)],
    )
  }
  await tx.query('DELETE FROM api.program_categories WHERE program_id = $1', [id])
  await tx.query(
    `INSERT INTO api.program_categories (program_id, category_id, is_primary)
     SELECT $1, category, ord = 1 FROM unnest($2::text[]) WITH ORDINALITY AS c(category, ord)`,
    [id, stored.categories],
  )
  // An organisation no program names any more would be an empty page.
  for (const [table, column] of [
    ['developers', 'developer_id'],
    ['publishers', 'publisher_id'],
  ] as const) {
    await tx.query(`DELETE FROM api.${table} o WHERE o.id <> $1 AND NOT EXISTS (SELECT 1 FROM api.programs p WHERE p.${column} = o.id)`, [
      table === 'developers' ? developer.id : publisher.id,
    ])
  }
  return stored
}

/** An id of another catalogue names one program only — a second one is a validation error naming the field, not the unique index's 500. */
async function refuseTakenExternalIds(tx: Queryable, id: string, ids: ExternalIds): Promise<void> {
  const problems: FieldProblem[] = []
  for (const catalogue of EXTERNAL_CATALOGUES) {
    const value = ids[catalogue]
    if (value === undefined) continue
    const { rows } = await tx.query<{ id: string }>('SELECT id FROM api.programs WHERE id <> $1 AND external_ids ->> $2 = $3', [id, catalogue, value])
    if (rows[0]) problems.push({ field: `externalIds.${catalogue}`, message: `externalIds.${catalogue} "${value}" is already the id of the program "${rows[0].id}"` })
  }
  if (problems.length > 0) throw validationError(problems)
}

/** The catalogue whose unique index (migration 021: programs_<catalogue>_id) refused a write, if that was the error. */
function takenExternalId(error: unknown): string | undefined {
  const { code, constraint, message } = (error ?? {}) as { code?: string; constraint?: string; message?: string }
  if (code !== '23505') return undefined
  return EXTERNAL_CATALOGUES.find((catalogue) => `${constraint ?? ''} ${message ?? ''}`.includes(`programs_${catalogue}_id`))
}

/** Tells every API instance's index and every BFF cache that the catalogue changed (catalogue/search-index.ts). */
export async function bumpCatalogueVersion(tx: Queryable): Promise<void> {
  await tx.query('UPDATE api.catalogue_version SET version = version + 1')
}

const FIELD_NAMES = EDITABLE_FIELDS.filter((field) => field !== 'texts')

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The fields that differ, as `{ field: { before, after } }`; a language's texts as `texts.<locale>`. */
export function changesBetween(before: Partial<Stored> | null, after: Partial<Stored>): Record<string, { before: unknown; after: unknown }> {
  const changes: Record<string, { before: unknown; after: unknown }> = {}
  for (const field of FIELD_NAMES) {
    const a = before?.[field] ?? null
    const b = after[field] ?? null
    if (!same(a, b)) changes[field] = { before: a, after: b }
  }
  for (const locale of LOCALES) {
    const a = (before?.texts as Record<string, ProgramTexts> | undefined)?.[locale] ?? null
    const b = (after.texts as Record<string, ProgramTexts> | undefined)?.[locale] ?? null
    if (!same(a, b)) changes[`texts.${locale}`] = { before: a, after: b }
  }
  return changes
}

/** The audit entry's before and after: only what changed. */
function auditOf(changes: Record<string, { before: unknown; after: unknown }>): { before: Record<string, unknown>; after: Record<string, unknown> } {
  return {
    before: Object.fromEntries(Object.entries(changes).map(([field, change]) => [field, change.before])),
    after: Object.fromEntries(Object.entries(changes).map(([field, change]) => [field, change.after])),
  }
}

export interface WriteContext {
  actor: AuditActor
  requestId: string
}

export async function recordRevision(
  tx: Queryable,
  context: WriteContext,
  stored: Stored,
  revision: number,
  action: ProgramRevision['action'],
  changes: Record<string, { before: unknown; after: unknown }>,
): Promise<void> {
  await tx.query(
    `INSERT INTO api.program_revisions (program_id, revision, actor_id, actor_email, action, program, changes)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)`,
    [stored.id, revision, context.actor.id, context.actor.email, action, JSON.stringify(stored), JSON.stringify(changes)],
  )
  const audit = auditOf(changes)
  await recordAudit(tx, {
    actor: context.actor,
    action: `program.${action}`,
    target: `program:${stored.id}`,
    before: action === 'create' ? null : audit.before,
    after: audit.after,
    requestId: context.requestId,
  })
  await bumpCatalogueVersion(tx)
}

function checked(program: Record<string, unknown>): ProgramAsWritten {
  const problems = programProblems(program)
  if (problems.length > 0) throw validationError(problems)
  return program as unknown as ProgramAsWritten
}

/** A new program: its id the one given, or made from its name (unique: "name-2" when "name" is taken). */
export async function createProgram(db: Database, body: Record<string, unknown>, context: WriteContext): Promise<{ id: string; revision: number }> {
  const program = checked(body)
  const base = program.id ?? slugify(program.name).slice(0, 90).replace(/-+$/, '')
  if (base === '') throw validationError([{ field: 'name', message: 'name must contain a letter or a digit' }])
  return db.transaction(async (tx) => {
    // Two creates of one id (or one name) at once: the second waits for the first, then sees its program.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:program:${base}`])
    let id = base
    if (program.id !== undefined) {
      const taken = await tx.query('SELECT 1 FROM api.programs WHERE id = $1', [id])
      if (taken.rows.length > 0) throw validationError([{ field: 'id', message: `id "${id}" is taken by another program` }])
    } else {
      const { rows } = await tx.query<{ id: string }>('SELECT id FROM api.programs WHERE id = $1 OR id LIKE $2', [base, `${base}-%`])
      const taken = new Set(rows.map((row) => row.id))
      for (let n = 2; taken.has(id) || RESERVED_PROGRAM_IDS.has(id); n++) id = `${base}-${n}`
    }
    const stored = await store(tx, id, program, 1, true)
    await recordRevision(tx, context, stored, 1, 'create', changesBetween(null, stored))
    // Its history starts with the version it is written with.
    await recordEditedVersion(tx, { programId: id, version: stored.version, date: stored.updated, programName: stored.name }, false)
    return { id, revision: 1 }
  })
}

function withoutState(program: EditorProgram): Stored {
  const { revision: _revision, retired: _retired, retiredAt: _retiredAt, ...stored } = program
  return stored
}

/**
 * Changes the fields given, on top of `baseRevision`: when that is not the current revision,
 * someone else changed the program meanwhile and nothing is written (409 with the current one).
 * `texts` changes per language: a language given replaces its texts, `null` removes them.
 */
export async function updateProgram(db: Database, ...change: UpdateArguments): Promise<{ revision: number }> {
  return db.transaction((tx) => updateProgramIn(tx, ...change))
}

/** What a change is: the program, the revision it is based on, the fields, who and why. */
type UpdateArguments = [id: string, baseRevision: number, fields: Partial<Record<EditableField, unknown>>, context: WriteContext, action?: 'update' | 'revert']

/** updateProgram inside the caller's transaction (a feed's proposed change accepted, with its decision). */
export async function updateProgramIn(
  tx: Queryable,
  id: string,
  baseRevision: number,
  fields: Partial<Record<EditableField, unknown>>,
  context: WriteContext,
  action: 'update' | 'revert' = 'update',
): Promise<{ revision: number }> {
  {
    const current = await readProgram(tx, id, true)
    if (!current) throw new ApiCatalogueNotFound('program', id)
    if (current.revision !== baseRevision) throw conflict(current.revision)
    const before = withoutState(current)
    const merged: Record<string, unknown> = { ...before }
    for (const field of EDITABLE_FIELDS) {
      if (!(field in fields)) continue
      if (field === 'texts') {
        const texts: Record<string, unknown> = { ...before.texts }
        const given = fields.texts
        if (typeof given !== 'object' || given === null || Array.isArray(given)) throw validationError([{ field: 'texts', message: 'texts must be an object keyed by language' }])
        for (const [locale, entry] of Object.entries(given)) {
          if (entry === null && locale !== 'en') delete texts[locale]
          else texts[locale] = entry
        }
        merged.texts = texts
      } else {
        merged[field] = fields[field]
      }
    }
    // The organisations as written may carry a name only: compared by what is stored.
    const program = checked({ ...merged, id: undefined })
    const revision = current.revision + 1
    const stored = await store(tx, id, program, revision, false)
    const changes = changesBetween(before, stored)
    if (Object.keys(changes).length === 0) {
      // Nothing differs from the current revision: no new one.
      await tx.query('UPDATE api.programs SET revision = $2 WHERE id = $1', [id, current.revision])
      return { revision: current.revision }
    }
    await recordRevision(tx, context, stored, revision, action, changes)
    // What watchers hear of, in the change's transaction. A new version written here is
    // a release of the program's history too (dated its "updated"), not a second revision.
    if (changes.price) await recordCatalogueEvent(tx, id, 'price', { before: changes.price.before, after: changes.price.after, programName: stored.name })
    if (changes.licenseType) await recordCatalogueEvent(tx, id, 'licence', { before: changes.licenseType.before, after: changes.licenseType.after, programName: stored.name })
    if (changes.version) await recordEditedVersion(tx, { programId: id, version: stored.version, date: stored.updated, programName: stored.name })
    return { revision }
  }
}

/** A new revision equal to an earlier one (its program as written). */
export async function revertProgram(db: Database, id: string, toRevision: number, baseRevision: number, context: WriteContext): Promise<{ revision: number }> {
  const { rows } = await db.query<{ program: Stored }>('SELECT program FROM api.program_revisions WHERE program_id = $1 AND revision = $2', [id, toRevision])
  const target = rows[0]?.program
  if (!target) {
    if (!(await readProgram(db, id))) throw new ApiCatalogueNotFound('program', id)
    throw validationError([{ field: 'revision', message: `revision ${toRevision} is not in this program's history` }])
  }
  const { id: _id, ...fields } = target
  // The texts as they were: a language added since is removed again.
  const texts = Object.fromEntries(LOCALES.map((locale) => [locale, (target.texts as Record<string, ProgramTexts | undefined>)[locale] ?? null]))
  return updateProgram(db, id, baseRevision, { ...fields, texts }, context, 'revert')
}

/** Retires a program: gone from the public catalogue, kept where libraries and purchases refer to it. Retiring twice changes nothing. */
export async function retireProgram(db: Database, id: string, context: WriteContext, now: Date): Promise<{ revision: number; retiredAt: string }> {
  return db.transaction(async (tx) => {
    const current = await readProgram(tx, id, true)
    if (!current) throw new ApiCatalogueNotFound('program', id)
    if (current.retiredAt !== null) return { revision: current.revision, retiredAt: current.retiredAt }
    const revision = current.revision + 1
    await tx.query('UPDATE api.programs SET retired_at = $2, revision = $3 WHERE id = $1', [id, now.toISOString(), revision])
    const changes = { retired: { before: false, after: true } }
    await tx.query(
      `INSERT INTO api.program_revisions (program_id, revision, actor_id, actor_email, action, program, changes, retired)
       VALUES ($1, $2, $3, $4, 'retire', $5::jsonb, $6::jsonb, true)`,
      [id, revision, context.actor.id, context.actor.email, JSON.stringify(withoutState(current)), JSON.stringify(changes)],
    )
    await recordAudit(tx, { actor: context.actor, action: 'program.retire', target: `program:${id}`, before: { retired: false }, after: { retired: true }, requestId: context.requestId })
    await bumpCatalogueVersion(tx)
    return { revision, retiredAt: now.toISOString() }
  })
}

/** A program's history, newest first; null when there is no such program. */
export async function programRevisions(db: Queryable, id: string): Promise<ProgramRevision[] | null> {
  const { rows } = await db.query<{ revision: number; at: string; actor_id: string; actor_email: string; action: ProgramRevision['action']; changes: ProgramRevision['changes'] }>(
    `SELECT revision, to_json(at)#>>'{}' AS at, actor_id, actor_email, action, changes FROM api.program_revisions WHERE program_id = $1 ORDER BY revision DESC`,
    [id],
  )
  if (rows.length === 0 && !(await db.query('SELECT 1 FROM api.programs WHERE id = $1', [id])).rows.length) return null
  return rows.map((row) => ({
    revision: row.revision,
    at: new Date(row.at).toISOString(),
    actor: { id: row.actor_id, email: row.actor_email },
    action: row.action,
    changes: row.changes,
  }))
}
