import type { FastifyInstance } from 'fastify'
import type { OperatorRoutesOptions } from './index.ts'

// The audit log: GET /api/operator/audit and its CSV export.
export default async function auditRoutes(_app: FastifyInstance, _opts: OperatorRoutesOptions): Promise<void> {}
