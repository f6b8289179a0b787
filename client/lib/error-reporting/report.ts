import type { ErrorReportingSettings } from '../../../shared/error-reporting.ts'
import type * as SentryBrowser from './sentry-browser.ts'

// The browser's side of error reporting (decision 019). This file is all a page carries:
// the Sentry SDK itself (sentry-browser.ts) is a separate chunk, loaded after hydration and only
// when the operator set SENTRY_DSN, so the public pages' initial JavaScript stays within budget.

type Sdk = typeof SentryBrowser

let settings: ErrorReportingSettings | null = null
let sdk: Promise<Sdk | null> | null = null

/** Set by the browser entry before hydration, from the server's allow-listed settings. */
export function configureErrorReporting(value: ErrorReportingSettings | null): void {
  settings = value
}

function loadSdk(): Promise<Sdk | null> {
  if (!settings) return Promise.resolve(null)
  const active = settings
  sdk ??= import('./sentry-browser.ts').then(
    (module) => {
      module.startSentry(active)
      return module
    },
    // A chunk that cannot load (offline, a new deployment) must not become an error of its own.
    () => null,
  )
  return sdk
}

/** Starts the SDK (its breadcrumbs begin here); called once the page is hydrated. */
export function startErrorReporting(): void {
  void loadSdk()
}

/**
 * Reports an error; resolves to the event id, or undefined when reporting is off. An error raised
 * before the SDK has loaded waits for it rather than being lost.
 */
export async function reportToTracker(error: unknown): Promise<string | undefined> {
  const module = await loadSdk()
  return module?.captureError(error)
}
