import type { FastifyInstance } from 'fastify'
import Session from 'supertokens-node/recipe/session'
import { Type } from 'typebox'
import { guardedWrite } from '../csrf.ts'
import { BffSessionIsCurrent, BffSessionNotFound } from '../errors.ts'
import { NoContent } from '../../http/openapi.ts'
import type { SecurityNotices } from './security-notices.ts'

// The signed-in devices of the profile: every live session of the account, when it
// began and was last used, the browser it began in, "this device"; end one, or all the others.
// Answered by the BFF from the auth core (the SDK). An ended session is refused everywhere within
// a second (decision 009). Ending any is told to the account's address.

/** What the BFF keeps in a session's database data (supertokens.ts sets it). */
export interface DeviceData {
  userAgent?: string
  /** ms; set at sign-in and at every refresh (about once per access-token lifetime of use). */
  lastUsedAt?: number
}

export interface DeviceSession {
  handle: string
  current: boolean
  createdAt: string
  lastUsedAt: string
  userAgent: string | null
}

const DeviceSessionSchema = Type.Object({
  handle: Type.String({ description: 'For DELETE /api/user/sessions/{handle}.' }),
  current: Type.Boolean({ description: 'The session of this request ("this device").' }),
  createdAt: Type.String(),
  lastUsedAt: Type.String(),
  userAgent: Type.Union([Type.String(), Type.Null()]),
})

export function deviceSessionRoutes(app: FastifyInstance, options: { notices: Pick<SecurityNotices, 'send'>; appOrigin: string; rateLimitMax: number }): void {
  const writes = guardedWrite(options.appOrigin, options.rateLimitMax)

  app.get('/api/user/sessions', { schema: { response: { 200: Type.Array(DeviceSessionSchema, { description: 'This device first, then the most recently used.' }) } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const session = await Session.getSession(request, reply)
    const handles = await Session.getAllSessionHandlesForUser(session.getUserId())
    const infos = await Promise.all(handles.map((handle) => Session.getSessionInformation(handle)))
    const devices: DeviceSession[] = []
    for (const info of infos) {
      if (!info) continue // ended between the two calls
      const data = (info.sessionDataInDatabase ?? {}) as DeviceData
      devices.push({
        handle: info.sessionHandle,
        current: info.sessionHandle === session.getHandle(),
        createdAt: new Date(info.timeCreated).toISOString(),
        // Noted by the BFF just before the core made the session: never earlier than its start.
        lastUsedAt: new Date(Math.max(typeof data.lastUsedAt === 'number' ? data.lastUsedAt : 0, info.timeCreated)).toISOString(),
        userAgent: typeof data.userAgent === 'string' ? data.userAgent : null,
      })
    }
    // This device first, then the most recently used.
    devices.sort((a, b) => Number(b.current) - Number(a.current) || b.lastUsedAt.localeCompare(a.lastUsedAt))
    return devices
  })

  app.delete<{ Params: { handle: string } }>('/api/user/sessions/:handle', { ...writes, schema: { response: { 204: NoContent } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const session = await Session.getSession(request, reply)
    const { handle } = request.params
    if (handle === session.getHandle()) throw new BffSessionIsCurrent()
    // Another account's session, or none: the same answer, so handles cannot be probed.
    const info = handle.length <= 200 ? await Session.getSessionInformation(handle) : undefined
    if (!info || info.userId !== session.getUserId()) throw new BffSessionNotFound()
    await Session.revokeSession(handle)
    // An ended session is not found the next time: one notice per session ended.
    await options.notices.send(request, 'sessionEnded', { userId: session.getUserId(), accessToken: session.getAccessToken() })
    return reply.code(204).send()
  })

  app.delete('/api/user/sessions', { ...writes, schema: { response: { 200: { type: 'object', required: ['sessionsEnded'], properties: { sessionsEnded: { type: 'integer' } } } } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const session = await Session.getSession(request, reply)
    const others = (await Session.getAllSessionHandlesForUser(session.getUserId())).filter((handle) => handle !== session.getHandle())
    const ended = others.length > 0 ? await Session.revokeMultipleSessions(others) : []
    // Nothing ended (no other device, or asked again): nothing to tell.
    if (ended.length > 0) await options.notices.send(request, 'otherSessionsEnded', { userId: session.getUserId(), accessToken: session.getAccessToken() })
    return { sessionsEnded: ended.length }
  })
}
