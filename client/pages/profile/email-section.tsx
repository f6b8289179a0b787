import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { validateEmail } from '../../../shared/auth/sign-up.ts'
import { Field, Notice } from '../../components/auth-shell.tsx'
import { apiResponse } from '../../lib/api.ts'
import { useRouteWrite, type WriteFailure } from '../../lib/route-writes.ts'
import type { ProfileOutcome } from './actions.ts'
import { useSecuritySummary } from './security-summary.ts'

// The profile's email address: the current one, a change waiting for its link (send it
// again, or cancel), and the form for a new address with the current password. Answered by the
// BFF (GET/POST /api/user/email, …/resend, …/pending) through the profile's action (actions.ts);
// the address changes only once the link mailed to the new one is opened (/confirm-email).

interface EmailState {
  email: string | null
  pendingEmail: string | null
  expiresAt: string | null
}

type ErrorKey = 'invalid' | 'unchanged' | 'taken' | 'wrongPassword' | 'blocked' | 'noPassword' | 'noPending' | 'mailUnavailable' | 'tooManyRequests'

/** The BFF's stable codes, each with a text of ours in the page's language. */
const ERROR_KEYS: Record<string, ErrorKey> = {
  BFF_EMAIL_INVALID: 'invalid',
  BFF_EMAIL_UNCHANGED: 'unchanged',
  BFF_EMAIL_TAKEN: 'taken',
  BFF_WRONG_PASSWORD: 'wrongPassword',
  BFF_EMAIL_CHANGE_BLOCKED: 'blocked',
  BFF_NO_PASSWORD: 'noPassword',
  BFF_NO_PENDING_EMAIL: 'noPending',
  BFF_MAIL_UNAVAILABLE: 'mailUnavailable',
  BFF_RATE_LIMITED: 'tooManyRequests',
}

export function EmailSection() {
  const { t, i18n } = useTranslation(['profile', 'common'])
  const id = useId()
  const [state, setState] = useState<EmailState | 'loading' | 'failed'>('loading')
  const formElement = useRef<HTMLFormElement>(null)
  // An account without a password (an external provider only) takes its address from the provider.
  const summary = useSecuritySummary()
  const external = typeof summary === 'object' && !summary.hasPassword

  const load = useCallback(async () => {
    const response = await apiResponse(undefined, '/api/user/email').catch(() => null)
    setState(response?.status === 200 && response.body && typeof response.body === 'object' ? (response.body as EmailState) : 'failed')
  }, [])
  useEffect(() => {
    void load()
  }, [load])

  const failureText = (failure: WriteFailure): string => {
    if (failure.status === 0) return t('common:errors.errorApiRequest')
    const key = failure.code ? ERROR_KEYS[failure.code] : undefined
    return key ? t(`profile:email.errors.${key}`) : t('common:errors.occuredSomeError')
  }
  const date = (iso: string) => new Date(iso).toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'short' })

  // The address the change was for, and the state it was made on: the words of "sent again" name it.
  const pendingOf = useRef<string | null>(null)
  type Status = { kind: 'success' | 'error'; text: string }
  /** What the section says of a change's answer: the field's problem, or the section's status. */
  const shown = (outcome: ProfileOutcome): { field?: string; status?: Status } => {
    if (outcome.failure) {
      const text = failureText(outcome.failure)
      if (outcome.intent === 'changeEmail' && outcome.failure.status === 400 && outcome.failure.code === 'BFF_EMAIL_INVALID') return { field: text }
      return { status: { kind: 'error', text } }
    }
    if (outcome.intent === 'changeEmail') return { status: { kind: 'success', text: t('profile:email.sent', { email: outcome.pendingEmail ?? '' }) } }
    if (outcome.intent === 'resendEmail') return { status: { kind: 'success', text: t('profile:email.resent', { email: pendingOf.current ?? '' }) } }
    return { status: { kind: 'success', text: t('profile:email.cancelled') } }
  }
  const isEmails = (outcome: ProfileOutcome | undefined): outcome is ProfileOutcome => outcome?.intent === 'changeEmail' || outcome?.intent === 'resendEmail' || outcome?.intent === 'cancelEmail'
  const write = useRouteWrite<ProfileOutcome>((outcome) => {
    if (!isEmails(outcome)) return
    void load()
    if (outcome.intent === 'changeEmail' && !outcome.failure) formElement.current?.reset()
    const { field, status: next } = shown(outcome)
    setFieldError(field)
    setStatus(next ?? null)
  })
  const [status, setStatus] = useState<Status | null>(() => (isEmails(write.initial) ? (shown(write.initial).status ?? null) : null))
  const [fieldError, setFieldError] = useState<string | undefined>(() => (isEmails(write.initial) ? shown(write.initial).field : undefined))

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const newEmail = String(form.get('newEmail') ?? '').trim()
    setStatus(null)
    if (validateEmail(newEmail)) {
      setFieldError(t('profile:email.errors.invalid'))
      return
    }
    setFieldError(undefined)
    void write.submit({ intent: 'changeEmail', newEmail, currentPassword: String(form.get('currentPassword') ?? '') })
  }

  const act = (intent: 'resendEmail' | 'cancelEmail') => {
    setStatus(null)
    pendingOf.current = typeof state === 'object' ? state.pendingEmail : null
    void write.submit({ intent })
  }

  return (
    <section className="profile-section" aria-labelledby={`${id}-heading`} data-testid="email-section">
      <h2 id={`${id}-heading`}>{t('profile:email.heading')}</h2>
      <p className="hint">{t('profile:email.lead')}</p>
      {state === 'loading' ? <p aria-live="polite">{t('profile:email.loading')}</p> : null}
      {state === 'failed' ? <Notice kind="error">{t('profile:email.failed')}</Notice> : null}
      {typeof state === 'object' ? (
        <dl className="profile-facts">
          <dt>{t('profile:email.current')}</dt>
          <dd data-testid="email-current">{state.email ?? '—'}</dd>
        </dl>
      ) : null}
      {typeof state === 'object' && state.pendingEmail && state.expiresAt ? (
        <div className="email-pending" data-testid="email-pending">
          <p>{t('profile:email.pending', { email: state.pendingEmail, date: date(state.expiresAt) })}</p>
          <p className="actions">
            <button type="button" className="button button-secondary" disabled={write.busy} onClick={() => act('resendEmail')}>
              {t('profile:email.resend')}
            </button>{' '}
            <button type="button" className="button button-secondary" disabled={write.busy} onClick={() => act('cancelEmail')}>
              {t('profile:email.cancel')}
            </button>
          </p>
        </div>
      ) : null}
      {status ? (
        <Notice kind={status.kind} testId="email-status">
          {status.text}
        </Notice>
      ) : null}
      {external ? (
        <p className="hint" data-testid="email-external">
          {t('profile:email.errors.noPassword')}
        </p>
      ) : (
        <form ref={formElement} className="profile-form" method="post" noValidate onSubmit={submit}>
          <input type="hidden" name="intent" value="changeEmail" />
          <Field id={`${id}-new`} label={t('profile:email.newEmail')} name="newEmail" type="email" autoComplete="email" inputMode="email" required error={fieldError} />
          <Field id={`${id}-password`} label={t('profile:email.password')} hint={t('profile:email.passwordHint')} name="currentPassword" type="password" autoComplete="current-password" required />
          <p className="actions">
            <button type="submit" className="button" disabled={write.busy}>
              {t('profile:email.submit')}
            </button>
          </p>
        </form>
      )}
    </section>
  )
}
