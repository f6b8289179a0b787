import type { ErrorEvent } from '@sentry/node'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { redactUrl, REPORT_DATA_COLLECTION, scrubReport } from '../../shared/redaction.ts'
import type { SentryConfig } from '../config.ts'

// Error reporting of a service (decision 019). Each service (BFF, API) has its own Sentry
// client rather than the SDK's global one: the embedded default runs both in one process, and tests
// build several; a global init would mix their tags and instrument the whole process.

export interface ErrorReporter {
  /** Reports an unexpected error of a request; returns the event id. */
  captureRequestError(error: unknown, request: FastifyRequest): string
  /** Reports an error outside any request — a background task, a crash — tagged with what failed; the event id. */
  captureBackgroundError(error: unknown, task: string): string
  /** Waits until what was reported has left (tests; shutdown). */
  flush(timeoutMs?: number): Promise<boolean>
  close(timeoutMs?: number): Promise<void>
}

/** Request headers worth having in a report; nothing else of the request is sent. */
const REPORTED_HEADERS = ['user-agent', 'accept-language', 'content-type'] as const

/** The service's reporter, or undefined without SENTRY_DSN: then the SDK is not even loaded. */
export async function createErrorReporter(config: SentryConfig | undefined, service: 'bff' | 'api', release: string): Promise<ErrorReporter | undefined> {
  if (!config) return undefined
  const { dedupeIntegration, defaultStackParser, linkedErrorsIntegration, makeNodeTransport, NodeClient, Scope } = await import('@sentry/node')
  const client = new NodeClient({
    dsn: config.dsn,
    release,
    environment: config.environment,
    transport: makeNodeTransport,
    stackParser: defaultStackParser,
    // No automatic instrumentation: only what we capture ourselves, scrubbed.
    integrations: [linkedErrorsIntegration(), dedupeIntegration()],
    dataCollection: { ...REPORT_DATA_COLLECTION, httpBodies: [] },
    // Our host name says nothing useful and the service tag says where an event came from.
    serverName: service,
    tracesSampleRate: 0,
    maxBreadcrumbs: 0,
    beforeSend: (event: ErrorEvent) => scrubReport(event),
    beforeBreadcrumb: (breadcrumb) => scrubReport(breadcrumb),
  })
  client.init()
  const serviceScope = () => {
    const scope = new Scope()
    scope.setClient(client)
    scope.setTag('service', service)
    return scope
  }
  return {
    captureBackgroundError(error, task) {
      const scope = serviceScope()
      scope.setTag('task', task)
      return scope.captureException(error)
    },
    captureRequestError(error, request) {
      const scope = serviceScope()
      scope.setTag('request_id', request.id)
      const route = request.routeOptions.url
      if (route) scope.setTag('route', route)
      const headers: Record<string, string> = {}
      for (const name of REPORTED_HEADERS) {
        const value = request.headers[name]
        if (typeof value === 'string') headers[name] = value
      }
      // The path with secret query values removed; never cookies, the body or other headers.
      const reported = { method: request.method, url: redactUrl(request.url), headers }
      scope.addEventProcessor((event) => ({ ...event, request: reported }))
      return scope.captureException(error)
    },
    flush: async (timeoutMs = 2_000) => client.flush(timeoutMs),
    close: async (timeoutMs = 2_000) => void (await client.close(timeoutMs)),
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's error reporting; undefined without SENTRY_DSN. */
    errorReporter: ErrorReporter | undefined
  }
}

/** Makes the reporter reachable from routes and plugins (`app.errorReporter`), and sends what is pending when the app closes. */
export const errorReporting = fp<{ reporter: ErrorReporter | undefined }>(
  async (app, { reporter }) => {
    app.decorate('errorReporter', reporter)
    if (reporter) app.addHook('onClose', async () => reporter.close())
  },
  { name: 'error-reporter', fastify: '5.x' },
)
