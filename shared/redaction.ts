// What never leaves a service in a log line or an error report (SECURITY.md "Errors and logs"):
// secrets (passwords, tokens, cookies, Authorization headers, API keys) and email addresses. The
// logger (server/http/logger.ts) and the error reports of all three sides (browser, BFF, API)
// read the same lists, so one change covers both.

/** Query parameters whose values are secrets (verification and reset links carry tokens) or personal (email addresses). */
const SECRET_QUERY = /([?&](?:token|code|state|password|access_token|refresh_token|email|session_id|key|sig|signature)=)[^&#]*/gi

export const REDACTED = '[redacted]'

/** A URL with the values of its secret query parameters replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, `$1${REDACTED}`)
}

/**
 * Field names whose values are dropped wherever they appear in a report: the logger's redaction
 * paths (cookie, authorization, x-api-key, set-cookie, password, newPassword, token, accessToken,
 * refreshToken) and their relatives, matched by name so a nested or renamed copy is caught too.
 */
const SECRET_KEY = /pass(word|wd)?|secret|token|cookie|authori[sz]ation|api[-_]?key|session[-_]?id|^email$|^ip_address$|^username$/i

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g
/** A JWT (SuperTokens' access tokens and front token are JWTs or base64 JSON). */
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi
/** `password=…`, `token: …` inside free text such as an error message. */
const INLINE_SECRET = /\b(pass(?:word|wd)?|secret|token|api[-_]?key|s(?:Access|Refresh)Token|sFrontToken)(["']?\s*[:=]\s*["']?)[^\s"'&;,]+/gi

/** A free text with secrets and email addresses replaced. */
export function redactText(text: string): string {
  return redactUrl(text)
    .replace(JWT, REDACTED)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(INLINE_SECRET, `$1$2${REDACTED}`)
    .replace(EMAIL, '[email]')
}

const MAX_DEPTH = 12

/**
 * A deep copy of a report (an event, a breadcrumb) with secret fields dropped and every string
 * passed through redactText. Cookies and request headers are removed whole: no header we might
 * send is worth the risk of a new one carrying a token.
 */
export function scrubReport<T>(value: T): T {
  return scrub(value, 0) as T
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value)
  if (value === null || typeof value !== 'object') return value
  if (depth > MAX_DEPTH) return REDACTED
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'cookies' || key === 'headers' || (key === 'data' && depth === 1 && isRequest(value))) continue
    if (SECRET_KEY.test(key)) {
      if (item !== undefined && item !== null) out[key] = REDACTED
      continue
    }
    out[key] = scrub(item, depth + 1)
  }
  return out
}

/** The `request` part of an event: its body (`data`) is never kept. */
function isRequest(value: object): boolean {
  return 'url' in value || 'method' in value
}

/**
 * What the Sentry SDKs may collect on their own (their `dataCollection` option, which replaced
 * `sendDefaultPii`): nothing personal — no user fields, cookies, headers, bodies, query strings or
 * local variables. The same on all three sides; what we attach ourselves goes through scrubReport.
 */
export const REPORT_DATA_COLLECTION = {
  userInfo: false,
  cookies: false,
  httpHeaders: false,
  httpBodies: [],
  urlQueryParams: false,
  databaseQueryData: false,
  queues: false,
  stackFrameVariables: false,
  graphQL: { document: false, variables: false },
  genAI: { inputs: false, outputs: false },
  mcp: { inputs: false, outputs: false },
} as const
