import type { FastifyInstance } from 'fastify'
import type { OperatorRoutesOptions } from './index.ts'

// Roles: PUT /api/operator/users/{id}/roles (admin only).
export default async function rolesRoutes(_app: FastifyInstance, _opts: OperatorRoutesOptions): Promise<void> {}
