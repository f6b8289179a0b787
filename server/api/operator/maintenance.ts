import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ApiInvalidMaintenanceTime, ApiPermissionDenied } from '../errors.ts'
import { changeMaintenanceTime, parseMaintenanceTime } from '../maintenance-repository.ts'
import type { OperatorRoutesOptions } from './options.ts'

// Maintenance: PUT /api/operator/maintenance, what `npm run maintenance` does, from
// the console. GET /api/version shows it at once (the API reads it from the database every time;
// the BFF's one-second cache of /api/version is dropped by the instance that carried the change).

// One JSON type list, not a union: the body's type coercion would turn a null into "" for a
// string branch tried first, and "" into null for a null branch.
const MaintenanceTime = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  maxLength: 64,
  description: 'When maintenance begins, an ISO 8601 date and time with its offset (2026-12-01T22:00:00Z); null clears it.',
})

async function maintenanceRoutes(app: FastifyInstance, _opts: OperatorRoutesOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.put(
    '/api/operator/maintenance',
    {
      schema: {
        body: Type.Object({ maintenanceTime: MaintenanceTime }, { additionalProperties: false }),
        response: { 200: Type.Object({ maintenanceTime: Type.Union([Type.String(), Type.Null()], { description: 'The time now announced (UTC), or null.' }) }) },
      },
    },
    async (request) => {
      const input = request.body.maintenanceTime
      const time = input === null ? null : parseMaintenanceTime(input)
      if (input !== null && !time) throw new ApiInvalidMaintenanceTime()
      // The guard set it; a route here without it would be a fault, refused rather than unlogged.
      if (!request.operator) throw new ApiPermissionDenied()
      const maintenanceTime = await changeMaintenanceTime(app.db, time, request.operator, request.id)
      request.log.info({ event: 'maintenance-set', maintenanceTime }, maintenanceTime ? 'maintenance time set' : 'maintenance time cleared')
      return { maintenanceTime }
    },
  )
}

export default fp(maintenanceRoutes, { name: 'operator-maintenance-routes', encapsulate: true, decorators: { fastify: ['db'] } })
