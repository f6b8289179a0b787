import type { FastifyInstance } from 'fastify'
import type { Queryable } from '../../db/database.ts'
import type { CoreServices } from '../services.ts'
import { asObject, BadRequest, body, query } from '../input.ts'
import { hashingKey, hashPassword, verifyPassword } from '../passwords.ts'
import type { CoreSettings } from '../settings.ts'
import { checkPasswordResetToken, consumeEmailVerificationToken, consumePasswordResetToken, createEmailVerificationToken, createPasswordResetToken } from '../tokens.ts'
import {
  createEmailPasswordUser,
  emailHeldByOtherPrimary,
  emailPasswordSignInCandidate,
  findEmailPasswordUser,
  findRecipeUser,
  getUser,
  normaliseEmail,
  thirdPartySignInUp,
  type UserRow,
} from '../users.ts'

// Recipe endpoints (AUTH-CORE.md §3.3–§3.7, §3.10): EmailPassword, EmailVerification,
// ThirdParty, UserMetadata, TOTP and AccountLinking.

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505'
}

export default async function recipeRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { db, totp } = services

  const userOrFail = async (appId: string, userId: string) => {
    const user = await getUser(db, appId, userId)
    if (!user) throw new Error(`user ${userId} vanished during the request`)
    return user
  }

  // --- EmailPassword ---------------------------------------------------------------------------

  app.post('/recipe/signup', async (request) => {
    const input = asObject(request.body)
    const email = normaliseEmail(body.string(input, 'email'))
    const password = body.string(input, 'password')
    if (password === '') throw new BadRequest('Password cannot be an empty string')
    const hash = await hashPassword(password, request.core.settings)
    let userId: string | null
    try {
      userId = await db.transaction((tx) => createEmailPasswordUser(tx, request.core.appId, request.core.tenantId, email, hash))
    } catch (error) {
      // Two sign-ups with one email at once: the unique index lets one through.
      if (!isUniqueViolation(error)) throw error
      userId = null
    }
    if (!userId) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
    return { status: 'OK', user: await userOrFail(request.core.appId, userId), recipeUserId: userId }
  })

  // A hash to check against when the email is unknown, so both answers take as long: one per
  // hashing setting, as apps may differ.
  const decoys = new Map<string, Promise<string>>()
  const decoyFor = (settings: CoreSettings) => {
    const key = hashingKey(settings)
    let decoy = decoys.get(key)
    if (!decoy) decoys.set(key, (decoy = hashPassword('decoy password', settings)))
    return decoy
  }

  app.post('/recipe/signin', async (request) => {
    const input = asObject(request.body)
    const email = normaliseEmail(body.string(input, 'email'))
    const password = body.string(input, 'password')
    const candidate = await emailPasswordSignInCandidate(db, request.core.appId, request.core.tenantId, email)
    if (!candidate) {
      await verifyPassword(password, await decoyFor(request.core.settings))
      return { status: 'WRONG_CREDENTIALS_ERROR' }
    }
    if (!(await verifyPassword(password, candidate.passwordHash))) return { status: 'WRONG_CREDENTIALS_ERROR' }
    return { status: 'OK', user: candidate.user, recipeUserId: candidate.recipeUserId }
  })

  app.put('/recipe/user', async (request) => {
    const input = asObject(request.body)
    const recipeUserId = body.string(input, 'recipeUserId')
    const rawEmail = body.optString(input, 'email')
    const password = body.optString(input, 'password')
    if (rawEmail === undefined && password === undefined) throw new BadRequest("You must provide either 'email' or 'password'")
    if (password === '') throw new BadRequest('Password cannot be an empty string')
    const { appId } = request.core
    const hash = password === undefined ? undefined : await hashPassword(password, request.core.settings)
    return db.transaction(async (tx) => {
      const row = await findRecipeUser(tx, appId, recipeUserId)
      if (!row || row.recipe_id !== 'emailpassword') return { status: 'UNKNOWN_USER_ID_ERROR' }
      if (rawEmail !== undefined) {
        const email = normaliseEmail(rawEmail)
        if (email !== row.email) {
          const taken = await tx.query(
            `SELECT 1 FROM authcore.user_tenants mine JOIN authcore.user_tenants other ON other.app_id = mine.app_id AND other.tenant_id = mine.tenant_id
              WHERE mine.app_id = $1 AND mine.user_id = $2 AND other.recipe_id = 'emailpassword' AND other.email = $3 AND other.user_id <> $2 LIMIT 1`,
            [appId, recipeUserId, email],
          )
          if (taken.rowCount > 0) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
          if (row.is_linked_or_primary && (await emailHeldByOtherPrimary(tx, appId, email, row.primary_user_id))) {
            return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'New email cannot be applied to existing account because of account takeover risks.' }
          }
          await tx.query('UPDATE authcore.users SET email = $3 WHERE app_id = $1 AND user_id = $2', [appId, recipeUserId, email])
          await tx.query('UPDATE authcore.user_tenants SET email = $3 WHERE app_id = $1 AND user_id = $2', [appId, recipeUserId, email])
        }
      }
      if (hash !== undefined) await tx.query('UPDATE authcore.users SET password_hash = $3 WHERE app_id = $1 AND user_id = $2', [appId, recipeUserId, hash])
      return { status: 'OK' }
    })
  })

  app.post('/recipe/user/password/reset/token', async (request) => {
    const input = asObject(request.body)
    return createPasswordResetToken(
      db,
      { appId: request.core.appId, lifetimeMs: request.core.settings.passwordResetTokenLifetime },
      body.string(input, 'userId'),
      body.optString(input, 'email'),
    )
  })

  app.post('/recipe/user/password/reset/token/consume', async (request) => {
    return consumePasswordResetToken(db, request.core, body.string(asObject(request.body), 'token'))
  })

  // Ours, beside consume (decision 025): the reset page asks whether its link is still good before
  // showing the form. Nothing is used up; the same answers as consume, without the user.
  app.post('/recipe/user/password/reset/token/check', async (request) => {
    return checkPasswordResetToken(db, request.core, body.string(asObject(request.body), 'token'))
  })

  /** Moving users in from another SuperTokens core: a bcrypt or argon2 hash as it is. */
  app.post('/recipe/user/passwordhash/import', async (request) => {
    const input = asObject(request.body)
    const email = normaliseEmail(body.string(input, 'email'))
    const passwordHash = body.string(input, 'passwordHash')
    const algorithm = (body.optString(input, 'hashingAlgorithm') ?? (passwordHash.startsWith('$argon2') ? 'argon2' : 'bcrypt')).toLowerCase()
    const valid = algorithm === 'bcrypt' ? /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(passwordHash) : algorithm === 'argon2' ? /^\$argon2(id|i|d)\$/.test(passwordHash) : false
    if (!valid) throw new BadRequest(`Password hash is in invalid ${algorithm.toUpperCase()} format`)
    const { appId, tenantId } = request.core
    return db.transaction(async (tx) => {
      const existing = await findEmailPasswordUser(tx, appId, tenantId, email)
      let userId = existing?.user_id
      if (existing) await tx.query('UPDATE authcore.users SET password_hash = $3 WHERE app_id = $1 AND user_id = $2', [appId, existing.user_id, passwordHash])
      else userId = (await createEmailPasswordUser(tx, appId, tenantId, email, passwordHash))!
      return { status: 'OK', didUserAlreadyExist: existing !== null, user: await getUser(tx, appId, userId!), recipeUserId: userId }
    })
  })

  // --- EmailVerification -----------------------------------------------------------------------

  app.post('/recipe/user/email/verify/token', async (request) => {
    const input = asObject(request.body)
    return createEmailVerificationToken(
      db,
      { appId: request.core.appId, tenantId: request.core.tenantId, lifetimeMs: request.core.settings.emailVerificationTokenLifetime },
      body.string(input, 'userId'),
      body.string(input, 'email'),
    )
  })

  app.post('/recipe/user/email/verify', async (request) => {
    const input = asObject(request.body)
    if (body.string(input, 'method') !== 'token') throw new BadRequest('Unsupported method for email verification')
    return consumeEmailVerificationToken(db, request.core, body.string(input, 'token'))
  })

  app.get('/recipe/user/email/verify', async (request) => {
    const { rowCount } = await db.query('SELECT 1 FROM authcore.email_verified WHERE app_id = $1 AND user_id = $2 AND email = $3', [
      request.core.appId,
      query.string(request.query, 'userId'),
      query.string(request.query, 'email'),
    ])
    return { status: 'OK', isVerified: rowCount > 0 }
  })

  app.post('/recipe/user/email/verify/token/remove', async (request) => {
    const input = asObject(request.body)
    await db.query('DELETE FROM authcore.email_verification_tokens WHERE app_id = $1 AND tenant_id = $2 AND user_id = $3 AND email = $4', [
      request.core.appId,
      request.core.tenantId,
      body.string(input, 'userId'),
      normaliseEmail(body.string(input, 'email')),
    ])
    return { status: 'OK' }
  })

  app.post('/recipe/user/email/verify/remove', async (request) => {
    const input = asObject(request.body)
    await db.query('DELETE FROM authcore.email_verified WHERE app_id = $1 AND user_id = $2 AND email = $3', [
      request.core.appId,
      body.string(input, 'userId'),
      normaliseEmail(body.string(input, 'email')),
    ])
    return { status: 'OK' }
  })

  // --- ThirdParty ------------------------------------------------------------------------------

  app.post('/recipe/signinup', async (request) => {
    const input = asObject(request.body)
    const email = body.object(input, 'email')
    const data = {
      thirdPartyId: body.string(input, 'thirdPartyId'),
      thirdPartyUserId: body.string(input, 'thirdPartyUserId'),
      email: body.string(email, 'id'),
      isVerified: body.optBoolean(email, 'isVerified') ?? false,
    }
    const { appId, tenantId } = request.core
    const attempt = () => db.transaction((tx) => thirdPartySignInUp(tx, appId, tenantId, data))
    let result
    try {
      result = await attempt()
    } catch (error) {
      // The same first sign-in twice at once: the second finds the user the first made.
      if (!isUniqueViolation(error)) throw error
      result = await attempt()
    }
    if (result.status !== 'OK') return result
    return { status: 'OK', createdNewUser: result.createdNewUser, user: await userOrFail(appId, result.recipeUserId), recipeUserId: result.recipeUserId }
  })

  // --- UserMetadata ----------------------------------------------------------------------------

  app.get('/recipe/user/metadata', async (request) => {
    const { rows } = await db.query<{ metadata: Record<string, unknown> }>('SELECT metadata FROM authcore.user_metadata WHERE app_id = $1 AND user_id = $2', [
      request.core.appId,
      query.string(request.query, 'userId'),
    ])
    return { status: 'OK', metadata: rows[0]?.metadata ?? {} }
  })

  // §5.8: a shallow merge; a key set to null is removed.
  app.put('/recipe/user/metadata', async (request) => {
    const input = asObject(request.body)
    const userId = body.string(input, 'userId')
    const update = body.object(input, 'metadataUpdate')
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

  app.post('/recipe/user/metadata/remove', async (request) => {
    await db.query('DELETE FROM authcore.user_metadata WHERE app_id = $1 AND user_id = $2', [request.core.appId, body.string(asObject(request.body), 'userId')])
    return { status: 'OK' }
  })

  // --- TOTP ------------------------------------------------------------------------------------

  const skewAndPeriod = (input: Record<string, unknown>) => {
    const skew = body.number(input, 'skew')
    const period = body.number(input, 'period')
    if (!Number.isInteger(skew) || skew < 0) throw new BadRequest('skew must be a non-negative integer')
    if (!Number.isInteger(period) || period <= 0) throw new BadRequest('period must be a positive integer')
    return { skew, period }
  }

  app.post('/recipe/totp/device', async (request) => {
    const input = asObject(request.body)
    return totp.createDevice(request.core.appId, { userId: body.string(input, 'userId'), deviceName: body.optString(input, 'deviceName'), ...skewAndPeriod(input) })
  })

  app.post('/recipe/totp/device/import', async (request) => {
    const input = asObject(request.body)
    const secretKey = body.string(input, 'secretKey')
    if (!/^[A-Z2-7]+=*$/i.test(secretKey)) throw new BadRequest('secretKey must be base32')
    return totp.importDevice(request.core.appId, { userId: body.string(input, 'userId'), deviceName: body.optString(input, 'deviceName'), secretKey, ...skewAndPeriod(input) })
  })

  app.put('/recipe/totp/device', async (request) => {
    const input = asObject(request.body)
    return totp.renameDevice(request.core.appId, body.string(input, 'userId'), body.string(input, 'existingDeviceName'), body.string(input, 'newDeviceName'))
  })

  app.get('/recipe/totp/device/list', async (request) => ({ status: 'OK', devices: await totp.listDevices(request.core.appId, query.string(request.query, 'userId')) }))

  app.post('/recipe/totp/device/remove', async (request) => {
    const input = asObject(request.body)
    return { status: 'OK', didDeviceExist: await totp.removeDevice(request.core.appId, body.string(input, 'userId'), body.string(input, 'deviceName')) }
  })

  app.post('/recipe/totp/device/verify', async (request) => {
    const input = asObject(request.body)
    return totp.verifyDevice(request.core, body.string(input, 'userId'), body.string(input, 'deviceName'), body.string(input, 'totp'))
  })

  app.post('/recipe/totp/verify', async (request) => {
    const input = asObject(request.body)
    return totp.verifyCode(request.core, body.string(input, 'userId'), body.string(input, 'totp'))
  })

  // --- AccountLinking (§3.10) ------------------------------------------------------------------

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

  app.post('/recipe/accountlinking/user/primary', async (request) => {
    const recipeUserId = body.string(asObject(request.body), 'recipeUserId')
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

  app.post('/recipe/accountlinking/user/link', async (request) => {
    const input = asObject(request.body)
    const recipeUserId = body.string(input, 'recipeUserId')
    const primaryUserId = body.string(input, 'primaryUserId')
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

  app.post('/recipe/accountlinking/user/unlink', async (request) => {
    const recipeUserId = body.string(asObject(request.body), 'recipeUserId')
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
