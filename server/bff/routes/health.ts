import type { FastifyInstance } from 'fastify'
import type { Database } from '../../db/database.ts'
import { isDatabaseUnreachable } from '../../db/reachability.ts'
import { isOutageAnswer } from '../../http/errors.ts'
import { ReadinessCache } from '../../http/readiness.ts'
import { BffNotReady } from '../errors.ts'

/** /healthz: the process answers. /readyz: its database and the product API answer too (kept for a second). */
export default async function healthRoutes(app: FastifyInstance, opts: { db: Database; now?: (() => number) | undefined }): Promise<void> {
  const readiness = new ReadinessCache(async () => {
    // An outage (the database's, the API's) is its outage log's to tell, once (issue 18); anything else is said here.
    try {
      await opts.db.query('SELECT 1')
    } catch (err) {
      if (!isDatabaseUnreachable(err)) app.log.warn({ err }, 'readiness: database not usable')
      return { ok: false, reason: 'the database is unreachable' }
    }
    try {
      const response = await app.upstreamApi.request({ method: 'GET', path: '/healthz', signal: AbortSignal.timeout(2_000) })
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`)
    } catch (err) {
      if (!isOutageAnswer((err as { code?: unknown }).code)) app.log.warn({ err }, 'readiness: product API not usable')
      return { ok: false, reason: 'the product API is unreachable' }
    }
    return { ok: true }
  }, opts.now)

  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async () => {
    const answer = await readiness.get()
    if (!answer.ok) throw new BffNotReady(answer.reason)
    return { status: 'ok' }
  })
}
