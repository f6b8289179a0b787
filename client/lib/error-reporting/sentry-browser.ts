import { captureException, init } from '@sentry/react'
import { REPORT_DATA_COLLECTION, scrubReport } from '../../../shared/redaction.ts'
import type { ErrorReportingSettings } from '../../../shared/error-reporting.ts'

// The Sentry browser SDK, loaded lazily by report.ts. Events go to the BFF's same-origin tunnel,
// which forwards only envelopes for the configured DSN; everything is scrubbed before it leaves
// the page, as the BFF and the API scrub theirs (shared/redaction.ts).

const DROPPED_INTEGRATIONS = new Set(['GlobalHandlers', 'BrowserSession'])

export function startSentry(settings: ErrorReportingSettings): void {
  init({
    dsn: settings.dsn,
    tunnel: settings.tunnel,
    release: settings.release,
    environment: settings.environment,
    dataCollection: { ...REPORT_DATA_COLLECTION, httpBodies: [] },
    // The app's own handlers (client/root.tsx) decide what an unhandled error is (an outside
    // script's is not ours) and report through captureError; the SDK's would report twice. No
    // release-health sessions either: an envelope per page view is traffic (and a visitor's
    // trace) we do not use, and it would spend the tunnel's per-IP allowance on nothing.
    integrations: (defaults) => defaults.filter((integration) => !DROPPED_INTEGRATIONS.has(integration.name)),
    beforeSend: (event) => scrubReport(event),
    beforeBreadcrumb: (breadcrumb) => scrubReport(breadcrumb),
  })
}

export function captureError(error: unknown): string {
  return captureException(error)
}
