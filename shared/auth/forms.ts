import { LOGIN_WARNING_THRESHOLD } from '../constants.ts'

// What an account page shows after one of its forms was sent (decision 025), as data:
// made from the SDK's answer in the browser (supertokens-web-js), or by the BFF from the same
// answer when the form was sent before the page's script ran (server/bff/auth/page-forms.ts).
// The page translates it (client/lib/account/auth-errors.ts): no English text of the SDK is shown as is
// except on English pages, where spec §5 passes the SDK's field errors through unchanged.

/** Why a form did not go through, by the SDK's status or the BFF's error code, never by English text. */
export type AuthProblem =
  /** Spec §8: sign-in answered 429 ACCOUNT_BLOCKED. */
  | { kind: 'blocked'; blockedUntil: string }
  /** Spec §5: with at most LOGIN_WARNING_THRESHOLD attempts left, how many. */
  | { kind: 'wrongCredentials'; attemptsRemaining?: number }
  /** SIGN_IN_NOT_ALLOWED, SIGN_UP_NOT_ALLOWED, PASSWORD_RESET_NOT_ALLOWED, SIGN_IN_UP_NOT_ALLOWED; `code` is the SDK's ERR_CODE_… for support. */
  | { kind: 'notAllowed'; status: NotAllowedStatus; code?: string }
  | { kind: 'invalidToken' }
  /** The TOTP code was wrong; so many attempts are left. */
  | { kind: 'wrongCode'; attemptsLeft: number }
  /** Too many wrong codes: try again after this time (ISO). */
  | { kind: 'codeLocked'; until: string }
  | { kind: 'recoveryWrong' }
  | { kind: 'recoveryLocked' }
  /** Spec §8 GENERAL_ERROR, with its message. */
  | { kind: 'generalError'; message: string }
  /** Every allowed check for the email was still under way (several tabs): not a block. */
  | { kind: 'signInInProgress' }
  | { kind: 'tooManyRequests' }
  | { kind: 'mailUnavailable' }
  | { kind: 'unavailable' }
  /** No session (signed out meanwhile, or never signed in here). */
  | { kind: 'signedOut' }
  /** Another site's form, or a request without the page's own marks (decision 025). */
  | { kind: 'refused' }
  | { kind: 'badRequest' }
  /** Spec §8: the request never reached us. */
  | { kind: 'network' }
  | { kind: 'unknown' }

export type NotAllowedStatus = 'SIGN_IN_NOT_ALLOWED' | 'SIGN_UP_NOT_ALLOWED' | 'PASSWORD_RESET_NOT_ALLOWED' | 'SIGN_IN_UP_NOT_ALLOWED'

export interface FormOutcome {
  /** Field id → the field error the SDK (or our validators behind it) answered, in English. */
  fields?: Record<string, string>
  problem?: AuthProblem
  /** The form's values to show again (never a password). */
  values?: Record<string, string>
  /** The form did its work: the reset link is on its way, the password is changed, the email is verified. */
  done?: boolean
  /** The email was verified in a browser that holds a session: the page leads on to the target, not to the login. */
  signedIn?: boolean
}

/** An answer of the SDK's API (HTTP 200): its `status` and what comes with it. */
export interface SdkAnswer {
  status: string
  formFields?: Array<{ id: string; error: string }>
  reason?: string
  message?: string
  maxNumberOfFailedAttempts?: number
  currentNumberOfFailedAttempts?: number
  retryAfterMs?: number
}

/** Spec §8: what a GENERAL_ERROR answer shows when it carries no message. (Here, not in constants.ts: only the account pages' chunk needs it.) */
export const GENERAL_ERROR_FALLBACK_MESSAGE = 'No Error Message Provided'

const NOT_ALLOWED = new Set<string>(['SIGN_IN_NOT_ALLOWED', 'SIGN_UP_NOT_ALLOWED', 'PASSWORD_RESET_NOT_ALLOWED', 'SIGN_IN_UP_NOT_ALLOWED'])

/** What the page shows for an SDK answer other than OK. */
export function outcomeOfAnswer(answer: SdkAnswer, now = Date.now()): FormOutcome {
  switch (answer.status) {
    case 'FIELD_ERROR':
      return { fields: Object.fromEntries((answer.formFields ?? []).map((field) => [field.id, field.error])) }
    case 'WRONG_CREDENTIALS_ERROR':
      return { problem: { kind: 'wrongCredentials' } }
    case 'RESET_PASSWORD_INVALID_TOKEN_ERROR':
    case 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR':
      return { problem: { kind: 'invalidToken' } }
    case 'INVALID_TOTP_ERROR':
      return { problem: { kind: 'wrongCode', attemptsLeft: Math.max(0, (answer.maxNumberOfFailedAttempts ?? 0) - (answer.currentNumberOfFailedAttempts ?? 0)) } }
    case 'LIMIT_REACHED_ERROR':
      return { problem: { kind: 'codeLocked', until: new Date(now + (answer.retryAfterMs ?? 0)).toISOString() } }
    case 'GENERAL_ERROR':
      // Spec §8: its message, or the fallback.
      return { problem: { kind: 'generalError', message: answer.message || GENERAL_ERROR_FALLBACK_MESSAGE } }
    default: {
      if (!NOT_ALLOWED.has(answer.status)) return { problem: { kind: 'unknown' } }
      // The SDK's reasons end in a support code, e.g. "… contact support. (ERR_CODE_008)".
      const code = /\((ERR_CODE_\d{3})\)\s*$/.exec(answer.reason ?? '')?.[1]
      return { problem: { kind: 'notAllowed', status: answer.status as NotAllowedStatus, ...(code ? { code } : {}) } }
    }
  }
}

/** What the page shows for an HTTP answer of 300 or more (spec §8: the SDK throws it), by status and error code. */
export function problemOfHttp(status: number, body: unknown): AuthProblem {
  const answer = (typeof body === 'object' && body !== null ? body : {}) as { status?: unknown; code?: unknown; blockedUntil?: unknown }
  if (status === 429 && answer.status === 'ACCOUNT_BLOCKED' && typeof answer.blockedUntil === 'string') return { kind: 'blocked', blockedUntil: answer.blockedUntil }
  if (status === 429 && answer.status === 'SIGN_IN_IN_PROGRESS') return { kind: 'signInInProgress' }
  if (status === 429) return { kind: 'tooManyRequests' }
  if (answer.code === 'BFF_MAIL_UNAVAILABLE') return { kind: 'mailUnavailable' }
  if (answer.code === 'BFF_RECOVERY_CODE_INVALID') return { kind: 'recoveryWrong' }
  if (answer.code === 'BFF_RECOVERY_CODE_BLOCKED') return { kind: 'recoveryLocked' }
  if (answer.code === 'BFF_CSRF_REJECTED') return { kind: 'refused' }
  // An emailed link whose tenantId was mangled on its way: the link is what is wrong.
  if (answer.code === 'BFF_TENANT_NOT_FOUND') return { kind: 'invalidToken' }
  if (status === 401) return { kind: 'signedOut' }
  if (status >= 500) return { kind: 'unavailable' }
  if (status >= 400) return { kind: 'badRequest' }
  return { kind: 'unknown' }
}

/** The answer of GET /api/login-attempts/check-block-status. */
export interface BlockStatus {
  attemptsRemaining: number
  blocked: boolean
  blockedUntil: string | null
}

/** Spec §5: after a wrong password, a warning once few attempts remain, or the block it caused. */
export function afterWrongCredentials(status: BlockStatus | null): AuthProblem {
  if (status?.blocked && status.blockedUntil) return { kind: 'blocked', blockedUntil: status.blockedUntil }
  if (status && status.attemptsRemaining > 0 && status.attemptsRemaining <= LOGIN_WARNING_THRESHOLD) return { kind: 'wrongCredentials', attemptsRemaining: status.attemptsRemaining }
  return { kind: 'wrongCredentials' }
}
