import type { FastifyInstance } from 'fastify'
import type { OperatorRoutesOptions } from './index.ts'

// Programs: the editors' catalogue (GET/POST /api/operator/programs, PATCH with baseRevision, revisions, revert, retire).
export default async function programsRoutes(_app: FastifyInstance, _opts: OperatorRoutesOptions): Promise<void> {}
