import type { FastifyInstance } from 'fastify'
import type { OperatorRoutesOptions } from './index.ts'

// Logos and screenshots of programs.
export default async function mediaRoutes(_app: FastifyInstance, _opts: OperatorRoutesOptions): Promise<void> {}
