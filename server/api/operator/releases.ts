import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { EDITOR_RELEASE_SOURCE } from '../../../shared/catalogue/living.ts'
import { RELEASE_LIMITS, releaseProblems, type ReleaseAsWritten } from '../../../shared/catalogue/program-editor.ts'
import { ApiCatalogueNotFound, ApiReleaseExists } from '../errors.ts'
import { readProgram, validationError } from '../catalogue/program-editor.ts'
import { listReleases } from '../catalogue/release-history.ts'
import { recordRelease } from '../catalogue/releases.ts'
import type { OperatorRoutesOptions } from './options.ts'
import { fieldErrors } from './programs.ts'

// Releases: an editor adds one to a program's history — POST
// /api/operator/programs/{id}/releases. It is a revision of the program (action 'release') with its
// audit entry, in one transaction (server/api/catalogue/releases.ts); the newest release is the program's
// version and "updated", and its watchers hear of it.

const ReleaseBody = Type.Object(
  {
    version: Type.String({ maxLength: RELEASE_LIMITS.version, description: 'The version as its makers write it, e.g. "4.5.1".' }),
    date: Type.String({ maxLength: 10, description: 'The day it was released, "YYYY-MM-DD" (UTC), not in the future.' }),
    notesUrl: Type.Optional(Type.String({ maxLength: RELEASE_LIMITS.notesUrl, description: 'Its release notes: an http:// or https:// address.' })),
  },
  { additionalProperties: false },
)

const RELEASE_KEYS: readonly string[] = ['version', 'date', 'notesUrl']

/** Today on the API's clock, "YYYY-MM-DD" in UTC. */
const today = (now: number): string => new Date(now).toISOString().slice(0, 10)

async function releaseRoutes(plugin: FastifyInstance, opts: OperatorRoutesOptions): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db

  // The console's list: a retired program's too (the public one answers 410 for it), never cached.
  app.get(
    '/api/operator/programs/:id/releases',
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({ version: Type.String(), date: Type.String(), notesUrl: Type.Optional(Type.String()), source: Type.String() }),
              { description: 'Newest first, as GET /api/programs/{id}/releases lists them.' },
            ),
          }),
        },
      },
    },
    async (request) => {
      if (!(await readProgram(db, request.params.id))) throw new ApiCatalogueNotFound('program', request.params.id)
      return { items: await listReleases(db, request.params.id) }
    },
  )

  app.post(
    '/api/operator/programs/:id/releases',
    {
      // Ajv drops what the schema does not name: a field spelt wrong is refused instead, and named.
      preValidation: async (request) => {
        const body = request.body
        if (typeof body !== 'object' || body === null || Array.isArray(body)) return
        const stray = Object.keys(body).filter((key) => !RELEASE_KEYS.includes(key))
        if (stray.length > 0) throw validationError(stray.map((field) => ({ field, message: `${field} is not a field of a release` })))
      },
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: ReleaseBody,
        response: {
          201: Type.Object({
            revision: Type.Integer({ description: "The program's revision that records it." }),
            current: Type.Boolean({ description: "Whether it is now the newest release: the program's version and \"updated\"." }),
          }),
        },
      },
      schemaErrorFormatter: fieldErrors,
    },
    async (request, reply) => {
      const body = request.body as ReleaseAsWritten
      const problems = releaseProblems(body as unknown as Record<string, unknown>, today(opts.now()))
      if (problems.length > 0) throw validationError(problems)
      const id = request.params.id
      const outcome = await db.transaction((tx) =>
        recordRelease(
          tx,
          { programId: id, version: body.version, date: body.date, notesUrl: body.notesUrl, source: EDITOR_RELEASE_SOURCE },
          { actor: request.operator!, requestId: request.id },
        ),
      )
      if (outcome.outcome === 'no-program') throw new ApiCatalogueNotFound('program', id)
      if (outcome.outcome === 'known') throw new ApiReleaseExists(id, body.version.trim())
      request.log.info({ event: 'release-recorded', programId: id, revision: outcome.revision }, 'a release was added to a program')
      return reply.code(201).send({ revision: outcome.revision, current: outcome.current })
    },
  )
}

export default fp(releaseRoutes, { name: 'operator-releases-routes', encapsulate: true, decorators: { fastify: ['db'] } })
