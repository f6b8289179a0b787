import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation } from 'react-router'
import type { ErrorBody } from '../../../shared/types.ts'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { apiSend } from '../../lib/api.ts'
import { Session } from '../../lib/session/auth.ts'

// /confirm-email?token=: the link mailed to a new address. Public and without the
// layout, like /verify-email: it may be opened in a browser that is not signed in. The token alone
// confirms the change; a person clicks first, so a mail scanner that opens links cannot spend it.

type Outcome = 'idle' | 'busy' | 'done' | 'invalid' | 'expired' | 'taken' | 'error'

const OUTCOMES: Record<string, Outcome> = {
  BFF_EMAIL_LINK_INVALID: 'invalid',
  BFF_EMAIL_LINK_EXPIRED: 'expired',
  BFF_EMAIL_TAKEN: 'taken',
}

export function Component() {
  const { t } = useTranslation(['profile', 'common'])
  const token = new URLSearchParams(useLocation().search).get('token')
  const [outcome, setOutcome] = useState<Outcome>(token ? 'idle' : 'invalid')
  const [email, setEmail] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [signedIn, setSignedIn] = useState(false)

  const confirm = async () => {
    setOutcome('busy')
    setError(null)
    const result = await apiSend<{ email: string }>('POST', '/api/user/email/confirm', { token })
    if (result.ok) {
      setEmail((result.body as { email: string }).email)
      setSignedIn(await Session.doesSessionExist())
      setOutcome('done')
      return
    }
    const known = OUTCOMES[(result.body as Partial<ErrorBody> | null)?.code ?? '']
    if (known) {
      setOutcome(known)
      return
    }
    setError(result.status === 0 ? t('common:errors.errorApiRequest') : t('common:errors.occuredSomeError'))
    setOutcome('error')
  }

  const askAgain = <Link to="/@/my-profile">{t('profile:email.confirm.askAgain')}</Link>
  return (
    <AuthShell title={t('profile:email.confirm.title')}>
      {outcome === 'done' ? (
        <>
          <Notice kind="success" testId="confirm-email-done">
            {t('profile:email.confirm.done', { email })}
          </Notice>
          <Link className="button" to={signedIn ? '/@/my-profile' : '/login'}>
            {signedIn ? t('profile:email.confirm.toProfile') : t('profile:email.confirm.logIn')}
          </Link>
        </>
      ) : outcome === 'invalid' || outcome === 'expired' || outcome === 'taken' ? (
        <>
          <Notice kind="error" testId="confirm-email-failed">
            {t(`profile:email.confirm.${outcome}`)}
          </Notice>
          <p>{askAgain}</p>
        </>
      ) : (
        <>
          <p>{t('profile:email.confirm.lead')}</p>
          {error ? <Notice kind="error">{error}</Notice> : null}
          <button type="button" className="button" disabled={outcome === 'busy'} onClick={() => void confirm()}>
            {t('profile:email.confirm.submit')}
          </button>
        </>
      )}
    </AuthShell>
  )
}
