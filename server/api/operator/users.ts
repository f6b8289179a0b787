import type { FastifyInstance } from 'fastify'
import type { OperatorRoutesOptions } from './index.ts'

// Accounts: search, detail, disable and enable.
export default async function usersRoutes(_app: FastifyInstance, _opts: OperatorRoutesOptions): Promise<void> {}
