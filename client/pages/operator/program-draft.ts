import { type LicenseType, type Platform, type ProgramCategory } from '../../../shared/catalogue/catalogue.ts'
import type { Price } from '../../../shared/catalogue/program-schemas.ts'
import { LICENSE_TYPES } from '../../../shared/catalogue/vocabulary.ts'
import { EXTERNAL_CATALOGUES, type ExternalCatalogue } from '../../../shared/catalogue/living.ts'
import { LOCALES, type Locale } from '../../../shared/locales.ts'
import { EDITABLE_FIELDS, normalisedExternalIds, type EditableField, type EditorProgram, type ProgramAsWritten, type ProgramTexts } from '../../../shared/catalogue/program-editor.ts'

// The console's program editor works on a draft: the program as its inputs hold it
// (strings, as typed). From the draft come the body of a create, the fields of a change (only
// those that differ from the revision the editor started on), and, after a conflict, the draft
// that keeps the editor's own changes on top of the other editor's revision.

export interface Draft {
  name: string
  /** The catalogue's id and name of the developer as loaded: the id is sent while the name is unchanged. */
  developerId: string
  developerLoaded: string
  developer: string
  publisherId: string
  publisherLoaded: string
  publisher: string
  licenseType: LicenseType
  priceAmount: string
  priceCurrency: string
  pricePeriod: Price['period']
  categories: ProgramCategory[]
  platforms: Platform[]
  /** Two-letter codes separated by commas or spaces. */
  languages: string
  version: string
  updated: string
  released: string
  homepage: string
  texts: Record<Locale, ProgramTexts>
  /** The ids in other catalogues as typed ("" for none). */
  externalIds: Record<ExternalCatalogue, string>
}

const emptyExternalIds = (): Record<ExternalCatalogue, string> => Object.fromEntries(EXTERNAL_CATALOGUES.map((catalogue) => [catalogue, ''])) as Record<ExternalCatalogue, string>

const emptyTexts = (): Record<Locale, ProgramTexts> => Object.fromEntries(LOCALES.map((locale) => [locale, { summary: '', description: '' }])) as Record<Locale, ProgramTexts>

export function emptyDraft(): Draft {
  return {
    name: '',
    developerId: '',
    developerLoaded: '',
    developer: '',
    publisherId: '',
    publisherLoaded: '',
    publisher: '',
    licenseType: 'freeware',
    priceAmount: '',
    priceCurrency: 'EUR',
    pricePeriod: 'one-time',
    categories: [],
    platforms: [],
    languages: 'en',
    version: '',
    updated: '',
    released: '',
    homepage: 'https://',
    texts: emptyTexts(),
    externalIds: emptyExternalIds(),
  }
}

export function draftOf(program: EditorProgram): Draft {
  const texts = emptyTexts()
  for (const locale of LOCALES) {
    const entry = program.texts[locale]
    if (entry) texts[locale] = { summary: entry.summary, description: entry.description }
  }
  return {
    name: program.name,
    developerId: program.developer.id,
    developerLoaded: program.developer.name,
    developer: program.developer.name,
    publisherId: program.publisher.id,
    publisherLoaded: program.publisher.name,
    publisher: program.publisher.name,
    licenseType: program.licenseType,
    priceAmount: program.price ? String(program.price.amount) : '',
    priceCurrency: program.price?.currency ?? 'EUR',
    pricePeriod: program.price?.period ?? 'one-time',
    categories: [...program.categories],
    platforms: [...program.platforms],
    languages: program.languages.join(', '),
    version: program.version,
    updated: program.updated,
    released: program.released,
    homepage: program.homepage,
    texts,
    externalIds: { ...emptyExternalIds(), ...program.externalIds },
  }
}

export const isFreeLicence = (licenseType: LicenseType): boolean => LICENSE_TYPES[licenseType].free

/** Whether a language has any text in the draft (English must; the others may be empty). */
export const hasText = (draft: Draft, locale: Locale): boolean => draft.texts[locale].summary.trim() !== '' || draft.texts[locale].description.trim() !== ''

/** A price amount as typed ("12,50" too); NaN when it is not a number, so the API names the field. */
function amountOf(typed: string): number {
  const trimmed = typed.trim().replace(',', '.')
  return trimmed === '' ? Number.NaN : Number(trimmed)
}

/** The program as written (the API's shape) from a draft: what a create sends. */
export function writtenOf(draft: Draft): ProgramAsWritten {
  const texts: Record<string, ProgramTexts> = {}
  for (const locale of LOCALES) {
    if (locale === 'en' || hasText(draft, locale)) texts[locale] = { summary: draft.texts[locale].summary.trim(), description: draft.texts[locale].description.trim() }
  }
  const organisation = (id: string, name: string, loaded: string) => (id !== '' && name.trim() === loaded ? { id, name: name.trim() } : { name: name.trim() })
  return {
    name: draft.name.trim(),
    developer: organisation(draft.developerId, draft.developer, draft.developerLoaded),
    publisher: organisation(draft.publisherId, draft.publisher, draft.publisherLoaded),
    licenseType: draft.licenseType,
    price: isFreeLicence(draft.licenseType) ? null : { amount: amountOf(draft.priceAmount), currency: draft.priceCurrency.trim().toUpperCase(), period: draft.pricePeriod },
    categories: [...draft.categories],
    platforms: [...draft.platforms],
    languages: draft.languages
      .split(/[\s,;]+/)
      .map((code) => code.trim().toLowerCase())
      .filter((code) => code !== ''),
    version: draft.version.trim(),
    updated: draft.updated.trim(),
    released: draft.released.trim(),
    homepage: draft.homepage.trim(),
    texts: texts as ProgramAsWritten['texts'],
    externalIds: normalisedExternalIds(Object.fromEntries(EXTERNAL_CATALOGUES.map((catalogue) => [catalogue, draft.externalIds[catalogue].trim()]))),
  }
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * The fields of a change: those of `draft` that differ from `base` (the revision the editor
 * started on). Texts name only the languages that changed; a language emptied is null (removed).
 */
export function changesOf(base: Draft, draft: Draft): Partial<Record<EditableField, unknown>> {
  const before = writtenOf(base)
  const after = writtenOf(draft)
  const changes: Partial<Record<EditableField, unknown>> = {}
  for (const field of Object.keys(after) as Array<keyof ProgramAsWritten>) {
    if (field === 'id' || field === 'texts') continue
    if (!same(before[field], after[field])) changes[field] = after[field]
  }
  const texts: Record<string, ProgramTexts | null> = {}
  for (const locale of LOCALES) {
    const was = (before.texts as Record<string, ProgramTexts | undefined>)[locale] ?? null
    const now = (after.texts as Record<string, ProgramTexts | undefined>)[locale] ?? null
    if (!same(was, now)) texts[locale] = now
  }
  if (Object.keys(texts).length > 0) changes.texts = texts
  return changes
}

/** The draft's fields an editor can see as one thing: what a conflict lists and merges — the editable fields, each language's texts apart. */
export type DraftPart = Exclude<EditableField, 'texts'> | `texts.${Locale}`
export const DRAFT_PARTS: readonly DraftPart[] = [
  ...EDITABLE_FIELDS.filter((field): field is Exclude<EditableField, 'texts'> => field !== 'texts'),
  ...LOCALES.map((locale) => `texts.${locale}` as const),
]

/** A part's value in a draft, comparable and printable. */
export function partOf(draft: Draft, part: DraftPart): unknown {
  const written = writtenOf(draft)
  if (part.startsWith('texts.')) {
    const locale = part.slice(6) as Locale
    return hasText(draft, locale) || locale === 'en' ? written.texts[locale as 'en'] : null
  }
  if (part === 'developer' || part === 'publisher') return written[part].name
  return written[part as keyof ProgramAsWritten]
}

/** The parts in which two drafts differ. */
export function partsChanged(a: Draft, b: Draft): DraftPart[] {
  return DRAFT_PARTS.filter((part) => !same(partOf(a, part), partOf(b, part)))
}

/**
 * After a conflict: their revision with the editor's own changes on top. A part the editor
 * changed keeps the editor's value; every other part is theirs, so saving again changes only
 * what the editor changed.
 */
export function mergeDrafts(base: Draft, mine: Draft, theirs: Draft): Draft {
  const merged: Draft = { ...theirs, texts: { ...theirs.texts } }
  for (const part of partsChanged(base, mine)) {
    if (part.startsWith('texts.')) {
      const locale = part.slice(6) as Locale
      merged.texts[locale] = { ...mine.texts[locale] }
    } else if (part === 'developer') {
      Object.assign(merged, { developer: mine.developer, developerId: mine.developerId, developerLoaded: mine.developerLoaded })
    } else if (part === 'publisher') {
      Object.assign(merged, { publisher: mine.publisher, publisherId: mine.publisherId, publisherLoaded: mine.publisherLoaded })
    } else if (part === 'price') {
      Object.assign(merged, { priceAmount: mine.priceAmount, priceCurrency: mine.priceCurrency, pricePeriod: mine.pricePeriod })
    } else {
      Object.assign(merged, { [part]: mine[part as keyof Draft] })
    }
  }
  return merged
}

/**
 * Where an error the API names belongs: `texts.de.summary` → the German summary, `categories[1]`
 * → the categories, `developer.name` → the developer, `price.amount` → the price's amount.
 */
export function errorTarget(field: string): string {
  const path = field.replace(/\[\d+\]/g, '')
  if (path.startsWith('texts.')) {
    const [, locale, which] = path.split('.')
    return which ? `texts.${locale}.${which}` : `texts.${locale}.summary`
  }
  if (path.startsWith('developer') || path.startsWith('publisher')) return path.split('.')[0]!
  if (path === 'price') return 'price.amount'
  return path
}
