import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { PROGRAM_CATEGORIES } from '../../../shared/catalogue/catalogue.ts'
import { LICENSE_TYPE_IDS, PLATFORMS } from '../../../shared/catalogue/vocabulary.ts'
import { LOCALES } from '../../../shared/locales.ts'
import { PARTIAL_DATE_PATTERN } from '../../../shared/catalogue/partial-dates.ts'
import { EDITABLE_FIELDS, PROGRAM_LIMITS, PROGRAM_SLUG_PATTERN, strayFields, type EditableField } from '../../../shared/catalogue/program-editor.ts'
import { createProgram, listPrograms, programRevisions, readProgram, retireProgram, revertProgram, updateProgram, validationError, type WriteContext } from '../catalogue/program-editor.ts'
import { ApiCatalogueNotFound } from '../errors.ts'
import { ExternalIdsSchema } from '../../../shared/catalogue/program-schemas.ts'
import { StringEnum } from '../../../shared/web/string-enum.ts'
import type { OperatorRoutesOptions } from './options.ts'

// Programs: the editors' catalogue. GET/POST /api/operator/programs, GET/PATCH/DELETE
// /api/operator/programs/{id} (a change carries the revision it was made on: 409 when someone
// else's came first), the history and the revert. The rules of a program as written are
// shared/catalogue/program-editor.ts's; every write is audited in its own transaction (program-editor.ts).

const Texts = Type.Object({ summary: Type.String({ maxLength: PROGRAM_LIMITS.summary }), description: Type.String({ maxLength: PROGRAM_LIMITS.description }) })
const Organisation = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: PROGRAM_SLUG_PATTERN, maxLength: PROGRAM_LIMITS.organisation, description: "The catalogue's id; absent or unknown: a new one is made." })),
    name: Type.String({ maxLength: PROGRAM_LIMITS.organisation }),
  },
  { additionalProperties: false },
)
const Price = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0, description: 'At most two decimals.' }),
    currency: Type.String({ description: 'ISO 4217, e.g. "EUR".' }),
    period: StringEnum(['one-time', 'month', 'year'] as const),
  },
  { additionalProperties: false },
)
const PartialDate = (what: string) => Type.String({ pattern: PARTIAL_DATE_PATTERN, description: `${what}: "YYYY", "YYYY-MM" or "YYYY-MM-DD".` })

/** The program as written: every field but `id` and `texts`' other languages is required in a create. */
const writtenFields = {
  name: Type.String({ maxLength: PROGRAM_LIMITS.name }),
  developer: Organisation,
  publisher: Organisation,
  licenseType: StringEnum(LICENSE_TYPE_IDS),
  price: Type.Union([Price, Type.Null()], { description: 'Null exactly for a free licence type (freeware, open-source, freemium).' }),
  categories: Type.Array(StringEnum(PROGRAM_CATEGORIES), { minItems: 1, maxItems: PROGRAM_LIMITS.categories, description: 'The primary category first.' }),
  platforms: Type.Array(StringEnum(PLATFORMS), { minItems: 1 }),
  languages: Type.Array(Type.String({ pattern: '^[a-z]{2}$' }), { minItems: 1, maxItems: PROGRAM_LIMITS.languages }),
  version: Type.String({ maxLength: PROGRAM_LIMITS.version }),
  updated: PartialDate("The current version's release"),
  released: PartialDate('The first release'),
  homepage: Type.String({ maxLength: PROGRAM_LIMITS.homepage, description: 'An https:// address.' }),
}
const textsOf = (other: TSchema) =>
  Type.Object(
    Object.fromEntries(LOCALES.map((locale) => [locale, locale === 'en' ? Texts : Type.Optional(other)])),
    { additionalProperties: false, description: 'Summary and description per language: English required, the others optional (English is shown where one is missing).' },
  )

const ProgramBody = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: PROGRAM_SLUG_PATTERN, maxLength: 100, description: 'Made from the name when absent.' })),
    ...writtenFields,
    texts: textsOf(Texts),
    externalIds: Type.Optional(ExternalIdsSchema),
  },
  { additionalProperties: false },
)

const PatchBody = Type.Object(
  {
    baseRevision: Type.Integer({ minimum: 0, description: 'The revision the change was made on (`revision` of the program as read).' }),
    ...Object.fromEntries(Object.entries(writtenFields).map(([field, schema]) => [field, Type.Optional(schema)])),
    texts: Type.Optional(
      Type.Object(
        Object.fromEntries(LOCALES.map((locale) => [locale, Type.Optional(locale === 'en' ? Texts : Type.Union([Texts, Type.Null()]))])),
        { additionalProperties: false, description: 'Only the languages that change: a language given replaces its texts, null removes them (not English).' },
      ),
    ),
    externalIds: Type.Optional(ExternalIdsSchema),
  },
  { additionalProperties: false },
)

const EditorProgram = Type.Object({
  id: Type.String(),
  ...writtenFields,
  developer: Type.Object({ id: Type.String(), name: Type.String() }),
  publisher: Type.Object({ id: Type.String(), name: Type.String() }),
  texts: textsOf(Texts),
  revision: Type.Integer({ description: 'Send it back as `baseRevision` with a change.' }),
  retired: Type.Boolean(),
  retiredAt: Type.Union([Type.String(), Type.Null()], { description: 'When it was retired (ISO 8601), or null.' }),
  externalIds: ExternalIdsSchema,
})

const Change = Type.Object({ before: Type.Unknown(), after: Type.Unknown() })
const Revision = Type.Object({
  revision: Type.Integer(),
  at: Type.String({ description: 'ISO 8601.' }),
  actor: Type.Object({ id: Type.String(), email: Type.String() }),
  action: StringEnum(['create', 'update', 'revert', 'retire', 'release'] as const),
  changes: Type.Record(Type.String(), Change, { description: 'The fields this revision changed; a language\'s texts as `texts.<locale>`, a retirement as `retired`.' }),
})

const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) })

/** Ajv's first problem, named as the body spells the field: `texts.de.summary`, `categories[1]`, `price.currency`. */
export function fieldErrors(errors: Array<{ keyword: string; instancePath: string; message?: string; params: Record<string, unknown> }>, dataVar: string): Error {
  const issue = errors[0]
  if (!issue) return validationError([{ field: dataVar, message: `${dataVar} is invalid` }])
  let field = issue.instancePath
    .split('/')
    .filter((part) => part !== '')
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '')
  if (issue.keyword === 'required') field = field === '' ? String(issue.params.missingProperty) : `${field}.${String(issue.params.missingProperty)}`
  if (issue.keyword === 'additionalProperties') {
    const extra = String(issue.params.additionalProperty)
    return validationError([{ field: field === '' ? extra : `${field}.${extra}`, message: `${field === '' ? extra : `${field}.${extra}`} is not a field of a program` }])
  }
  if (field === '') field = dataVar
  const message =
    issue.keyword === 'enum'
      ? `${field} must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`
      : issue.keyword === 'required'
        ? `${field} is required`
        : `${field} ${issue.message ?? 'is invalid'}`
  return validationError([{ field, message }])
}

/** Ajv drops what a schema does not name; a program's field spelt wrong must be refused instead, and named. */
function refuseStrayFields(extra: readonly string[] = []) {
  return async (request: FastifyRequest): Promise<void> => {
    const stray = strayFields(request.body, extra)
    if (stray.length > 0) throw validationError(stray.map((field) => ({ field, message: `${field} is not a field of a program` })))
  }
}

async function programsRoutes(plugin: FastifyInstance, opts: OperatorRoutesOptions): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db
  const context = (request: FastifyRequest): WriteContext => ({ actor: request.operator!, requestId: request.id })

  app.get(
    '/api/operator/programs',
    {
      schema: {
        querystring: Type.Object(
          { q: Type.Optional(Type.String({ maxLength: 100 })), page: Type.Integer({ minimum: 1, maximum: 10_000, default: 1 }), pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 50 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(EditorProgram), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer() }) },
      },
    },
    async (request) => listPrograms(db, request.query),
  )

  app.post(
    '/api/operator/programs',
    {
      preValidation: refuseStrayFields(),
      schema: { body: ProgramBody, response: { 201: Type.Object({ id: Type.String(), revision: Type.Integer() }) } },
      schemaErrorFormatter: fieldErrors,
    },
    async (request, reply) => {
      const created = await createProgram(db, request.body as Record<string, unknown>, context(request))
      request.log.info({ event: 'program-created', programId: created.id }, 'a program was added to the catalogue')
      return reply.code(201).send(created)
    },
  )

  app.get('/api/operator/programs/:id', { schema: { params: Params, response: { 200: EditorProgram } } }, async (request) => {
    const program = await readProgram(db, request.params.id)
    if (!program) throw new ApiCatalogueNotFound('program', request.params.id)
    return program
  })

  app.patch(
    '/api/operator/programs/:id',
    {
      preValidation: refuseStrayFields(['baseRevision']),
      schema: { params: Params, body: PatchBody, response: { 200: Type.Object({ revision: Type.Integer() }) } },
      schemaErrorFormatter: fieldErrors,
    },
    async (request) => {
      const { baseRevision, ...rest } = request.body as { baseRevision: number } & Record<string, unknown>
      const fields = Object.fromEntries(Object.entries(rest).filter(([field]) => (EDITABLE_FIELDS as readonly string[]).includes(field))) as Partial<Record<EditableField, unknown>>
      if (Object.keys(fields).length === 0) throw validationError([{ field: 'body', message: `Name at least one field to change: ${EDITABLE_FIELDS.join(', ')}` }])
      return updateProgram(db, request.params.id, baseRevision, fields, context(request))
    },
  )

  app.delete(
    '/api/operator/programs/:id',
    { schema: { params: Params, response: { 200: Type.Object({ revision: Type.Integer(), retired: Type.Literal(true), retiredAt: Type.String() }) } } },
    async (request) => {
      const retired = await retireProgram(db, request.params.id, context(request), new Date(opts.now()))
      return { revision: retired.revision, retired: true as const, retiredAt: retired.retiredAt }
    },
  )

  app.get('/api/operator/programs/:id/revisions', { schema: { params: Params, response: { 200: Type.Array(Revision) } } }, async (request) => {
    const revisions = await programRevisions(db, request.params.id)
    if (!revisions) throw new ApiCatalogueNotFound('program', request.params.id)
    return revisions
  })

  app.post(
    '/api/operator/programs/:id/revert',
    {
      schema: {
        params: Params,
        body: Type.Object(
          {
            revision: Type.Integer({ minimum: 1, description: 'The revision to go back to.' }),
            baseRevision: Type.Integer({ minimum: 0, description: 'The current revision as the editor saw it: 409 when it is not.' }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ revision: Type.Integer() }) },
      },
      schemaErrorFormatter: fieldErrors,
    },
    async (request) => revertProgram(db, request.params.id, request.body.revision, request.body.baseRevision, context(request)),
  )
}

export default fp(programsRoutes, { name: 'operator-programs-routes', encapsulate: true, decorators: { fastify: ['db'] } })
