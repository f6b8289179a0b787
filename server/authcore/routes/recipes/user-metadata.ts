import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { JsonObject } from '../../body-schema.ts'
import type { CoreServices } from '../../services.ts'
import { query } from '../../input.ts'

// UserMetadata: a user's JSON object, merged shallowly (AUTH-CORE.md §3.6, §5.8).

export default async function userMetadataRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { db } = services

  app.get('/recipe/user/metadata', async (request) => {
    const { rows } = await db.query<{ metadata: Record<string, unknown> }>('SELECT metadata FROM authcore.user_metadata WHERE app_id = $1 AND user_id = $2', [
      request.core.appId,
      query.string(request.query, 'userId'),
    ])
    return { status: 'OK', metadata: rows[0]?.metadata ?? {} }
  })

  // §5.8: a shallow merge; a key set to null is removed.
  app.put('/recipe/user/metadata', { schema: { body: Type.Object({ userId: Type.String(), metadataUpdate: JsonObject }) } }, async (request) => {
    const input = request.body
    const userId = input.userId
    const update = input.metadataUpdate
    const { appId } = request.core
    const metadata = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:authcore:metadata:${appId}:${userId}`])
      const { rows } = await tx.query<{ metadata: Record<string, unknown> }>('SELECT metadata FROM authcore.user_metadata WHERE app_id = $1 AND user_id = $2', [appId, userId])
      const merged: Record<string, unknown> = { ...(rows[0]?.metadata ?? {}) }
      for (const [key, value] of Object.entries(update)) {
        delete merged[key]
        if (value !== null) merged[key] = value
      }
      await tx.query(
        'INSERT INTO authcore.user_metadata (app_id, user_id, metadata) VALUES ($1, $2, $3) ON CONFLICT (app_id, user_id) DO UPDATE SET metadata = EXCLUDED.metadata',
        [appId, userId, JSON.stringify(merged)],
      )
      return merged
    })
    return { status: 'OK', metadata }
  })

  app.post('/recipe/user/metadata/remove', { schema: { body: Type.Object({ userId: Type.String() }) } }, async (request) => {
    await db.query('DELETE FROM authcore.user_metadata WHERE app_id = $1 AND user_id = $2', [request.core.appId, request.body.userId])
    return { status: 'OK' }
  })
}
