import type { FastifyInstance } from 'fastify'
import type { CoreServices } from '../../services.ts'
import { asObject, BadRequest, body } from '../../input.ts'
import { hashingKey, hashPassword, verifyPassword } from '../../passwords.ts'
import type { CoreSettings } from '../../settings.ts'
import { checkPasswordResetToken, consumePasswordResetToken, createPasswordResetToken } from '../../tokens.ts'
import {
  createEmailPasswordUser,
  emailHeldByOtherPrimary,
  emailPasswordSignInCandidate,
  findEmailPasswordUser,
  findRecipeUser,
  getUser,
  normaliseEmail,
} from '../../users.ts'
import { isUniqueViolation, userOrFail } from './shared.ts'

// EmailPassword: sign-up, sign-in, changes to the user, password reset tokens and imported hashes (AUTH-CORE.md §3.3).

export default async function emailPasswordRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { db } = services

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
    return { status: 'OK', user: await userOrFail(db, request.core.appId, userId), recipeUserId: userId }
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
}
