import type { Database } from '../../../db/database.ts'
import { getUser } from '../../users.ts'

// What more than one recipe's routes use.

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505'
}

/** The user as the CDI answers it, which the request has just written. */
export async function userOrFail(db: Database, appId: string, userId: string) {
  const user = await getUser(db, appId, userId)
  if (!user) throw new Error(`user ${userId} vanished during the request`)
  return user
}
