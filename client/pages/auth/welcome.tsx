import type { FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { outcomeOfAnswer, type SdkAnswer } from '../../../shared/auth/forms.ts'
import { returnSearch } from '../../../shared/auth/return-path.ts'
import { PASSWORD_MIN_LENGTH, validatePassword } from '../../../shared/auth/sign-up.ts'
import { AuthShell, Field, Notice } from '../../components/auth-shell.tsx'
import { ProviderButtons } from '../../components/provider-buttons.tsx'
import { carryReturn } from '../../lib/account/continue.ts'
import { formOutcomeAction, useAccountForm } from '../../lib/account/form-outcome.ts'
import { EmailPassword } from '../../lib/session/auth.ts'
import { EMAIL_EXISTS_SDK_MESSAGE, fieldMessages, problemMessage } from '../../lib/account/auth-errors.ts'
import { readUtm } from '../../lib/session/utm.ts'

/** A form sent before the script ran, answered by the BFF (decision 025). */
export const action = formOutcomeAction

async function emailExists(email: string): Promise<boolean> {
  try {
    const response = await fetch(`/api/user/check-email?email=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } })
    return response.ok && ((await response.json()) as { success?: boolean }).success === true
  } catch {
    return false
  }
}

/**
 * /welcome: sign up with email and password (spec §3 sign-up form), then verify the email; the
 * target of ?redirectToPath= goes into the verification link.
 */
export function Component() {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const { target, outcome, setOutcome, busy, send } = useAccountForm()

  // Spec §5: email existence is checked by query, so the duplicate shows before submitting.
  const checkEmail = async (email: string) => {
    if (!email.includes('@')) return
    const taken = await emailExists(email.trim())
    setOutcome((current) => {
      const { email: _old, ...fields } = current?.fields ?? {}
      return { ...current, fields: taken ? { ...fields, email: EMAIL_EXISTS_SDK_MESSAGE } : fields }
    })
  }

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const email = String(form.get('email') ?? '').trim()
    const password = String(form.get('password') ?? '')
    const isInMailList = form.get('isInMailList') === 'on'
    const values = { email, ...(isInMailList ? { isInMailList: 'on' } : {}) }
    // The BFF's own rule, checked first to spare a round trip; its answer reads the same.
    const passwordProblem = validatePassword(password)
    if (passwordProblem) {
      setOutcome({ fields: { password: passwordProblem }, values })
      return
    }
    await send(values, async () => {
      const utm = readUtm()
      const formFields = [
        { id: 'email', value: email },
        { id: 'password', value: password },
        // JSON values, not strings: the BFF checks their types (spec §3).
        { id: 'isInMailList', value: isInMailList },
        ...(utm ? [{ id: 'utm', value: utm }] : []),
      ] as unknown as Array<{ id: string; value: string }>
      const options = carryReturn(target)
      const result = await EmailPassword.signUp({ formFields, ...(options ? { options } : {}) })
      if (result.status === 'OK') {
        await navigate(`/check-email${returnSearch(target)}`, { replace: true, state: { email } })
        return undefined
      }
      return { ...outcomeOfAnswer(result as SdkAnswer), values }
    })
  }

  const fieldErrors = fieldMessages(outcome?.fields, t, i18n.language)
  // A field the form has no input for (the UTM record) still says what went wrong.
  const otherFields = Object.entries(fieldErrors).filter(([id]) => id !== 'email' && id !== 'password')
  return (
    <AuthShell
      title={t('auth:welcome.title')}
      lead={t('auth:welcome.lead')}
      footer={
        <p>
          {t('auth:welcome.haveAccount')} <Link to={`/login${returnSearch(target)}`}>{t('auth:welcome.logIn')}</Link>
        </p>
      }
    >
      {target?.action ? <Notice kind="info">{t('auth:return.addAfterSignUp')}</Notice> : null}
      {outcome?.problem || otherFields.length > 0 ? (
        <Notice kind="error" testId="welcome-error">
          {outcome?.problem ? problemMessage(outcome.problem, t, i18n.language) : otherFields.map(([, message]) => message).join(' ')}
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
          defaultValue={outcome?.values?.email}
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
          <input id="welcome-mail-list" type="checkbox" name="isInMailList" defaultChecked={outcome?.values?.isInMailList === 'on'} />
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
      <ProviderButtons target={target} />
    </AuthShell>
  )
}
