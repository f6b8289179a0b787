import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { JsonObject } from '../body-schema.ts'
import type { CoreServices } from '../services.ts'
import { BadRequest, query } from '../input.ts'
import { SessionService } from '../sessions.ts'

// Session endpoints (AUTH-CORE.md §3.2); the semantics live in sessions.ts.

export default async function sessionRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { sessions } = services

  const Create = Type.Object({
    userId: Type.String(),
    userDataInJWT: JsonObject,
    userDataInDatabase: JsonObject,
    useDynamicSigningKey: Type.Optional(Type.Boolean()),
    enableAntiCsrf: Type.Optional(Type.Boolean()),
  })
  app.post('/recipe/session', { schema: { body: Create } }, async (request) => {
    const input = request.body
    return sessions.create(request.core, {
      userId: input.userId,
      userDataInJWT: input.userDataInJWT,
      userDataInDatabase: input.userDataInDatabase,
      useDynamicSigningKey: input.useDynamicSigningKey ?? true,
      enableAntiCsrf: input.enableAntiCsrf ?? false,
    })
  })

  const Verify = Type.Object({
    accessToken: Type.String(),
    antiCsrfToken: Type.Optional(Type.String()),
    doAntiCsrfCheck: Type.Boolean(),
    enableAntiCsrf: Type.Optional(Type.Boolean()),
    checkDatabase: Type.Optional(Type.Boolean()),
  })
  app.post('/recipe/session/verify', { schema: { body: Verify } }, async (request) => {
    const input = request.body
    return sessions.verify(request.core, {
      accessToken: input.accessToken,
      antiCsrfToken: input.antiCsrfToken,
      doAntiCsrfCheck: input.doAntiCsrfCheck,
      enableAntiCsrf: input.enableAntiCsrf ?? false,
      checkDatabase: input.checkDatabase ?? false,
    })
  })

  const Refresh = Type.Object({
    refreshToken: Type.String(),
    antiCsrfToken: Type.Optional(Type.String()),
    enableAntiCsrf: Type.Optional(Type.Boolean()),
    useDynamicSigningKey: Type.Optional(Type.Boolean()),
  })
  app.post('/recipe/session/refresh', { schema: { body: Refresh } }, async (request) => {
    const input = request.body
    return sessions.refresh(request.core, {
      refreshToken: input.refreshToken,
      antiCsrfToken: input.antiCsrfToken,
      enableAntiCsrf: input.enableAntiCsrf ?? false,
      useDynamicSigningKey: input.useDynamicSigningKey ?? true,
    })
  })

  const Regenerate = Type.Object({ accessToken: Type.String(), userDataInJWT: Type.Optional(JsonObject) })
  app.post('/recipe/session/regenerate', { schema: { body: Regenerate } }, async (request) =>
    sessions.regenerate(request.core, { accessToken: request.body.accessToken, userDataInJWT: request.body.userDataInJWT }),
  )

  app.get('/recipe/session', async (request) => sessions.info(request.core, query.string(request.query, 'sessionHandle')))

  // By handles, or every live session of a user (in all tenants unless the call names one).
  const Remove = Type.Object({
    userId: Type.Optional(Type.String()),
    sessionHandles: Type.Optional(Type.Array(Type.String())),
    revokeSessionsForLinkedAccounts: Type.Optional(Type.Boolean()),
    revokeAcrossAllTenants: Type.Optional(Type.Boolean()),
  })
  app.post('/recipe/session/remove', { schema: { body: Remove } }, async (request) => {
    const input = request.body
    const userId = input.userId
    const handles = input.sessionHandles
    if ((userId === undefined) === (handles === undefined)) throw new BadRequest("Exactly one of 'userId' or 'sessionHandles' must be given")
    const targets =
      handles ??
      (await sessions.handlesOfUser(
        request.core,
        userId!,
        input.revokeSessionsForLinkedAccounts ?? true,
        input.revokeAcrossAllTenants ?? true,
      ))
    return { status: 'OK', sessionHandlesRevoked: await sessions.remove(request.core, targets) }
  })

  // Not CDI: the revocation list the API and the BFF poll (decision 009), behind the API key.
  app.get('/recipe/session/revoked', async (request) => {
    const since = query.optInteger(request.query, 'since') ?? 0
    return { status: 'OK', ...(await sessions.revokedSince(request.core, since, 10_000)) }
  })

  app.get('/recipe/session/user', async (request) => {
    const userId = query.string(request.query, 'userId')
    const linked = query.boolean(request.query, 'fetchSessionsForAllLinkedAccounts', true)
    const allTenants = query.boolean(request.query, 'fetchAcrossAllTenants', true)
    return { status: 'OK', sessionHandles: await sessions.handlesOfUser(request.core, userId, linked, allTenants) }
  })

  const SessionData = Type.Object({ sessionHandle: Type.String(), userDataInDatabase: JsonObject })
  app.put('/recipe/session/data', { schema: { body: SessionData } }, async (request) => {
    const done = await sessions.updateData(request.core, request.body.sessionHandle, 'session_data', request.body.userDataInDatabase)
    return done ? { status: 'OK' } : { status: 'UNAUTHORISED', message: 'Session does not exist.' }
  })

  const JwtData = Type.Object({ userDataInJWT: JsonObject, sessionHandle: Type.String() })
  app.put('/recipe/jwt/data', { schema: { body: JwtData } }, async (request) => {
    const payload = request.body.userDataInJWT
    SessionService.checkPayload(payload)
    const done = await sessions.updateData(request.core, request.body.sessionHandle, 'jwt_payload', payload)
    return done ? { status: 'OK' } : { status: 'UNAUTHORISED', message: 'Session does not exist.' }
  })

  const Jwt = Type.Object({
    algorithm: Type.String(),
    validity: Type.Number(),
    payload: JsonObject,
    useStaticSigningKey: Type.Optional(Type.Boolean()),
    jwksDomain: Type.String(),
  })
  app.post('/recipe/jwt', { schema: { body: Jwt } }, async (request) => {
    const input = request.body
    if (input.algorithm !== 'RS256') return { status: 'UNSUPPORTED_ALGORITHM_ERROR' }
    const validity = input.validity
    if (!Number.isInteger(validity) || validity <= 0) throw new BadRequest("Field name 'validity' is invalid in JSON input")
    const jwt = await sessions.createJwt(request.core, {
      payload: input.payload,
      validity,
      useStaticSigningKey: input.useStaticSigningKey ?? false,
      jwksDomain: input.jwksDomain,
    })
    return { status: 'OK', jwt }
  })
}
