import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { KEYBOARD_LAYOUTS, isKeyboardLayout, type StreamingAssignment, type StreamingState } from '../../../shared/streaming.ts'
import { NoContent } from '../../http/openapi.ts'
import { answerPrivately, type SessionGuard } from '../session-guard.ts'
import type { Assignment, StreamingAssignments } from './assignments.ts'
import { StreamingNotConfigured, StreamingUnknownLayout } from './errors.ts'
import type { StreamingGrants } from './grants.ts'

// Streaming (spec §7 POST /api/user/assign-cluster; decision 017). Public: the layout
// list and the grants' JWKS. Signed in: the page's state, assigning a cluster, ending it.

export interface StreamingRouteOptions {
  guard: SessionGuard
  assignments: StreamingAssignments
  grants: StreamingGrants
}

const Layout = Type.Object({ id: Type.String(), language: Type.String(), name: Type.String() })
const AssignmentBody = Type.Object({
  clusterId: Type.String(),
  region: Type.String(),
  url: Type.String(),
  token: Type.String(),
  expiresAt: Type.String(),
  programId: Type.String(),
  keyboardLayout: Type.String(),
  fallback: Type.Boolean(),
})

const StreamingState = Type.Object({
  available: Type.Boolean({ description: 'False when no cluster is configured: nothing can be started.' }),
  regions: Type.Array(Type.Object({ id: Type.String(), free: Type.Integer({ description: 'Places free right now across the region\'s clusters.' }) })),
  keyboardLayout: Type.String({ description: 'The account\'s remembered layout, else the one of its language.' }),
  programs: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      entitled: Type.Boolean({ description: 'False for a paid program without a completed purchase or a running subscription: assigning it answers 403 STREAMING_NOT_OWNED until it is bought.' }),
    }),
    { description: 'The programs of the library that run on a desktop system.' },
  ),
  assignment: Type.Union([AssignmentBody, Type.Null()]),
})

/** The grants' public keys (RFC 7517). A key's other members, if a later algorithm has them, are sent too. */
const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object(
      {
        kty: Type.String(),
        // Optional in RFC 7517; this server always sets them (grants.ts).
        kid: Type.String(),
        alg: Type.String(),
        use: Type.String(),
        crv: Type.Optional(Type.String()),
        x: Type.Optional(Type.String()),
        y: Type.Optional(Type.String()),
      },
      { additionalProperties: true },
    ),
  ),
})

async function streamingRoutes(app: FastifyInstance, opts: StreamingRouteOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const { authenticate, activeUser } = opts.guard
  const { assignments, grants } = opts

  const wire = async (assignment: Assignment): Promise<StreamingAssignment> => ({
    clusterId: assignment.clusterId,
    region: assignment.region,
    url: assignments.clusterUrl(assignment.clusterId),
    // Signed again for every answer, with the same claims and end: the same grant in meaning.
    token: await grants.sign({ ...assignment, assignmentId: assignment.id, issuedAtMs: assignment.createdAt, expiresAtMs: assignment.expiresAt }),
    expiresAt: new Date(assignment.expiresAt).toISOString(),
    programId: assignment.programId,
    keyboardLayout: assignment.keyboardLayout,
    fallback: assignment.fallback,
  })

  api.get('/api/streaming/keyboard-layouts', { schema: { response: { 200: Type.Array(Layout) } } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600')
    return [...KEYBOARD_LAYOUTS]
  })

  // What a cluster verifies grants with, offline. A short cache: a key added later is learnt soon.
  api.get('/api/streaming/jwks', { schema: { response: { 200: Jwks } } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300')
    return grants.jwks()
  })

  await app.register(async (scope) => {
    const user = scope.withTypeProvider<TypeBoxTypeProvider>()
    answerPrivately(scope)

    user.get('/api/user/streaming', { preHandler: authenticate('complete'), schema: { response: { 200: StreamingState } } }, async (request): Promise<StreamingState> => {
      const me = await activeUser(request)
      const [keyboardLayout, programs] = await Promise.all([assignments.keyboardLayout(me.id, me.language), assignments.streamablePrograms(me.id)])
      if (!assignments.configured) return { available: false, regions: [], keyboardLayout, programs, assignment: null }
      const live = await assignments.current(me.id)
      return { available: true, regions: await assignments.regions(), keyboardLayout, programs, assignment: live ? await wire(live) : null }
    })

    user.post(
      '/api/user/assign-cluster',
      {
        preHandler: authenticate('complete'),
        schema: {
          body: Type.Object(
            {
              programId: Type.String({ minLength: 1, maxLength: 200 }),
              region: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
              keyboardLayout: Type.String({ minLength: 1, maxLength: 64 }),
            },
            { additionalProperties: false },
          ),
          response: { 200: AssignmentBody, 201: AssignmentBody },
        },
      },
      async (request, reply) => {
        const me = await activeUser(request)
        if (!assignments.configured) throw new StreamingNotConfigured()
        const { programId, region, keyboardLayout } = request.body
        if (!isKeyboardLayout(keyboardLayout)) throw new StreamingUnknownLayout(keyboardLayout)
        await assignments.checkProgram(me.id, programId)
        const { assignment, created } = await assignments.assign({ userId: me.id, programId, region, keyboardLayout })
        if (created) request.log.info({ event: 'streaming-assigned', clusterId: assignment.clusterId, fallback: assignment.fallback }, 'a streaming cluster was assigned')
        reply.code(created ? 201 : 200)
        return wire(assignment)
      },
    )

    user.delete('/api/user/assign-cluster', { preHandler: authenticate('complete'), schema: { response: { 204: NoContent } } }, async (request, reply) => {
      const me = await activeUser(request)
      if (await assignments.release(me.id)) request.log.info({ event: 'streaming-ended' }, 'a streaming assignment was ended')
      return reply.code(204).send()
    })
  })
}

export default fp(streamingRoutes, { name: 'streaming-routes', encapsulate: true })
