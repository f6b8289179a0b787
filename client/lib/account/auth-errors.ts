import type { TFunction } from 'i18next'
import { GENERAL_ERROR_FALLBACK_MESSAGE, problemOfHttp, type AuthProblem } from '../../../shared/auth/forms.ts'
import { TOTP_COOLDOWN_S } from '../../../shared/constants.ts'
import { PASSWORD_ERRORS, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../shared/auth/sign-up.ts'

// What a person reads when an account form does not go through, in the page's language
// (decision 025). The SDK answers in English: statuses and error codes are translated by what they are,
// and its field errors — which have no code — by field and text, from the list below. On English
// pages a field error the list does not know passes through unchanged (spec §5); elsewhere it
// becomes a translated "not accepted", so no English text of the SDK reaches another language.

export type AuthT = TFunction<readonly ['auth', 'common']>

/** Spec §5: the SDK's duplicate-email text, shown in the product's own words. */
export const EMAIL_EXISTS_SDK_MESSAGE = 'This email already exists. Please sign in instead.'

/**
 * Every field error the account forms can be answered with, and its key: supertokens-node 24's
 * (lib/build/recipe/emailpassword/api/utils.js "Field is not optional", utils.js's default email
 * check, api/signup.js's duplicate) and ours behind it (shared/auth/sign-up.ts). English values are
 * these very texts, the spec's rewrite of the duplicate aside.
 */
export const SDK_FIELD_ERRORS: Record<string, Record<string, [key: string, count?: number]>> = {
  email: {
    'Field is not optional': ['auth:fieldErrors.emailRequired'],
    'Email is invalid': ['auth:fieldErrors.emailInvalid'],
    [EMAIL_EXISTS_SDK_MESSAGE]: ['auth:welcome.emailExists'],
  },
  password: {
    'Field is not optional': ['auth:fieldErrors.passwordRequired'],
    [PASSWORD_ERRORS.tooShort]: ['auth:fields.passwordTooShort', PASSWORD_MIN_LENGTH],
    [PASSWORD_ERRORS.tooLong]: ['auth:fieldErrors.passwordTooLong', PASSWORD_MAX_LENGTH],
    [PASSWORD_ERRORS.common]: ['auth:fieldErrors.passwordCommon'],
  },
  confirm: {
    [PASSWORD_ERRORS.mismatch]: ['auth:reset.mismatch'],
  },
}

/** English is the SDK's language and the source of ours. */
function isEnglish(language: string): boolean {
  return language.split('-')[0] === 'en'
}

/** A field error of the SDK in the page's language. */
export function fieldMessage(id: string, text: string, t: AuthT, language: string): string {
  const known = SDK_FIELD_ERRORS[id]?.[text]
  if (known) return t(known[0] as 'auth:fieldErrors.emailInvalid', known[1] === undefined ? {} : { count: known[1] })
  return isEnglish(language) ? text : t('auth:fieldErrors.invalid')
}

/** The field errors of an answer, translated, by field id. */
export function fieldMessages(fields: Record<string, string> | undefined, t: AuthT, language: string): Record<string, string> {
  return Object.fromEntries(Object.entries(fields ?? {}).map(([id, text]) => [id, fieldMessage(id, text, t, language)]))
}

/** supertokens-website's STGeneralError marks itself with this flag. */
function isGeneralError(error: unknown): error is Error {
  return error instanceof Error && (error as { isSuperTokensGeneralError?: boolean }).isSuperTokensGeneralError === true
}

/**
 * Why an SDK call threw: the SDK throws the Response of any status ≥ 300 (spec §8) and
 * STGeneralError for GENERAL_ERROR; a fetch that never reached us is a TypeError.
 */
export async function problemOfFailure(error: unknown): Promise<AuthProblem> {
  if (error instanceof Response) {
    let body: unknown = null
    try {
      body = await error.json()
    } catch {
      body = null
    }
    return problemOfHttp(error.status, body)
  }
  if (isGeneralError(error)) return { kind: 'generalError', message: error.message || GENERAL_ERROR_FALLBACK_MESSAGE }
  if (error instanceof TypeError) return { kind: 'network' }
  return { kind: 'unknown' }
}

/** The sentence a problem shows as, in the page's language. */
export function problemMessage(problem: AuthProblem, t: AuthT, language: string): string {
  switch (problem.kind) {
    case 'blocked':
      return t('auth:login.blocked', { time: formatUntil(problem.blockedUntil, language) })
    case 'notAllowed': {
      const sentence = t(NOT_ALLOWED_KEYS[problem.status])
      return problem.code ? `${sentence} (${problem.code})` : sentence
    }
    case 'wrongCode':
      return t('auth:mfa.wrongCode', { count: problem.attemptsLeft })
    case 'codeLocked':
      return t('auth:mfa.locked', { time: formatUntil(problem.until, language) })
    case 'recoveryLocked':
      return t('auth:authenticator.recoveryLocked', { minutes: TOTP_COOLDOWN_S / 60 })
    case 'generalError':
      // Spec §8 shows GENERAL_ERROR's own message; it is English, so only English pages do.
      return isEnglish(language) ? problem.message : t('common:errors.occuredSomeError')
    default:
      return t(PLAIN_KEYS[problem.kind])
  }
}

/** The problems whose sentence has nothing to fill in, and its key. */
const PLAIN_KEYS = {
  wrongCredentials: 'auth:login.wrongCredentials',
  invalidToken: 'auth:reset.invalid',
  recoveryWrong: 'auth:authenticator.recoveryWrong',
  signInInProgress: 'auth:errors.signInInProgress',
  tooManyRequests: 'auth:errors.tooManyRequests',
  mailUnavailable: 'auth:errors.mailUnavailable',
  unavailable: 'auth:errors.serverUnavailable',
  signedOut: 'auth:errors.signedOut',
  refused: 'auth:errors.refused',
  badRequest: 'auth:errors.badRequest',
  network: 'common:errors.errorApiRequest',
  unknown: 'common:errors.occuredSomeError',
} as const satisfies Record<Exclude<AuthProblem['kind'], 'blocked' | 'notAllowed' | 'wrongCode' | 'codeLocked' | 'recoveryLocked' | 'generalError'>, string>

const NOT_ALLOWED_KEYS = {
  SIGN_IN_NOT_ALLOWED: 'auth:errors.signInNotAllowed',
  SIGN_UP_NOT_ALLOWED: 'auth:errors.signUpNotAllowed',
  PASSWORD_RESET_NOT_ALLOWED: 'auth:errors.resetNotAllowed',
  SIGN_IN_UP_NOT_ALLOWED: 'auth:errors.externalNotAllowed',
} as const

/** A time of day (and date when not today) in the page's language. */
export function formatUntil(iso: string, language: string): string {
  const date = new Date(iso)
  const sameDay = date.toDateString() === new Date().toDateString()
  return new Intl.DateTimeFormat(language, sameDay ? { timeStyle: 'short' } : { dateStyle: 'medium', timeStyle: 'short' }).format(date)
}
