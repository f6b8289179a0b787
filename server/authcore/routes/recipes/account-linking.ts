import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Queryable } from '../../../db/database.ts'
import type { CoreServices } from '../../services.ts'
import { BadRequest, query } from '../../input.ts'
import { findRecipeUser, getUser, type UserRow } from '../../users.ts'

// AccountLinking: primary users and the login methods linked to them (AUTH-CORE.md §3.10).

export default async function accountLinkingRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { db } = services

  const recipeUserOr400 = async (tx: Queryable, appId: string, userId: string): Promise<UserRow> => {
    const row = await findRecipeUser(tx, appId, userId)
    if (!row) throw new BadRequest('Unknown user id')
    return row
  }

  /** Another primary user that already owns this login method's email or provider account. */
  const conflictingPrimary = async (tx: Queryable, appId: string, row: UserRow, exceptPrimary: string | null): Promise<string | null> => {
    const { rows } = await tx.query<{ primary_user_id: string }>(
      `SELECT primary_user_id FROM authcore.users
        WHERE app_id = $1 AND is_linked_or_primary AND primary_user_id <> $2 AND primary_user_id <> coalesce($3, '')
          AND ((email IS NOT NULL AND email = $4) OR (third_party_id = $5 AND third_party_user_id = $6))
        LIMIT 1`,
      [appId, row.primary_user_id, exceptPrimary, row.email, row.third_party_id, row.third_party_user_id],
    )
    return rows[0]?.primary_user_id ?? null
  }

  const accountInfoTaken = (primaryUserId: string) => ({
    status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR' as const,
    primaryUserId,
    description: 'This user\'s email is already associated with another user ID',
  })

  const primaryCheck = async (tx: Queryable, appId: string, recipeUserId: string) => {
    const row = await recipeUserOr400(tx, appId, recipeUserId)
    if (row.is_linked_or_primary) {
      if (row.primary_user_id === row.user_id) return { status: 'OK' as const, wasAlreadyAPrimaryUser: true, row }
      return {
        status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR' as const,
        primaryUserId: row.primary_user_id,
        description: 'This user ID is already linked to another user ID',
      }
    }
    const other = await conflictingPrimary(tx, appId, row, null)
    if (other) return accountInfoTaken(other)
    return { status: 'OK' as const, wasAlreadyAPrimaryUser: false, row }
  }

  app.get('/recipe/accountlinking/user/primary/check', async (request) => {
    const result = await primaryCheck(db, request.core.appId, query.string(request.query, 'recipeUserId'))
    return result.status === 'OK' ? { status: 'OK', wasAlreadyAPrimaryUser: result.wasAlreadyAPrimaryUser } : result
  })

  app.post('/recipe/accountlinking/user/primary', { schema: { body: Type.Object({ recipeUserId: Type.String() }) } }, async (request) => {
    const recipeUserId = request.body.recipeUserId
    const { appId } = request.core
    return db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:authcore:linking:${appId}`])
      const check = await primaryCheck(tx, appId, recipeUserId)
      if (check.status !== 'OK') return check
      if (!check.wasAlreadyAPrimaryUser) await tx.query('UPDATE authcore.users SET is_linked_or_primary = true WHERE app_id = $1 AND user_id = $2', [appId, recipeUserId])
      return { status: 'OK', wasAlreadyAPrimaryUser: check.wasAlreadyAPrimaryUser, user: await getUser(tx, appId, recipeUserId) }
    })
  })

  const linkCheck = async (tx: Queryable, appId: string, recipeUserId: string, primaryUserId: string) => {
    const row = await recipeUserOr400(tx, appId, recipeUserId)
    const primary = await findRecipeUser(tx, appId, primaryUserId)
    if (!primary || !primary.is_linked_or_primary || primary.primary_user_id !== primaryUserId) {
      return { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' as const, description: 'The input primary user ID is not a primary user' }
    }
    if (row.is_linked_or_primary) {
      if (row.primary_user_id === primaryUserId) return { status: 'OK' as const, accountsAlreadyLinked: true }
      return {
        status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR' as const,
        primaryUserId: row.primary_user_id,
        description: 'The input recipe user ID is already linked to another user ID',
      }
    }
    const other = await conflictingPrimary(tx, appId, row, primaryUserId)
    if (other) return accountInfoTaken(other)
    return { status: 'OK' as const, accountsAlreadyLinked: false }
  }

  app.get('/recipe/accountlinking/user/link/check', async (request) =>
    linkCheck(db, request.core.appId, query.string(request.query, 'recipeUserId'), query.string(request.query, 'primaryUserId')),
  )

  app.post('/recipe/accountlinking/user/link', { schema: { body: Type.Object({ recipeUserId: Type.String(), primaryUserId: Type.String() }) } }, async (request) => {
    const input = request.body
    const recipeUserId = input.recipeUserId
    const primaryUserId = input.primaryUserId
    const { appId } = request.core
    return db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:authcore:linking:${appId}`])
      const check = await linkCheck(tx, appId, recipeUserId, primaryUserId)
      if (check.status === 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR') return { ...check, user: await getUser(tx, appId, check.primaryUserId) }
      if (check.status !== 'OK') return check
      if (!check.accountsAlreadyLinked) {
        await tx.query('UPDATE authcore.users SET primary_user_id = $3, is_linked_or_primary = true WHERE app_id = $1 AND user_id = $2', [appId, recipeUserId, primaryUserId])
      }
      return { status: 'OK', accountsAlreadyLinked: check.accountsAlreadyLinked, user: await getUser(tx, appId, primaryUserId) }
    })
  })

  app.post('/recipe/accountlinking/user/unlink', { schema: { body: Type.Object({ recipeUserId: Type.String() }) } }, async (request) => {
    const recipeUserId = request.body.recipeUserId
    const { appId } = request.core
    return db.transaction(async (tx) => {
      const row = await recipeUserOr400(tx, appId, recipeUserId)
      if (!row.is_linked_or_primary) return { status: 'OK', wasRecipeUserDeleted: false, wasLinked: false }
      const others = await tx.query('SELECT 1 FROM authcore.users WHERE app_id = $1 AND primary_user_id = $2 AND user_id <> $3 LIMIT 1', [appId, row.primary_user_id, recipeUserId])
      if (row.primary_user_id === recipeUserId && others.rowCount > 0) {
        // The primary id must keep meaning the remaining accounts: this login method goes instead.
        await tx.query('DELETE FROM authcore.users WHERE app_id = $1 AND user_id = $2', [appId, recipeUserId])
        return { status: 'OK', wasRecipeUserDeleted: true, wasLinked: true }
      }
      await tx.query('UPDATE authcore.users SET primary_user_id = user_id, is_linked_or_primary = false WHERE app_id = $1 AND user_id = $2', [appId, recipeUserId])
      return { status: 'OK', wasRecipeUserDeleted: false, wasLinked: others.rowCount > 0 || row.primary_user_id !== recipeUserId }
    })
  })
}
