import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { CoreServices } from '../../services.ts'
import { BadRequest } from '../../input.ts'
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

export default async function emailPasswordRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { db } = services

  app.post('/recipe/signup', { schema: { body: Type.Object({ email: Type.String(), password: Type.String() }) } }, async (request) => {
    const input = request.body
    const email = normaliseEmail(input.email)
    const password = input.password
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

  app.post('/recipe/signin', { schema: { body: Type.Object({ email: Type.String(), password: Type.String() }) } }, async (request) => {
    const input = request.body
    const email = normaliseEmail(input.email)
    const password = input.password
    const candidate = await emailPasswordSignInCandidate(db, request.core.appId, request.core.tenantId, email)
    if (!candidate) {
      await verifyPassword(password, await decoyFor(request.core.settings))
      return { status: 'WRONG_CREDENTIALS_ERROR' }
    }
    if (!(await verifyPassword(password, candidate.passwordHash))) return { status: 'WRONG_CREDENTIALS_ERROR' }
    return { status: 'OK', user: candidate.user, recipeUserId: candidate.recipeUserId }
  })

  app.put('/recipe/user', { schema: { body: Type.Object({ recipeUserId: Type.String(), email: Type.Optional(Type.String()), password: Type.Optional(Type.String()) }) } }, async (request) => {
    const input = request.body
    const recipeUserId = input.recipeUserId
    const rawEmail = input.email
    const password = input.password
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

  app.post('/recipe/user/password/reset/token', { schema: { body: Type.Object({ userId: Type.String(), email: Type.Optional(Type.String()) }) } }, async (request) => {
    const input = request.body
    return createPasswordResetToken(
      db,
      { appId: request.core.appId, lifetimeMs: request.core.settings.passwordResetTokenLifetime },
      input.userId,
      input.email,
    )
  })

  app.post('/recipe/user/password/reset/token/consume', { schema: { body: Type.Object({ token: Type.String() }) } }, async (request) => {
    return consumePasswordResetToken(db, request.core, request.body.token)
  })

  // Ours, beside consume (decision 025): the reset page asks whether its link is still good before
  // showing the form. Nothing is used up; the same answers as consume, without the user.
  app.post('/recipe/user/password/reset/token/check', { schema: { body: Type.Object({ token: Type.String() }) } }, async (request) => {
    return checkPasswordResetToken(db, request.core, request.body.token)
  })

  /** Moving users in from another SuperTokens core: a bcrypt or argon2 hash as it is. */
  app.post('/recipe/user/passwordhash/import', { schema: { body: Type.Object({ email: Type.String(), passwordHash: Type.String(), hashingAlgorithm: Type.Optional(Type.String()) }) } }, async (request) => {
    const input = request.body
    const email = normaliseEmail(input.email)
    const passwordHash = input.passwordHash
    const algorithm = (input.hashingAlgorithm ?? (passwordHash.startsWith('$argon2') ? 'argon2' : 'bcrypt')).toLowerCase()
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
