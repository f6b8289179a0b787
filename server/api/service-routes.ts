import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ErrorBody, VersionResponse } from '../../shared/web/answers.ts'
import type { BuildInfo } from '../build-info.ts'
import type { InstanceReadiness } from '../http/readiness.ts'
import { catalogueVersion } from './catalogue/search-index.ts'
import { ApiNotReady } from './errors.ts'
import { getMaintenanceTime } from './maintenance-repository.ts'

// What the product API answers about itself: its OpenAPI document (read by the BFF, which publishes
// it merged with its own), liveness and readiness, the running version with the maintenance time,
// the catalogue's version and the package's.

export interface ServiceRoutesOptions {
  buildInfo: BuildInfo
  readiness: InstanceReadiness<'database' | 'fileStorage'>
}

async function serviceRoutes(plugin: FastifyInstance, { buildInfo, readiness }: ServiceRoutesOptions): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db

  app.get('/internal/openapi.json', async (_request, reply) => {
    reply.header('cache-control', 'no-cache')
    return app.swagger()
  })

  app.get('/healthz', { schema: { response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({
    status: 'ok' as const,
  }))

  // This instance takes traffic until it is told to stop; the database and the file storage,
  // shared by every instance, are probed (at most once a second) and reported.
  const dependencyState = Type.Union([Type.Literal('ok'), Type.Literal('unreachable')])
  const readySchema = Type.Object({ status: Type.Literal('ok'), dependencies: Type.Object({ database: dependencyState, fileStorage: dependencyState }) })
  app.get('/readyz', { schema: { response: { 200: readySchema, 503: ErrorBody } } }, async () => {
    const report = await readiness.report()
    if (!report) throw new ApiNotReady('it is stopping')
    return report
  })

  app.get(
    '/api/version',
    {
      schema: {
        response: { 200: VersionResponse },
      },
    },
    async (_request, reply) => {
      const maintenance = await getMaintenanceTime(db)
      reply.header('cache-control', 'no-cache')
      return maintenance ? { version: buildInfo.version, maintenanceTime: maintenance.toISOString() } : { version: buildInfo.version }
    },
  )

  // Changes whenever the catalogue does (an editor's write, a new seed). The BFF keys its caches of
  // catalogue answers, pages and the sitemap by it, asking at most once a second.
  app.get(
    '/api/catalogue/version',
    { schema: { response: { 200: Type.Object({ version: Type.String({ description: 'Opaque; another value means another catalogue.' }) }) } } },
    async (_request, reply) => {
      reply.header('cache-control', 'no-cache')
      return { version: await catalogueVersion(db) }
    },
  )

  app.get(
    '/api/version/package-be',
    {
      schema: {
        response: {
          // No runtime version: it would only tell an attacker which advisories apply.
          200: Type.Object({ name: Type.String(), version: Type.String(), buildId: Type.String() }),
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-cache')
      return { name: buildInfo.name, version: buildInfo.version, buildId: buildInfo.buildId }
    },
  )
}

export default fp(serviceRoutes, { name: 'service-routes', encapsulate: true, dependencies: ['@fastify/swagger'], decorators: { fastify: ['db'] } })
