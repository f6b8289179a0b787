import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation } from 'react-router'
import { PASSWORD_MIN_LENGTH, validatePassword } from '../../../shared/sign-up.ts'
import { AuthShell, Field, Notice } from '../../components/auth-shell.tsx'
import { EmailPassword } from '../../lib/auth.ts'
import { describeAuthFailure } from '../../lib/auth-errors.ts'

// /forgot-password asks for a link by email; /reset-password?token= sets the new password.

export function ForgotPasswordPage() {
  const { t } = useTranslation(['auth', 'common'])
  const [sent, setSent] = useState(false)
  const [fieldError, setFieldError] = useState<string | undefined>()
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const email = String(new FormData(event.currentTarget).get('email') ?? '').trim()
    setBusy(true)
    setFieldError(undefined)
    setError(null)
    try {
      const result = await EmailPassword.sendPasswordResetEmail({ formFields: [{ id: 'email', value: email }] })
      if (result.status === 'OK') setSent(true)
      else if (result.status === 'FIELD_ERROR') setFieldError(result.formFields.find((field) => field.id === 'email')?.error)
      else setError(result.reason)
    } catch (failure) {
      setError((await describeAuthFailure(failure, t)).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <AuthShell title={t('auth:forgot.title')} lead={sent ? undefined : t('auth:forgot.lead')} footer={<Link to="/login">{t('auth:forgot.backToLogin')}</Link>}>
      {sent ? (
        <Notice kind="success" testId="forgot-sent">
          {t('auth:forgot.sent')}
        </Notice>
      ) : (
        <form method="post" onSubmit={(event) => void submit(event)} noValidate>
          {error ? <Notice kind="error">{error}</Notice> : null}
          <Field id="forgot-email" name="email" type="email" autoComplete="email" required label={t('auth:fields.email')} error={fieldError} />
          <button type="submit" className="button" disabled={busy}>
            {t('auth:forgot.submit')}
          </button>
        </form>
      )}
    </AuthShell>
  )
}

export function ResetPasswordPage() {
  const { t } = useTranslation(['auth', 'common'])
  const token = new URLSearchParams(useLocation().search).get('token')
  const [outcome, setOutcome] = useState<'form' | 'done' | 'invalid'>(token ? 'form' : 'invalid')
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const password = String(form.get('password') ?? '')
    if (validatePassword(password)) {
      setFieldErrors({ password: t('auth:fields.passwordTooShort', { count: PASSWORD_MIN_LENGTH }) })
      return
    }
    if (password !== String(form.get('confirm') ?? '')) {
      setFieldErrors({ confirm: t('auth:reset.mismatch') })
      return
    }
    setBusy(true)
    setFieldErrors({})
    setError(null)
    try {
      const result = await EmailPassword.submitNewPassword({ formFields: [{ id: 'password', value: password }] })
      if (result.status === 'OK') setOutcome('done')
      else if (result.status === 'RESET_PASSWORD_INVALID_TOKEN_ERROR') setOutcome('invalid')
      else setFieldErrors(Object.fromEntries(result.formFields.map((field) => [field.id, field.error])))
    } catch (failure) {
      setError((await describeAuthFailure(failure, t)).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <AuthShell title={t('auth:reset.title')}>
      {outcome === 'done' ? (
        <>
          <Notice kind="success" testId="reset-done">
            {t('auth:reset.done')}
          </Notice>
          <Link className="button" to="/login">
            {t('auth:reset.logIn')}
          </Link>
        </>
      ) : outcome === 'invalid' ? (
        <>
          <Notice kind="error" testId="reset-invalid">
            {t('auth:reset.invalid')}
          </Notice>
          <Link to="/forgot-password">{t('auth:reset.getNewLink')}</Link>
        </>
      ) : (
        <form method="post" onSubmit={(event) => void submit(event)} noValidate>
          {error ? <Notice kind="error">{error}</Notice> : null}
          <Field
            id="reset-password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            label={t('auth:reset.newPassword')}
            hint={t('auth:welcome.passwordRules', { count: PASSWORD_MIN_LENGTH })}
            error={fieldErrors.password}
          />
          <Field id="reset-confirm" name="confirm" type="password" autoComplete="new-password" required label={t('auth:reset.confirm')} error={fieldErrors.confirm} />
          <button type="submit" className="button" disabled={busy}>
            {t('auth:reset.submit')}
          </button>
        </form>
      )}
    </AuthShell>
  )
}
