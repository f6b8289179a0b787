import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { CoreServices } from '../services.ts'
import { BadRequest, query, trimmedName } from '../input.ts'

// The user-management dashboard's core endpoints, as the real core answers them; what
// supertokens-node's dashboard recipe calls: sign-in, the session check on every dashboard call,
// sign-out (DELETE /recipe/dashboard/session), and the accounts' management. App-level: the
// public tenant only.

const Credentials = Type.Object({ email: Type.String(), password: Type.String() })
const Update = Type.Object({
  userId: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  newEmail: Type.Optional(Type.String()),
  newPassword: Type.Optional(Type.String()),
})

export default async function dashboardRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { dashboard } = services
  const appLevel = { config: { appLevel: true } }

  // supertokens-node signs out with a DELETE that says "application/json" and sends no body, which
  // the real core (reading only the query) takes: here too. A body that is there is parsed as ever.
  const json = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    if (request.method === 'DELETE' && text === '') return done(null, undefined)
    return json(request, text as string, done)
  })

  /** The account an update or a deletion names, by its id or else by its email. */
  const named = async (appId: string, source: { userId?: string | undefined; email?: string | undefined }) => {
    if (source.userId !== undefined) return dashboard.find(appId, { userId: trimmedName(source.userId, 'userId') })
    if (source.email !== undefined) return dashboard.find(appId, { email: source.email })
    throw new BadRequest("Either field 'email' or 'userId' must be present")
  }

  app.post('/recipe/dashboard/signin', { ...appLevel, schema: { body: Credentials } }, async (request) =>
    dashboard.signIn(request.core.appId, request.core.settings, request.body.email, request.body.password),
  )

  app.post('/recipe/dashboard/session/verify', { ...appLevel, schema: { body: Type.Object({ sessionId: Type.String() }) } }, async (request) =>
    dashboard.verify(request.core.appId, request.body.sessionId),
  )

  app.delete('/recipe/dashboard/session', appLevel, async (request) => {
    await dashboard.signOut(request.core.appId, query.string(request.query, 'sessionId'))
    return { status: 'OK' }
  })

  app.post('/recipe/dashboard/user', { ...appLevel, schema: { body: Credentials } }, async (request) =>
    dashboard.create(request.core.appId, request.core.settings, request.body.email, request.body.password),
  )

  app.put('/recipe/dashboard/user', { ...appLevel, schema: { body: Update } }, async (request) => {
    const { userId, email, newEmail, newPassword } = request.body
    const user = await named(request.core.appId, { userId, email })
    if (!user) return { status: 'UNKNOWN_USER_ERROR' }
    return dashboard.update(request.core.appId, request.core.settings, user.userId, { newEmail, newPassword })
  })

  app.delete('/recipe/dashboard/user', appLevel, async (request) => {
    const user = await named(request.core.appId, { userId: query.optString(request.query, 'userId'), email: query.optString(request.query, 'email') })
    return { status: 'OK', didUserExist: user ? await dashboard.remove(request.core.appId, user.userId) : false }
  })

  app.get('/recipe/dashboard/users', appLevel, async (request) => ({ status: 'OK', users: await dashboard.list(request.core.appId) }))
}
