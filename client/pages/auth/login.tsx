import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation, useNavigate } from 'react-router'
import { LOGIN_WARNING_THRESHOLD } from '../../../shared/constants.ts'
import { AuthShell, Field, Notice } from '../../components/auth-shell.tsx'
import { ProviderButtons } from '../../components/provider-buttons.tsx'
import { EmailPassword } from '../../lib/auth.ts'
import { describeAuthFailure, formatUntil, redirectTarget, type BlockedSignIn } from '../../lib/auth-errors.ts'

interface BlockStatus {
  attemptsRemaining: number
  blocked: boolean
  blockedUntil: string | null
  attemptCount: number
}

async function blockStatus(email: string): Promise<BlockStatus | null> {
  try {
    const response = await fetch(`/api/login-attempts/check-block-status?email=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } })
    return response.ok ? ((await response.json()) as BlockStatus) : null
  } catch {
    return null
  }
}

/** /login: sign in with email and password, or an external provider (spec §2, §5, §8). */
export function Component() {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const location = useLocation()
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [remaining, setRemaining] = useState<number | null>(null)
  const [blocked, setBlocked] = useState<BlockedSignIn | null>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const email = String(form.get('email') ?? '').trim()
    const password = String(form.get('password') ?? '')
    setBusy(true)
    setFieldErrors({})
    setError(null)
    setRemaining(null)
    setBlocked(null)
    try {
      const result = await EmailPassword.signIn({ formFields: [{ id: 'email', value: email }, { id: 'password', value: password }] })
      if (result.status === 'OK') {
        await navigate(redirectTarget(location.search), { replace: true })
        return
      }
      if (result.status === 'FIELD_ERROR') setFieldErrors(Object.fromEntries(result.formFields.map((field) => [field.id, field.error])))
      else if (result.status === 'SIGN_IN_NOT_ALLOWED') setError(result.reason)
      else {
        setError(t('auth:login.wrongCredentials'))
        // Spec §5: a warning once few attempts remain before the temporary lock.
        const status = await blockStatus(email)
        if (status?.blocked && status.blockedUntil) setBlocked({ blockedUntil: status.blockedUntil, attemptCount: status.attemptCount })
        else if (status && status.attemptsRemaining > 0 && status.attemptsRemaining <= LOGIN_WARNING_THRESHOLD) setRemaining(status.attemptsRemaining)
      }
    } catch (failure) {
      const described = await describeAuthFailure(failure, t)
      if (described.blocked) setBlocked(described.blocked)
      else setError(described.message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <AuthShell
      title={t('auth:login.title')}
      lead={t('auth:login.lead')}
      footer={
        <p>
          {t('auth:login.noAccount')} <Link to="/welcome">{t('auth:login.signUp')}</Link>
        </p>
      }
    >
      {blocked ? (
        <Notice kind="error" testId="login-blocked">
          {t('auth:login.blocked', { time: formatUntil(blocked.blockedUntil, i18n.language) })}
        </Notice>
      ) : null}
      {error ? (
        <Notice kind="error" testId="login-error">
          {error}
        </Notice>
      ) : null}
      {remaining !== null ? (
        <Notice kind="warning" testId="login-warning">
          {t('auth:login.attemptsRemaining', { count: remaining })}
        </Notice>
      ) : null}
      <form method="post" onSubmit={(event) => void submit(event)} noValidate>
        <Field id="login-email" name="email" type="email" autoComplete="email" required label={t('auth:fields.email')} error={fieldErrors.email} />
        <Field id="login-password" name="password" type="password" autoComplete="current-password" required label={t('auth:fields.password')} error={fieldErrors.password} />
        <p className="form-aside">
          <Link to="/forgot-password">{t('auth:login.forgot')}</Link>
        </p>
        <button type="submit" className="button" disabled={busy}>
          {t('auth:login.submit')}
        </button>
      </form>
      <ProviderButtons />
    </AuthShell>
  )
}
