import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,80}$/

/** Services behind the BFF keep the BFF's request id so one id follows a request through logs. */
export function requestIdFromUpstream(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id']
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

/** The public edge never trusts a client's id. */
export function newRequestId(): string {
  return randomUUID()
}
