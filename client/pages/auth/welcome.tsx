import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { PASSWORD_MIN_LENGTH, validatePassword } from '../../../shared/sign-up.ts'
import { AuthShell, Field, Notice } from '../../components/auth-shell.tsx'
import { ProviderButtons } from '../../components/provider-buttons.tsx'
import { EmailPassword } from '../../lib/auth.ts'
import { describeAuthFailure } from '../../lib/auth-errors.ts'
import { readUtm } from '../../lib/utm.ts'

/** Spec §5: the SDK's duplicate-email text is shown as the product's own; others pass through. */
export const EMAIL_EXISTS_SDK_MESSAGE = 'This email already exists. Please sign in instead.'

async function emailExists(email: string): Promise<boolean> {
  try {
    const response = await fetch(`/api/user/check-email?email=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } })
    return response.ok && ((await response.json()) as { success?: boolean }).success === true
  } catch {
    return false
  }
}

/** /welcome: sign up with email and password (spec §3 sign-up form), then verify the email. */
export function Component() {
  const { t } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const emailTaken = t('auth:welcome.emailExists')
  const fieldMessage = (message: string) => (message === EMAIL_EXISTS_SDK_MESSAGE ? emailTaken : message)

  // Spec §5: email existence is checked by query, so the duplicate shows before submitting.
  const checkEmail = async (email: string) => {
    if (!email.includes('@')) return
    const taken = await emailExists(email.trim())
    setFieldErrors((errors) => {
      const { email: _old, ...rest } = errors
      return taken ? { ...rest, email: emailTaken } : rest
    })
  }

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const email = String(form.get('email') ?? '').trim()
    const password = String(form.get('password') ?? '')
    const passwordProblem = validatePassword(password)
    if (passwordProblem) {
      setFieldErrors({ password: t('auth:fields.passwordTooShort', { count: PASSWORD_MIN_LENGTH }) })
      return
    }
    setBusy(true)
    setFieldErrors({})
    setError(null)
    try {
      const utm = readUtm()
      const formFields = [
        { id: 'email', value: email },
        { id: 'password', value: password },
        // JSON values, not strings: the BFF checks their types (spec §3).
        { id: 'isInMailList', value: form.get('isInMailList') === 'on' },
        ...(utm ? [{ id: 'utm', value: utm }] : []),
      ] as unknown as Array<{ id: string; value: string }>
      const result = await EmailPassword.signUp({ formFields })
      if (result.status === 'OK') {
        await navigate('/check-email', { replace: true, state: { email } })
        return
      }
      if (result.status === 'FIELD_ERROR') setFieldErrors(Object.fromEntries(result.formFields.map((field) => [field.id, fieldMessage(field.error)])))
      else setError(result.reason)
    } catch (failure) {
      setError((await describeAuthFailure(failure, t)).message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <AuthShell
      title={t('auth:welcome.title')}
      lead={t('auth:welcome.lead')}
      footer={
        <p>
          {t('auth:welcome.haveAccount')} <Link to="/login">{t('auth:welcome.logIn')}</Link>
        </p>
      }
    >
      {error ? (
        <Notice kind="error" testId="welcome-error">
          {error}
        </Notice>
      ) : null}
      <form method="post" onSubmit={(event) => void submit(event)} noValidate>
        <Field
          id="welcome-email"
          name="email"
          type="email"
          autoComplete="email"
          required
          label={t('auth:fields.email')}
          error={fieldErrors.email}
          onBlur={(event) => void checkEmail(event.currentTarget.value)}
        />
        <Field
          id="welcome-password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={PASSWORD_MIN_LENGTH}
          label={t('auth:fields.password')}
          hint={t('auth:welcome.passwordRules', { count: PASSWORD_MIN_LENGTH })}
          error={fieldErrors.password}
        />
        <div className="field field-check">
          <input id="welcome-mail-list" type="checkbox" name="isInMailList" />
          <label htmlFor="welcome-mail-list">{t('auth:fields.mailList')}</label>
        </div>
        <p className="form-aside">
          {t('auth:welcome.termsBefore')} <Link to="/terms">{t('common:footer.terms')}</Link> {t('auth:welcome.termsAnd')}{' '}
          <Link to="/privacy">{t('common:footer.privacy')}</Link>.
        </p>
        <button type="submit" className="button" disabled={busy}>
          {t('auth:welcome.submit')}
        </button>
      </form>
      <ProviderButtons />
    </AuthShell>
  )
}
