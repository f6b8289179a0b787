import type { FastifyInstance } from 'fastify'
import type { CoreServices } from '../services.ts'
import { asObject, BadRequest, body, query } from '../input.ts'
import { SessionService } from '../sessions.ts'

// Session endpoints (AUTH-CORE.md §3.2); the semantics live in sessions.ts.

export default async function sessionRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { sessions } = services

  app.post('/recipe/session', async (request) => {
    const input = asObject(request.body)
    return sessions.create(request.core, {
      userId: body.string(input, 'userId'),
      userDataInJWT: body.object(input, 'userDataInJWT'),
      userDataInDatabase: body.object(input, 'userDataInDatabase'),
      useDynamicSigningKey: body.optBoolean(input, 'useDynamicSigningKey') ?? true,
      enableAntiCsrf: body.optBoolean(input, 'enableAntiCsrf') ?? false,
    })
  })

  app.post('/recipe/session/verify', async (request) => {
    const input = asObject(request.body)
    return sessions.verify(request.core, {
      accessToken: body.string(input, 'accessToken'),
      antiCsrfToken: body.optString(input, 'antiCsrfToken'),
      doAntiCsrfCheck: body.boolean(input, 'doAntiCsrfCheck'),
      enableAntiCsrf: body.optBoolean(input, 'enableAntiCsrf') ?? false,
      checkDatabase: body.optBoolean(input, 'checkDatabase') ?? false,
    })
  })

  app.post('/recipe/session/refresh', async (request) => {
    const input = asObject(request.body)
    return sessions.refresh(request.core, {
      refreshToken: body.string(input, 'refreshToken'),
      antiCsrfToken: body.optString(input, 'antiCsrfToken'),
      enableAntiCsrf: body.optBoolean(input, 'enableAntiCsrf') ?? false,
      useDynamicSigningKey: body.optBoolean(input, 'useDynamicSigningKey') ?? true,
    })
  })

  app.post('/recipe/session/regenerate', async (request) => {
    const input = asObject(request.body)
    return sessions.regenerate(request.core, { accessToken: body.string(input, 'accessToken'), userDataInJWT: body.optObject(input, 'userDataInJWT') })
  })

  app.get('/recipe/session', async (request) => sessions.info(request.core, query.string(request.query, 'sessionHandle')))

  // By handles, or every live session of a user (in all tenants unless the call names one).
  app.post('/recipe/session/remove', async (request) => {
    const input = asObject(request.body)
    const userId = body.optString(input, 'userId')
    const handles = input.sessionHandles === undefined ? undefined : body.stringArray(input, 'sessionHandles')
    if ((userId === undefined) === (handles === undefined)) throw new BadRequest("Exactly one of 'userId' or 'sessionHandles' must be given")
    const targets =
      handles ??
      (await sessions.handlesOfUser(
        request.core,
        userId!,
        body.optBoolean(input, 'revokeSessionsForLinkedAccounts') ?? true,
        body.optBoolean(input, 'revokeAcrossAllTenants') ?? true,
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

  app.put('/recipe/session/data', async (request) => {
    const input = asObject(request.body)
    const done = await sessions.updateData(request.core, body.string(input, 'sessionHandle'), 'session_data', body.object(input, 'userDataInDatabase'))
    return done ? { status: 'OK' } : { status: 'UNAUTHORISED', message: 'Session does not exist.' }
  })

  app.put('/recipe/jwt/data', async (request) => {
    const input = asObject(request.body)
    const payload = body.object(input, 'userDataInJWT')
    SessionService.checkPayload(payload)
    const done = await sessions.updateData(request.core, body.string(input, 'sessionHandle'), 'jwt_payload', payload)
    return done ? { status: 'OK' } : { status: 'UNAUTHORISED', message: 'Session does not exist.' }
  })

  app.post('/recipe/jwt', async (request) => {
    const input = asObject(request.body)
    if (body.string(input, 'algorithm') !== 'RS256') return { status: 'UNSUPPORTED_ALGORITHM_ERROR' }
    const validity = body.number(input, 'validity')
    if (!Number.isInteger(validity) || validity <= 0) throw new BadRequest("Field name 'validity' is invalid in JSON input")
    const jwt = await sessions.createJwt(request.core, {
      payload: body.object(input, 'payload'),
      validity,
      useStaticSigningKey: body.optBoolean(input, 'useStaticSigningKey') ?? false,
      jwksDomain: body.string(input, 'jwksDomain'),
    })
    return { status: 'OK', jwt }
  })
}
