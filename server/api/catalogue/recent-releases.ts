import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { PROGRAM_CATEGORIES } from '../../../shared/catalogue/catalogue.ts'
import { ATOM_FEED_ENTRIES } from '../../../shared/catalogue/living.ts'
import { RecentRelease } from '../../../shared/catalogue/living-schemas.ts'
import { ApiCatalogueNotFound } from '../errors.ts'

// The newest releases of the whole catalogue, or of one category: what the Atom feeds
// (/feeds/releases.atom, /feeds/category/{id}.atom, the BFF's) list. Public: registered in the
// catalogue's scope, so its answers are cached like the catalogue's, keyed by its version.

interface ReleaseRow {
  program_id: string
  program_name: string
  version: string
  released_on: string
  released_precision: 'year' | 'month' | 'day'
  notes_url: string | null
  source: string
  recorded_at: Date | string
}

export function recentReleasesRoute(plugin: FastifyInstance): void {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/api/releases',
    {
      schema: {
        description: 'The newest releases of programs in the catalogue (retired ones left out), newest first: by release date, then by when recorded.',
        querystring: Type.Object(
          {
            category: Type.Optional(Type.String({ maxLength: 100, description: `Only programs of this category (any of theirs): ${PROGRAM_CATEGORIES.join(', ')}. An unknown one is a 404.` })),
            limit: Type.Integer({ minimum: 1, maximum: ATOM_FEED_ENTRIES, default: ATOM_FEED_ENTRIES }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(RecentRelease) }) },
      },
    },
    async (request) => {
      const { category, limit } = request.query
      if (category !== undefined && !(PROGRAM_CATEGORIES as readonly string[]).includes(category)) throw new ApiCatalogueNotFound('category', category)
      const { rows } = await app.db.query<ReleaseRow>(
        `SELECT r.program_id, p.name AS program_name, r.version, r.released_on::text AS released_on, r.released_precision, r.notes_url, r.source, r.recorded_at
           FROM api.program_releases r JOIN api.programs p ON p.id = r.program_id
          WHERE p.retired_at IS NULL
            AND ($1::text IS NULL OR EXISTS (SELECT 1 FROM api.program_categories pc WHERE pc.program_id = p.id AND pc.category_id = $1))
          ORDER BY r.released_on DESC, r.recorded_at DESC, r.program_id, r.version
          LIMIT $2`,
        [category ?? null, limit],
      )
      const items: RecentRelease[] = rows.map((row) => ({
        programId: row.program_id,
        programName: row.program_name,
        version: row.version,
        date: row.released_precision === 'year' ? row.released_on.slice(0, 4) : row.released_precision === 'month' ? row.released_on.slice(0, 7) : row.released_on.slice(0, 10),
        ...(row.notes_url ? { notesUrl: row.notes_url } : {}),
        source: row.source,
        recordedAt: new Date(row.recorded_at).toISOString(),
      }))
      return { items }
    },
  )
}
