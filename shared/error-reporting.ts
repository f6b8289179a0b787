// Error reporting (decision 019): what the BFF, the API and the browser agree on.

/** What the browser's error reporting needs (decision 019). */
export interface ErrorReportingSettings {
  dsn: string
  environment: string
  /** The build id, as the BFF and the API report it. */
  release: string
  /** The BFF's same-origin tunnel the browser sends its envelopes to. */
  tunnel: string
}

/** The BFF route that forwards the browser's error reports to the configured DSN. */
export const SENTRY_TUNNEL_PATH = '/sentry-tunnel'

/** The response header of a 5xx that was reported: the event's id (the /sentry-test page shows it). */
export const ERROR_EVENT_HEADER = 'x-sentry-event-id'
