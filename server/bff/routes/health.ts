import type { FastifyInstance } from 'fastify'
import type { Database } from '../../db/database.ts'
import { BffNotReady } from '../errors.ts'

/** /healthz: the process answers. /readyz: its database and the product API answer too. */
export default async function healthRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async (request) => {
    try {
      await opts.db.query('SELECT 1')
    } catch (err) {
      request.log.warn({ err }, 'readiness: database unreachable')
      throw new BffNotReady('the database is unreachable')
    }
    try {
      const response = await app.upstreamApi.request({ method: 'GET', path: '/healthz', signal: AbortSignal.timeout(2_000) })
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`)
    } catch (err) {
      request.log.warn({ err }, 'readiness: product API unreachable')
      throw new BffNotReady('the product API is unreachable')
    }
    return { status: 'ok' }
  })
}
