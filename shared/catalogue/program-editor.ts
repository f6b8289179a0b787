// The catalogue as editors write it: the operator API's programs and their checks,
// shared by the API (which enforces them) and the console (which shows them next to the field).

import { PROGRAM_CATEGORIES, type LicenseType, type Platform, type ProgramCategory } from './catalogue.ts'
import type { Price } from './program-schemas.ts'
import { LICENSE_TYPES, PLATFORMS } from './vocabulary.ts'
import { LOCALES, type Locale } from '../locales.ts'
import { EXTERNAL_CATALOGUES, EXTERNAL_ID_MAX_LENGTH, EXTERNAL_ID_PATTERNS, type ExternalIds } from './living.ts'
import { mayPrecede, parsePartialDate } from './partial-dates.ts'

export interface ProgramTexts {
  summary: string
  description: string
}

/** A developer or publisher as written: an `id` of the catalogue's, or a new one (made from the name when absent). */
export interface OrganisationAsWritten {
  id?: string
  name: string
}

/** A program as an editor writes it: the public API's fields, and its texts per language (English required). */
export interface ProgramAsWritten {
  id?: string
  name: string
  developer: OrganisationAsWritten
  publisher: OrganisationAsWritten
  licenseType: LicenseType
  /** Null exactly for a free licence type. */
  price: Price | null
  /** The primary category first. */
  categories: ProgramCategory[]
  platforms: Platform[]
  languages: string[]
  version: string
  /** "YYYY", "YYYY-MM" or "YYYY-MM-DD" (shared/catalogue/partial-dates.ts). */
  updated: string
  released: string
  homepage: string
  texts: { en: ProgramTexts } & Partial<Record<Exclude<Locale, 'en'>, ProgramTexts>>
  /** The ids it has in other catalogues (absent in a create: none). One program per id. */
  externalIds?: ExternalIds
}

/** A program as the editors' API answers it: written, with its current revision and whether it is retired. */
export interface EditorProgram extends ProgramAsWritten {
  id: string
  developer: { id: string; name: string }
  publisher: { id: string; name: string }
  /** Sent back as `baseRevision` with a change: a change made meanwhile by someone else is a 409. */
  revision: number
  retired: boolean
  /** When it was retired (ISO 8601), or null. */
  retiredAt: string | null
  externalIds: ExternalIds
}

/** One entry of a program's history, newest first. */
export interface ProgramRevision {
  revision: number
  at: string
  actor: { id: string; email: string }
  /** 'release': a release recorded, by an editor or a feed. */
  action: 'create' | 'update' | 'revert' | 'retire' | 'release'
  /** The fields this revision changed (`texts.de` for one language's texts). */
  changes: Record<string, { before: unknown; after: unknown }>
}

/** The fields a PATCH may change (all but `id`). */
export const EDITABLE_FIELDS = [
  'name',
  'developer',
  'publisher',
  'licenseType',
  'price',
  'categories',
  'platforms',
  'languages',
  'version',
  'updated',
  'released',
  'homepage',
  'texts',
  'externalIds',
] as const satisfies readonly (keyof ProgramAsWritten)[]
export type EditableField = (typeof EDITABLE_FIELDS)[number]

export const PROGRAM_LIMITS = { name: 100, organisation: 100, version: 50, summary: 300, description: 20_000, homepage: 500, categories: 10, languages: 50 } as const

/** A program id and a developer's or publisher's: lower case letters and digits joined by single dashes. */
export const PROGRAM_SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$'
const SLUG = new RegExp(PROGRAM_SLUG_PATTERN)

/** What is wrong with a field: `field` as the body spells its path (`texts.de.summary`, `categories[1]`). */
export interface FieldProblem {
  field: string
  message: string
}

function text(problems: FieldProblem[], field: string, value: unknown, max: number): void {
  if (typeof value !== 'string' || value.trim() === '') problems.push({ field, message: `${field} is required` })
  else if (value.length > max) problems.push({ field, message: `${field} must be at most ${max} characters` })
}

function list<T extends string>(problems: FieldProblem[], field: string, value: unknown, allowed: ((v: string) => boolean) | readonly T[], what: string, max = 20): void {
  if (!Array.isArray(value) || value.length === 0) return void problems.push({ field, message: `${field} must name at least one` })
  if (value.length > max) return void problems.push({ field, message: `${field} may name at most ${max}` })
  const ok = typeof allowed === 'function' ? allowed : (v: string) => (allowed as readonly string[]).includes(v)
  const seen = new Set<string>()
  value.forEach((item: unknown, i) => {
    const at = `${field}[${i}]`
    if (typeof item !== 'string' || !ok(item)) problems.push({ field: at, message: `${at} must be ${what}` })
    else if (seen.has(item)) problems.push({ field: at, message: `${at} repeats ${item}` })
    else seen.add(item)
  })
}

function organisation(problems: FieldProblem[], field: string, value: unknown): void {
  if (typeof value !== 'object' || value === null) return void problems.push({ field, message: `${field} is required` })
  const { id, name } = value as { id?: unknown; name?: unknown }
  if (id !== undefined && (typeof id !== 'string' || !SLUG.test(id) || id.length > PROGRAM_LIMITS.organisation)) {
    problems.push({ field: `${field}.id`, message: `${field}.id must be lower case letters and digits joined by dashes` })
  }
  text(problems, `${field}.name`, name, PROGRAM_LIMITS.organisation)
}

function date(problems: FieldProblem[], field: string, value: unknown): boolean {
  if (typeof value === 'string' && parsePartialDate(value) !== null) return true
  problems.push({ field, message: `${field} must be a date written YYYY, YYYY-MM or YYYY-MM-DD` })
  return false
}

/** Ids the console's own pages use (/@/operator/programs/new): a program cannot have them. */
export const RESERVED_PROGRAM_IDS: ReadonlySet<string> = new Set(['new'])

/** Whether `value` is an address of one of `protocols` ("https:"), at most `max` characters. */
export function isWebAddress(value: unknown, max: number, protocols: readonly string[]): boolean {
  if (typeof value !== 'string' || value.length > max) return false
  try {
    return protocols.includes(new URL(value).protocol)
  } catch {
    return false
  }
}

/** `externalIds` (absent: none) — an object of the known catalogues, each id as that catalogue writes it. */
function externalIdProblems(problems: FieldProblem[], value: unknown): void {
  if (value === undefined) return
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return void problems.push({ field: 'externalIds', message: `externalIds must be an object of ${EXTERNAL_CATALOGUES.join(', ')}` })
  }
  for (const [catalogue, id] of Object.entries(value)) {
    const field = `externalIds.${catalogue}`
    if (!(EXTERNAL_CATALOGUES as readonly string[]).includes(catalogue)) problems.push({ field, message: `${field} is not a catalogue: externalIds names ${EXTERNAL_CATALOGUES.join(', ')}` })
    else if (typeof id !== 'string' || id.length > EXTERNAL_ID_MAX_LENGTH || !EXTERNAL_ID_PATTERNS[catalogue as keyof ExternalIds].test(id)) {
      problems.push({ field, message: `${field} must be ${EXTERNAL_ID_FORMS[catalogue as keyof ExternalIds]}` })
    }
  }
}

/** How each catalogue writes an id, for the message of one that is not. */
const EXTERNAL_ID_FORMS: Record<keyof ExternalIds, string> = {
  flathub: "a Flathub app id such as org.blender.Blender",
  winget: 'a winget package id such as BlenderFoundation.Blender',
  homebrew: 'a Homebrew cask or formula name such as blender',
}

/** The external ids in a fixed order, without empty ones: what is stored and read back. */
export function normalisedExternalIds(value: ExternalIds | undefined): ExternalIds {
  const ids: ExternalIds = {}
  for (const catalogue of EXTERNAL_CATALOGUES) if (value?.[catalogue]) ids[catalogue] = value[catalogue]
  return ids
}

/** A release as an editor adds it (`POST /api/operator/programs/{id}/releases`). */
export interface ReleaseAsWritten {
  version: string
  /** "YYYY-MM-DD", not after today. */
  date: string
  notesUrl?: string
}

export const RELEASE_LIMITS = { version: PROGRAM_LIMITS.version, notesUrl: 2000 } as const

/** The problems of a release as written; `today` is "YYYY-MM-DD" (UTC) — a release is not announced ahead. */
export function releaseProblems(release: Record<string, unknown>, today: string): FieldProblem[] {
  const problems: FieldProblem[] = []
  text(problems, 'version', release.version, RELEASE_LIMITS.version)
  const date = release.date
  if (typeof date !== 'string' || date.length !== 10 || parsePartialDate(date) === null) problems.push({ field: 'date', message: 'date must be a day written YYYY-MM-DD' })
  else if (date > today) problems.push({ field: 'date', message: `date must not be in the future (today is ${today})` })
  if (release.notesUrl !== undefined && !isWebAddress(release.notesUrl, RELEASE_LIMITS.notesUrl, ['https:', 'http:'])) {
    problems.push({ field: 'notesUrl', message: 'notesUrl must be an http:// or https:// address' })
  }
  return problems
}

/**
 * The problems of a program as written, the fields named as the body spells them; none: it can be
 * stored. `program` is whole (a create, or a change merged into the current program).
 */
export function programProblems(program: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = []
  if (program.id !== undefined && (typeof program.id !== 'string' || !SLUG.test(program.id) || program.id.length > 100)) {
    problems.push({ field: 'id', message: 'id must be lower case letters and digits joined by dashes' })
  } else if (program.id !== undefined && RESERVED_PROGRAM_IDS.has(program.id as string)) {
    problems.push({ field: 'id', message: `id "${program.id as string}" is a page of the console: choose another` })
  }
  text(problems, 'name', program.name, PROGRAM_LIMITS.name)
  organisation(problems, 'developer', program.developer)
  organisation(problems, 'publisher', program.publisher)
  const licenseType = program.licenseType
  const known = typeof licenseType === 'string' && licenseType in LICENSE_TYPES
  if (!known) problems.push({ field: 'licenseType', message: `licenseType must be one of: ${Object.keys(LICENSE_TYPES).join(', ')}` })
  const price = program.price
  if (price === null || price === undefined) {
    if (known && !LICENSE_TYPES[licenseType as LicenseType].free) problems.push({ field: 'price', message: `price is required for a ${licenseType as string} licence` })
  } else if (known && LICENSE_TYPES[licenseType as LicenseType].free) {
    problems.push({ field: 'price', message: `price must be null for a ${licenseType as string} licence` })
  } else if (typeof price !== 'object') {
    problems.push({ field: 'price', message: 'price must be { amount, currency, period } or null' })
  } else {
    const { amount, currency, period } = price as Record<string, unknown>
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0 || amount >= 1e10 || Math.round(amount * 100) !== amount * 100) {
      problems.push({ field: 'price.amount', message: 'price.amount must be a positive amount with at most two decimals' })
    }
    if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) problems.push({ field: 'price.currency', message: 'price.currency must be an ISO 4217 code such as EUR' })
    if (!['one-time', 'month', 'year'].includes(period as string)) problems.push({ field: 'price.period', message: 'price.period must be one of: one-time, month, year' })
  }
  list(problems, 'categories', program.categories, PROGRAM_CATEGORIES, `one of: ${PROGRAM_CATEGORIES.join(', ')}`, PROGRAM_LIMITS.categories)
  list(problems, 'platforms', program.platforms, PLATFORMS, `one of: ${PLATFORMS.join(', ')}`)
  list(problems, 'languages', program.languages, (v) => /^[a-z]{2}$/.test(v), 'a two-letter language code (ISO 639-1)', PROGRAM_LIMITS.languages)
  text(problems, 'version', program.version, PROGRAM_LIMITS.version)
  const released = date(problems, 'released', program.released)
  const updated = date(problems, 'updated', program.updated)
  if (released && updated && !mayPrecede(program.released as string, program.updated as string)) {
    problems.push({ field: 'updated', message: 'updated must not be before released' })
  }
  if (!isWebAddress(program.homepage, PROGRAM_LIMITS.homepage, ['https:'])) problems.push({ field: 'homepage', message: 'homepage must be an https:// address' })
  externalIdProblems(problems, program.externalIds)
  const texts = program.texts
  if (typeof texts !== 'object' || texts === null || Array.isArray(texts)) {
    problems.push({ field: 'texts.en', message: 'texts.en is required' })
  } else {
    if (!('en' in texts)) problems.push({ field: 'texts.en', message: 'texts.en is required' })
    for (const [locale, entry] of Object.entries(texts)) {
      if (!(LOCALES as readonly string[]).includes(locale)) {
        problems.push({ field: `texts.${locale}`, message: `texts.${locale}: texts are written in ${LOCALES.join(', ')}` })
        continue
      }
      if (typeof entry !== 'object' || entry === null) {
        problems.push({ field: `texts.${locale}`, message: `texts.${locale} must be { summary, description }` })
        continue
      }
      text(problems, `texts.${locale}.summary`, (entry as Record<string, unknown>).summary, PROGRAM_LIMITS.summary)
      text(problems, `texts.${locale}.description`, (entry as Record<string, unknown>).description, PROGRAM_LIMITS.description)
    }
  }
  return problems
}

const ORGANISATION_KEYS = ['id', 'name']
const PRICE_KEYS = ['amount', 'currency', 'period']
const TEXT_KEYS = ['summary', 'description']

/**
 * Fields a body has that a program does not (`rating`, `texts.it`, `price.tax`): named, so a typo
 * is refused rather than dropped. `extra` are the body's own other keys (`baseRevision`).
 */
export function strayFields(body: unknown, extra: readonly string[] = []): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return []
  const stray: string[] = []
  const within = (value: unknown, path: string, keys: readonly string[]) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return
    for (const key of Object.keys(value)) if (!keys.includes(key)) stray.push(`${path}.${key}`)
  }
  for (const key of Object.keys(body)) if (![...EDITABLE_FIELDS, 'id', ...extra].includes(key)) stray.push(key)
  const program = body as Record<string, unknown>
  within(program.developer, 'developer', ORGANISATION_KEYS)
  within(program.publisher, 'publisher', ORGANISATION_KEYS)
  within(program.price, 'price', PRICE_KEYS)
  within(program.texts, 'texts', LOCALES)
  within(program.externalIds, 'externalIds', EXTERNAL_CATALOGUES)
  if (typeof program.texts === 'object' && program.texts !== null) {
    for (const [locale, entry] of Object.entries(program.texts)) if ((LOCALES as readonly string[]).includes(locale)) within(entry, `texts.${locale}`, TEXT_KEYS)
  }
  return stray
}
