import type { Locale } from '../locales.ts'
import type { AnalyticsConsent } from '../consent.ts'
import type { PageSession } from '../auth/session.ts'
import type { ErrorReportingSettings } from '../error-reporting.ts'

// The contract between the BFF (server/bff/ssr) and the server entry of the React app
// (client/entry-server.tsx). Neither side imports the other; both import this.

/** Translation resources of one language: namespace → nested keys. */
export type NamespaceResources = Record<string, Record<string, unknown>>

export interface ServerApiResponse {
  status: number
  body: unknown
}

/** How loaders reach the product API while rendering on the server: directly, with the user's token. */
export interface ServerApi {
  get(path: string, init?: { signal?: AbortSignal }): Promise<ServerApiResponse>
  /**
   * A route action's write, when the action runs on the server for a form sent before the page's
   * script ran: through the BFF's own routes (its /api and account endpoints), as the script's would go.
   */
  send?(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<ServerApiResponse>
}

/** Settings the browser may see (DESIGN: an explicit allow-list). */
export interface ClientConfig {
  appUrl: string
  operatorName: string
  contactEmail: string
  /** The external identity providers offered on the sign-in pages. */
  providers: Array<{ id: string; name: string }>
  /** Content hash of the locale files; part of their URL so caches never serve stale text. */
  localesHash: string
  /** Content hash of the programs' logos and link-preview cards; part of their URLs (shared/catalogue/logos.ts). */
  logosVersion: string
  /** Chat links and outside scripts. */
  support: SupportSettings
  /** Error reporting; null when the operator set no SENTRY_DSN: nothing loads. */
  errorReporting: ErrorReportingSettings | null
  /** Streaming clusters are configured: the signed-in menu offers "Streaming" only then. */
  streaming: boolean
}

/** Support settings the browser sees; null where the operator configured none. */
export interface SupportSettings {
  /** A messaging bot to chat with (SUPPORT_BOT_URL). */
  botUrl: string | null
  /** A chat app conversation with support (SUPPORT_CHAT_URL). */
  chatUrl: string | null
  /** The live-chat widget's loader script (CHAT_WIDGET_SCRIPT_URL). */
  chatWidgetScriptUrl: string | null
  /** The tag manager, loaded only with the visitor's consent (TAG_MANAGER_SCRIPT_URL). */
  tagManagerScriptUrl: string | null
}

export interface RenderInput {
  url: string
  headers: Record<string, string>
  locale: Locale
  /** Every namespace of `locale`, English filled in for missing keys; the page embeds the ones it uses. */
  resources: NamespaceResources
  nonce: string
  api: ServerApi
  config: ClientConfig
  /** The visitor's session as the BFF read it from the access token (spec §4 states). */
  session: PageSession
  /** The visitor's analytics choice from the consent cookie; null: not chosen yet. */
  consent: AnalyticsConsent | null
  /**
   * An account form sent before the page's script ran, already answered by the BFF (decision
   * 025): the page renders as the route's action with this outcome and HTTP status.
   */
  form?: { outcome: unknown; status: number }
  /**
   * Any other page's form sent before its script ran, urlencoded as posted: the page's route action
   * runs with it (its writes through `api.send`) and the page renders with the action's answer.
   */
  formFields?: string
  /**
   * Called once the page's data has loaded, before its markup is made; the render waits for the
   * promise it may return (the BFF's turns of the event loop: server/bff/markup-turns.ts).
   */
  markupTurn?: () => Promise<void> | undefined
}

export type RenderResult =
  | { kind: 'redirect'; status: number; location: string }
  | {
      kind: 'page'
      status: number
      /** <title>, <meta> and other tags for <head>. */
      head: string
      /** Markup for the #root container. */
      html: string
      /** Nonce'd scripts with hydration data, placed after #root. */
      scripts: string
      /** Source paths of the matched page modules (the server preloads their built chunks). */
      modules: string[]
      /** Response headers the matched routes ask for (a share link's page: no-store). */
      headers: Record<string, string>
    }

/** Globals the server writes into the page for hydration. */
export interface BootData {
  locale: Locale
  namespaces: string[]
  resources: NamespaceResources
  config: ClientConfig
}

export const BOOT_DATA_GLOBAL = '__SOFTSHELF_BOOT__'

/** JSON safe inside a <script> element: no "</script>", no line separators that break JS. */
export function serializeForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}
