import type { FastifyInstance } from 'fastify'
import type { OperatorRoutesOptions } from './index.ts'

// Maintenance: PUT /api/operator/maintenance.
export default async function maintenanceRoutes(_app: FastifyInstance, _opts: OperatorRoutesOptions): Promise<void> {}
