import type { FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { outcomeOfAnswer, type SdkAnswer } from '../../../shared/auth/forms.ts'
import { returnSearch } from '../../../shared/auth/return-path.ts'
import { AuthShell, Field, Notice } from '../../components/auth-shell.tsx'
import { carryReturn } from '../../lib/account/continue.ts'
import { formOutcomeAction, useAccountForm } from '../../lib/account/form-outcome.ts'
import { EmailPassword } from '../../lib/session/auth.ts'
import { fieldMessages, problemMessage } from '../../lib/account/auth-errors.ts'

/** A form sent before the script ran, answered by the BFF (decision 025). */
export const action = formOutcomeAction

/**
 * /forgot-password asks for a link by email. ?redirectToPath= rides along (the link the BFF mails
 * keeps it), and the form works before the page's script runs (decision 025).
 */
export function Component() {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const { target, outcome, busy, send } = useAccountForm()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const email = String(new FormData(event.currentTarget).get('email') ?? '').trim()
    await send({ email }, async () => {
      const options = carryReturn(target)
      const result = await EmailPassword.sendPasswordResetEmail({ formFields: [{ id: 'email', value: email }], ...(options ? { options } : {}) })
      return result.status === 'OK' ? { done: true } : { ...outcomeOfAnswer(result as SdkAnswer), values: { email } }
    })
  }
  const fieldErrors = fieldMessages(outcome?.fields, t, i18n.language)
  return (
    <AuthShell
      title={t('auth:forgot.title')}
      lead={outcome?.done ? undefined : t('auth:forgot.lead')}
      footer={<Link to={`/login${returnSearch(target)}`}>{t('auth:forgot.backToLogin')}</Link>}
    >
      {outcome?.done ? (
        <Notice kind="success" testId="forgot-sent">
          {t('auth:forgot.sent')}
        </Notice>
      ) : (
        <form method="post" onSubmit={(event) => void submit(event)} noValidate>
          {outcome?.problem ? (
            <Notice kind="error" testId="forgot-error">
              {problemMessage(outcome.problem, t, i18n.language)}
            </Notice>
          ) : null}
          <Field id="forgot-email" name="email" type="email" autoComplete="email" required label={t('auth:fields.email')} error={fieldErrors.email} defaultValue={outcome?.values?.email} />
          <button type="submit" className="button" disabled={busy}>
            {t('auth:forgot.submit')}
          </button>
        </form>
      )}
    </AuthShell>
  )
}
