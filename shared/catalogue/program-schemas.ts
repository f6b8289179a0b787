import { Type, type Static, type TOptional, type TString } from 'typebox'
import { LOCALES } from '../locales.ts'
import { StringEnum } from '../web/string-enum.ts'
import { PROGRAM_CATEGORIES } from './catalogue.ts'
import { EXTERNAL_CATALOGUES, EXTERNAL_ID_MAX_LENGTH, type ExternalCatalogue } from './living.ts'
import { DATE_PRECISIONS, PARTIAL_DATE_PATTERN } from './partial-dates.ts'
import { LICENSE_TYPE_IDS, PLATFORMS } from './vocabulary.ts'

// The catalogue's program answers as schemas (docs/API.md "Catalogue"): the API validates and
// documents them with these, and the pages' types are derived from them — one definition. The
// pages import only the types (erased from their bundles), never these values.

export const NamedRef = Type.Object({ id: Type.String(), name: Type.String() })
export type NamedRef = Static<typeof NamedRef>

/** A date says only what is known of it. */
export const PartialDate = (what: string) =>
  Type.String({ pattern: PARTIAL_DATE_PATTERN, description: `${what}, only as precisely as it is known: "YYYY", "YYYY-MM" or "YYYY-MM-DD" (ISO 8601).` })
const Precision = (field: string) => StringEnum(DATE_PRECISIONS, { description: `How much of \`${field}\` is known.` })

export const Price = Type.Object({ amount: Type.Number(), currency: Type.String({ description: 'ISO 4217, e.g. "EUR".' }), period: StringEnum(['one-time', 'month', 'year'] as const) })
export type Price = Static<typeof Price>

/** The ids in other catalogues, each optional (shared/catalogue/living.ts's patterns are checked by programProblems, naming the field). */
export const ExternalIdsSchema = Type.Object(
  Object.fromEntries(EXTERNAL_CATALOGUES.map((catalogue) => [catalogue, Type.Optional(Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX_LENGTH }))])) as Record<ExternalCatalogue, TOptional<TString>>,
  {
    additionalProperties: false,
    description: 'The ids the program has in other catalogues, each optional: `flathub` (app id, e.g. "org.blender.Blender"), `winget` (package id, e.g. "BlenderFoundation.Blender"), `homebrew` (cask or formula, e.g. "blender"). One program per id.',
  },
)

const summaryProperties = {
  id: Type.String(),
  name: Type.String(),
  summary: Type.String({ description: 'In the language of Accept-Language where translated, else English.' }),
  textLanguage: StringEnum(LOCALES, { description: 'The language `summary` (and `description`) is written in: the one asked for, or `en`.' }),
  developer: NamedRef,
  publisher: NamedRef,
  licenseType: StringEnum(LICENSE_TYPE_IDS),
  isFree: Type.Boolean(),
  price: Type.Union([Price, Type.Null()], { description: 'Null for a free program.' }),
  categories: Type.Array(StringEnum(PROGRAM_CATEGORIES), { description: 'The primary category first.' }),
  platforms: Type.Array(StringEnum(PLATFORMS)),
  languages: Type.Array(Type.String()),
  version: Type.String(),
  updated: PartialDate("The current version's release"),
  updatedPrecision: Precision('updated'),
  popularity: Type.Integer({ minimum: 0, maximum: 100 }),
  retired: Type.Optional(Type.Literal(true, { description: 'Retired by the editors. Only in a library (GET /api/user/programs), which keeps it; absent otherwise.' })),
}

export const ProgramSummary = Type.Object(summaryProperties)
export type ProgramSummary = Static<typeof ProgramSummary>

/** A page of programs: the public listing and the personal library. */
export const ProgramPage = Type.Object({ items: Type.Array(ProgramSummary), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer() })
export type ProgramPage = Static<typeof ProgramPage>

/** A screenshot as the public program carries it. */
export const ProgramScreenshot = Type.Object({
  id: Type.String(),
  width: Type.Integer({ description: "The widest file's size: for the width and height attributes." }),
  height: Type.Integer(),
  alt: Type.String({ description: 'In the answer\'s language, else English; "" when none was given.' }),
  srcset: Type.Array(Type.Object({ url: Type.String({ description: 'GET /api/screenshots/{file}: WebP, cached for ever.' }), width: Type.Integer() }), { description: 'Narrowest first, at most the widths 280, 560, 840, 1120, 1400, 1680.' }),
})
export type ProgramScreenshot = Static<typeof ProgramScreenshot>

export const ProgramDetail = Type.Object({
  ...summaryProperties,
  description: Type.String(),
  homepage: Type.String(),
  released: PartialDate('The first release'),
  releasedPrecision: Precision('released'),
  moreFromDeveloper: Type.Array(ProgramSummary),
  related: Type.Array(ProgramSummary),
  forSale: Type.Boolean({ description: 'Paid, and card checkout is configured: a signed-in user can buy it (POST /api/user/checkout).' }),
  screenshots: Type.Array(ProgramScreenshot, { description: "Up to 8, in the editors' order." }),
  externalIds: ExternalIdsSchema,
  alternatives: Type.Array(ProgramSummary, { description: 'For a paid program (its licence type not free), up to 6 free programs of its primary category, most popular first; empty for a free one.' }),
})
export type ProgramDetail = Static<typeof ProgramDetail>
