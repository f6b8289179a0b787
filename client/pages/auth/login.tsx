import type { FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { afterWrongCredentials, outcomeOfAnswer, type BlockStatus, type SdkAnswer } from '../../../shared/auth/forms.ts'
import { returnSearch } from '../../../shared/auth/return-path.ts'
import { AuthShell, Field, Notice } from '../../components/auth-shell.tsx'
import { ProviderButtons } from '../../components/provider-buttons.tsx'
import { continueTo } from '../../lib/account/continue.ts'
import { formOutcomeAction, useAccountForm } from '../../lib/account/form-outcome.ts'
import { EmailPassword } from '../../lib/session/auth.ts'
import { fieldMessages, problemMessage } from '../../lib/account/auth-errors.ts'

/** A form sent before the script ran, answered by the BFF (decision 025). */
export const action = formOutcomeAction

async function blockStatus(email: string): Promise<BlockStatus | null> {
  try {
    const response = await fetch(`/api/login-attempts/check-block-status?email=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } })
    return response.ok ? ((await response.json()) as BlockStatus) : null
  } catch {
    return null
  }
}

/**
 * /login: sign in with email and password, or an external provider (spec §2, §5, §8), then on to
 * ?redirectToPath=. Sent before the script runs, the form is answered by the
 * BFF the same way (decision 025).
 */
export function Component() {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const { target, outcome, busy, send } = useAccountForm()

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const email = String(form.get('email') ?? '').trim()
    const password = String(form.get('password') ?? '')
    await send({ email }, async () => {
      const result = await EmailPassword.signIn({ formFields: [{ id: 'email', value: email }, { id: 'password', value: password }] })
      if (result.status === 'OK') {
        await continueTo(navigate, target)
        return undefined
      }
      const next = outcomeOfAnswer(result as SdkAnswer)
      // Spec §5: a warning once few attempts remain before the temporary lock.
      if (next.problem?.kind === 'wrongCredentials') next.problem = afterWrongCredentials(await blockStatus(email))
      return { ...next, values: { email } }
    })
  }

  const problem = outcome?.problem
  const fieldErrors = fieldMessages(outcome?.fields, t, i18n.language)
  return (
    <AuthShell
      title={t('auth:login.title')}
      lead={t('auth:login.lead')}
      footer={
        <p>
          {t('auth:login.noAccount')} <Link to={`/welcome${returnSearch(target)}`}>{t('auth:login.signUp')}</Link>
        </p>
      }
    >
      {target?.action ? <Notice kind="info">{t('auth:return.addAfterLogin')}</Notice> : null}
      {problem?.kind === 'blocked' ? (
        <Notice kind="error" testId="login-blocked">
          {problemMessage(problem, t, i18n.language)}
        </Notice>
      ) : problem ? (
        <Notice kind="error" testId="login-error">
          {problemMessage(problem, t, i18n.language)}
        </Notice>
      ) : null}
      {problem?.kind === 'wrongCredentials' && problem.attemptsRemaining !== undefined ? (
        <Notice kind="warning" testId="login-warning">
          {t('auth:login.attemptsRemaining', { count: problem.attemptsRemaining })}
        </Notice>
      ) : null}
      <form method="post" onSubmit={(event) => void submit(event)} noValidate>
        <Field id="login-email" name="email" type="email" autoComplete="email" required label={t('auth:fields.email')} error={fieldErrors.email} defaultValue={outcome?.values?.email} />
        <Field id="login-password" name="password" type="password" autoComplete="current-password" required label={t('auth:fields.password')} error={fieldErrors.password} />
        <p className="form-aside">
          <Link to={`/forgot-password${returnSearch(target)}`}>{t('auth:login.forgot')}</Link>
        </p>
        <button type="submit" className="button" disabled={busy}>
          {t('auth:login.submit')}
        </button>
      </form>
      <ProviderButtons target={target} />
    </AuthShell>
  )
}
