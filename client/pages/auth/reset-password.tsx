import type { FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, type LoaderFunctionArgs } from 'react-router'
import { outcomeOfAnswer, type SdkAnswer } from '../../../shared/auth/forms.ts'
import { returnSearch } from '../../../shared/auth/return-path.ts'
import { PASSWORD_ERRORS, PASSWORD_MIN_LENGTH, validatePassword } from '../../../shared/auth/sign-up.ts'
import { AuthShell, Field, Notice } from '../../components/auth-shell.tsx'
import { formOutcomeAction, useAccountForm } from '../../lib/account/form-outcome.ts'
import { apiResponse } from '../../lib/api.ts'
import { EmailPassword } from '../../lib/session/auth.ts'
import { fieldMessages, problemMessage } from '../../lib/account/auth-errors.ts'

// /reset-password?token= sets the new password: the emailed link, with the ?redirectToPath= the
// forgot-password page sent along. The form works before the page's script runs (decision 025).

/** A form sent before the script ran, answered by the BFF (decision 025). */
export const action = formOutcomeAction

interface ResetData {
  /** False when the link has been used or has expired: said at once, before any form. */
  usable: boolean
}

/**
 * Whether the link can still be used, asked without using it (GET /auth/user/password/reset/token/check):
 * on the server while rendering, in the browser on a client-side visit. A check that fails says
 * nothing: the form shows, and sending it tells.
 */
export async function loader({ request, context }: LoaderFunctionArgs): Promise<ResetData> {
  const token = new URL(request.url).searchParams.get('token')
  if (!token) return { usable: false }
  const answer = await apiResponse(context, `/auth/user/password/reset/token/check?token=${encodeURIComponent(token)}`, request.signal)
  return { usable: !(answer.status === 200 && (answer.body as { status?: unknown } | null)?.status === 'RESET_PASSWORD_INVALID_TOKEN_ERROR') }
}

export function Component() {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const { usable } = useLoaderData() as ResetData
  const { target, outcome, setOutcome, busy, send } = useAccountForm()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const password = String(form.get('password') ?? '')
    const passwordProblem = validatePassword(password)
    if (passwordProblem) {
      setOutcome({ fields: { password: passwordProblem } })
      return
    }
    if (password !== String(form.get('confirm') ?? '')) {
      setOutcome({ fields: { confirm: PASSWORD_ERRORS.mismatch } })
      return
    }
    await send(undefined, async () => {
      const result = await EmailPassword.submitNewPassword({ formFields: [{ id: 'password', value: password }] })
      return result.status === 'OK' ? { done: true } : outcomeOfAnswer(result as SdkAnswer)
    })
  }
  const fieldErrors = fieldMessages(outcome?.fields, t, i18n.language)
  const invalid = !usable || outcome?.problem?.kind === 'invalidToken'
  return (
    <AuthShell title={t('auth:reset.title')}>
      {outcome?.done ? (
        <>
          <Notice kind="success" testId="reset-done">
            {t('auth:reset.done')}
          </Notice>
          <Link className="button" to={`/login${returnSearch(target)}`}>
            {t('auth:reset.logIn')}
          </Link>
        </>
      ) : invalid ? (
        <>
          <Notice kind="error" testId="reset-invalid">
            {t('auth:reset.invalid')}
          </Notice>
          <Link to={`/forgot-password${returnSearch(target)}`}>{t('auth:reset.getNewLink')}</Link>
        </>
      ) : (
        <form method="post" onSubmit={(event) => void submit(event)} noValidate>
          {outcome?.problem ? (
            <Notice kind="error" testId="reset-error">
              {problemMessage(outcome.problem, t, i18n.language)}
            </Notice>
          ) : null}
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
