import { redirect, type ActionFunctionArgs } from 'react-router'
import { NOTIFY_MODES } from '../../../shared/catalogue/living.ts'
import { isLocale, type Locale } from '../../../shared/locales.ts'
import type { ApiResult } from '../../lib/api.ts'
import { apiWrite, failed, failureOf, readWrite, textField, withStatus, type WriteFailure } from '../../lib/route-writes.ts'
import { notifySignedOut } from '../../lib/session/presence.ts'

// The profile's writes, in one place: the route action of /@/my-profile. Each section's form posts
// an `intent` and its fields here; the action calls the BFF or the API and answers with what
// happened, which the section turns into words. The checks a section makes first (a display name's
// length, a picture's type) only save a wasted call: the server decides.

export const PROFILE_INTENTS = ['details', 'notifications', 'password', 'changeEmail', 'resendEmail', 'cancelEmail', 'uploadAvatar', 'removeAvatar', 'endSession', 'endOtherSessions', 'removeAuthenticator', 'newRecoveryCodes', 'deleteAccount'] as const
export type ProfileIntent = (typeof PROFILE_INTENTS)[number]

export type ProfileOutcome =
  | { intent: 'details'; language?: Locale; failure?: WriteFailure }
  | { intent: 'password'; mismatch?: true; failure?: WriteFailure }
  | { intent: 'notifications' | 'resendEmail' | 'cancelEmail' | 'uploadAvatar' | 'removeAvatar' | 'endSession' | 'endOtherSessions' | 'removeAuthenticator'; failure?: WriteFailure }
  | { intent: 'newRecoveryCodes'; codes?: string[]; failure?: WriteFailure }
  | { intent: 'deleteAccount'; failure?: WriteFailure; values?: { reason: string; comment: string } }
  | { intent: 'changeEmail'; pendingEmail?: string; failure?: WriteFailure }

/** What the person typed, as the BFF takes proof of the factor: six to eight digits come from the app; anything else is taken as a recovery code. */
function proofOf(form: FormData): { totp: string } | { recoveryCode: string } {
  const typed = textField(form, 'code').trim()
  const digits = typed.replace(/\s+/g, '')
  return /^\d{6,8}$/.test(digits) ? { totp: digits } : { recoveryCode: typed }
}


/** A picture's upload progress, 0 to 1, for the section showing it (fetch reports none). */
type ProgressListener = (fraction: number) => void
const progressListeners = new Set<ProgressListener>()
export function onAvatarProgress(listener: ProgressListener): () => void {
  progressListeners.add(listener)
  return () => progressListeners.delete(listener)
}

/** PUT the bytes with upload progress. The session SDK watches XMLHttpRequest too: an expired access token is refreshed and the upload retried. */
function putAvatar(file: Blob): Promise<ApiResult<unknown>> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest()
    request.open('PUT', '/api/user/avatar')
    request.setRequestHeader('accept', 'application/json')
    request.setRequestHeader('accept-language', document.documentElement.lang || 'en')
    request.setRequestHeader('content-type', 'application/octet-stream')
    request.setRequestHeader('rid', 'anti-csrf')
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) for (const listener of progressListeners) listener(event.loaded / event.total)
    }
    request.onload = () => {
      let body: unknown = null
      try {
        body = JSON.parse(request.responseText)
      } catch {
        // Not JSON: the status alone tells.
      }
      resolve({ ok: request.status >= 200 && request.status < 300, status: request.status, body })
    }
    request.onerror = () => resolve({ ok: false, status: 0, body: null })
    request.send(file)
  })
}

export async function action(args: ActionFunctionArgs) {
  const outcome = await write(args)
  return outcome instanceof Response ? outcome : withStatus(outcome, 'mismatch' in outcome)
}

async function write({ request, context }: ActionFunctionArgs): Promise<ProfileOutcome | Response> {
  const { intent, form } = await readWrite(request, PROFILE_INTENTS)
  switch (intent) {
    case 'details': {
      const language = textField(form, 'language')
      // An empty name clears it (the header then shows the email).
      const result = await apiWrite(context, 'PATCH', '/api/user', { name: textField(form, 'name') || null, ...(isLocale(language) ? { language } : {}) })
      return { intent, ...(isLocale(language) ? { language } : {}), ...failed(result) }
    }
    case 'notifications': {
      const notify = textField(form, 'notify')
      const body = { ...((NOTIFY_MODES as readonly string[]).includes(notify) ? { notify } : {}), watchOnAdd: textField(form, 'watchOnAdd') === 'on' }
      return { intent, ...failed(await apiWrite(context, 'PATCH', '/api/user', body)) }
    }
    case 'password': {
      const newPassword = textField(form, 'newPassword')
      // The page checks the two first; a form sent before its script ran is checked here.
      if (form.has('repeat') && textField(form, 'repeat') !== newPassword) return { intent, mismatch: true }
      return { intent, ...failed(await apiWrite(context, 'POST', '/api/user/password', { currentPassword: textField(form, 'currentPassword'), newPassword })) }
    }
    case 'changeEmail': {
      const result = await apiWrite<{ pendingEmail: string }>(context, 'POST', '/api/user/email', { newEmail: textField(form, 'newEmail'), currentPassword: textField(form, 'currentPassword') })
      return result.ok ? { intent, pendingEmail: (result.body as { pendingEmail: string }).pendingEmail } : { intent, failure: failureOf(result) }
    }
    case 'resendEmail':
      return { intent, ...failed(await apiWrite(context, 'POST', '/api/user/email/resend')) }
    case 'cancelEmail':
      return { intent, ...failed(await apiWrite(context, 'DELETE', '/api/user/email/pending')) }
    case 'uploadAvatar': {
      const file = form.get('file')
      return { intent, ...failed(file instanceof Blob ? await putAvatar(file) : { ok: false, status: 400, body: null }) }
    }
    case 'removeAvatar':
      return { intent, ...failed(await apiWrite(context, 'DELETE', '/api/user/avatar')) }
    case 'endSession':
      return { intent, ...failed(await apiWrite(context, 'DELETE', `/api/user/sessions/${encodeURIComponent(textField(form, 'handle'))}`)) }
    case 'endOtherSessions':
      return { intent, ...failed(await apiWrite(context, 'DELETE', '/api/user/sessions')) }
    case 'removeAuthenticator':
      return { intent, ...failed(await apiWrite(context, 'DELETE', `/api/user/totp/devices/${encodeURIComponent(textField(form, 'device'))}`, proofOf(form))) }
    case 'newRecoveryCodes': {
      const result = await apiWrite<{ codes: string[] }>(context, 'POST', '/api/user/recovery-codes', proofOf(form))
      return result.ok ? { intent, codes: (result.body as { codes: string[] }).codes } : { intent, failure: failureOf(result) }
    }
    case 'deleteAccount': {
      const totp = textField(form, 'totp').trim()
      const result = await apiWrite(context, 'POST', '/api/user/delete', {
        reason: textField(form, 'reason'),
        comment: textField(form, 'comment') || null,
        confirmEmail: textField(form, 'confirmEmail'),
        ...(totp ? { totp } : {}),
      })
      const outcome = failed(result)
      if (result.status !== 204 && outcome.failure?.code !== 'BFF_DELETION_PENDING') return { intent, ...outcome, values: { reason: textField(form, 'reason'), comment: textField(form, 'comment') } }
      // The account is gone and this browser's session with it (the answer cleared its cookies):
      // every part of the tab that shows the user lets go of them (the section that sent it says
      // "deleted" then), and the page is left for good.
      notifySignedOut()
      return redirect('/login')
    }
  }
}
