import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { operatorRoute } from '../../../shared/operator.ts'
import { answerPrivately } from '../session-guard.ts'
import auditRoutes from './audit.ts'
import feedRoutes from './feeds.ts'
import { operatorAuthorizer } from './guard.ts'
import type { OperatorRoutesOptions } from './options.ts'
import maintenanceRoutes from './maintenance.ts'
import mediaRoutes from './media.ts'
import programRoutes from './programs.ts'
import releaseRoutes from './releases.ts'
import roleRoutes from './roles.ts'
import userRoutes from './users.ts'

// The operator console's API: /api/operator/*, each route checked against the one
// permission shared/operator.ts gives it. A route registered here without its row there stops
// the start: no operator route goes out without a check.

async function operatorRoutes(app: FastifyInstance, opts: OperatorRoutesOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' && operatorRoute('GET', route.url)) continue
      if (!operatorRoute(method, route.url)) throw new Error(`The operator route ${method} ${route.url} has no permission in shared/operator.ts`)
    }
  })
  // Before the body is read or validated: a caller without the permission learns nothing of the
  // route's rules (a 400 naming a field) before its 403.
  app.addHook('onRequest', operatorAuthorizer(opts.guard, opts.roles))
  answerPrivately(app)
  await app.register(programRoutes, opts)
  await app.register(releaseRoutes, opts)
  await app.register(mediaRoutes, opts)
  await app.register(userRoutes, opts)
  await app.register(roleRoutes, opts)
  await app.register(maintenanceRoutes, opts)
  await app.register(auditRoutes, opts)
  await app.register(feedRoutes, opts)
}

export default fp(operatorRoutes, { name: 'operator-routes', encapsulate: true })
