import type { TFunction } from 'i18next'

// What a person reads when an /auth call fails. The SDK throws the Response of any status ≥ 300
// (spec §8) and STGeneralError for GENERAL_ERROR; a fetch that never reached us is a TypeError.

export interface BlockedSignIn {
  blockedUntil: string
  attemptCount: number
}

export interface AuthFailure {
  message: string
  /** Spec §8: sign-in answered 429 ACCOUNT_BLOCKED. */
  blocked?: BlockedSignIn
}

/** supertokens-website's STGeneralError marks itself with this flag. */
function isGeneralError(error: unknown): error is Error {
  return error instanceof Error && (error as { isSuperTokensGeneralError?: boolean }).isSuperTokensGeneralError === true
}

export async function describeAuthFailure(error: unknown, t: TFunction<readonly ['auth', 'common']>): Promise<AuthFailure> {
  if (error instanceof Response) {
    let body: Record<string, unknown> | null = null
    try {
      body = (await error.json()) as Record<string, unknown>
    } catch {
      body = null
    }
    if (error.status === 429 && body?.status === 'ACCOUNT_BLOCKED' && typeof body.blockedUntil === 'string') {
      return { message: String(body.message ?? ''), blocked: { blockedUntil: body.blockedUntil, attemptCount: Number(body.attemptCount ?? 0) } }
    }
    // Issue 18: every allowed check for the email was still under way (several tabs): not a block.
    if (error.status === 429 && body?.status === 'SIGN_IN_IN_PROGRESS') return { message: t('auth:errors.signInInProgress') }
    if (error.status === 429) return { message: t('auth:errors.tooManyRequests') }
    if (body?.code === 'BFF_MAIL_UNAVAILABLE') return { message: t('auth:errors.mailUnavailable') }
    if (error.status >= 500) return { message: t('auth:errors.serverUnavailable') }
    return { message: typeof body?.message === 'string' ? body.message : error.statusText || t('common:errors.occuredSomeError') }
  }
  if (isGeneralError(error)) return { message: error.message || 'No Error Message Provided' }
  if (error instanceof TypeError) return { message: t('common:errors.errorApiRequest') }
  return { message: t('common:errors.occuredSomeError') }
}

/** A time of day (and date when not today) in the page's language. */
export function formatUntil(iso: string, language: string): string {
  const date = new Date(iso)
  const sameDay = date.toDateString() === new Date().toDateString()
  return new Intl.DateTimeFormat(language, sameDay ? { timeStyle: 'short' } : { dateStyle: 'medium', timeStyle: 'short' }).format(date)
}

/** Where to go after signing in: a same-site path from ?redirectToPath=, else the signed-in home. */
export function redirectTarget(search: string): string {
  const target = new URLSearchParams(search).get('redirectToPath')
  return target && target.startsWith('/') && !target.startsWith('//') && !target.startsWith('/\\') ? target : '/@'
}
