import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../db/database.ts'
import { isOutageAnswer } from '../../http/errors.ts'
import { RepeatedFailureLog } from '../../http/outage-log.ts'
import { databaseProbe, InstanceReadiness } from '../../http/readiness.ts'
import { BffNotReady } from '../errors.ts'

/**
 * The BFF's readiness: it takes traffic until it is told to stop; its database and the
 * product API are probed (at most once a second) and reported, never a reason to fail.
 */
export function bffReadiness(app: FastifyInstance, db: Database, now?: () => number): InstanceReadiness {
  // Probed every second while it lasts: one line when it begins, one when it ends.
  const apiFailures = new RepeatedFailureLog(app.log, 'readiness: the product API')
  return new InstanceReadiness(
    {
      // An outage (the database's, the API's) is its outage log's to tell, once; anything else is said here.
      database: databaseProbe(db, app.log),
      productApi: async () => {
        try {
          const response = await app.upstreamApi.request({ method: 'GET', path: '/healthz', signal: AbortSignal.timeout(2_000) })
          if (response.status !== 200) throw new Error(`HTTP ${response.status}`)
          apiFailures.succeeded()
          return 'ok'
        } catch (err) {
          if (!isOutageAnswer((err as { code?: unknown }).code)) apiFailures.failed(err, 'readiness: product API not usable')
          return 'unreachable'
        }
      },
    },
    now,
  )
}

/** /healthz: the process answers. /readyz: this instance takes traffic (it is not stopping), with what it sees of its dependencies. */
async function healthRoutes(app: FastifyInstance, { readiness }: { readiness: InstanceReadiness }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async () => {
    const report = await readiness.report()
    if (!report) throw new BffNotReady('it is stopping')
    return report
  })
}

export default fp(healthRoutes, { name: 'health-routes', encapsulate: true, dependencies: ['upstream-api'] })
