import type { ServerOptions } from 'node:http'

/**
 * Node's HTTP server options shared by the three services ("slow clients"). Node checks
 * `headersTimeout` and `requestTimeout` only every `connectionsCheckingInterval` (30 s by
 * default), so a client that trickles its headers was cut after up to ~40 s instead of 10 s.
 * Checking every second keeps the cut within a second of the limit.
 */
export const HEADERS_TIMEOUT_MS = 10_000

export const HTTP_SERVER_OPTIONS: ServerOptions = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  connectionsCheckingInterval: 1_000,
}
