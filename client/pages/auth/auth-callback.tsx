import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { ThirdParty } from '../../lib/auth.ts'
import { describeAuthFailure } from '../../lib/auth-errors.ts'

/** Spec §5: the SDK's state checks, each with its exact message, translated by this map. */
const STATE_MESSAGES: Record<string, 'noState' | 'noStateReceived' | 'expired' | 'invalidState'> = {
  'No valid auth state present in session storage': 'noState',
  'No state recieved from auth provider': 'noStateReceived',
  'Auth state verification failed. The auth provider took too long to respond': 'expired',
  'Auth state verification failed. The auth provider responded with an invalid state': 'invalidState',
}
const PROVIDER_ERROR_PREFIX = 'Auth provider responded with error: '

/** /auth-callback/{provider}: the provider sent the visitor back; finish the sign-in. */
export function Component() {
  const { t } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const [error, setError] = useState<string | null>(null)
  const started = useRef(false)
  useEffect(() => {
    // One attempt: the code is single use (StrictMode runs effects twice in development).
    if (started.current) return
    started.current = true
    void (async () => {
      try {
        const result = await ThirdParty.signInAndUp()
        if (result.status === 'OK') {
          await navigate('/@', { replace: true })
          return
        }
        setError(result.status === 'NO_EMAIL_GIVEN_BY_PROVIDER' ? t('auth:callback.noEmail') : result.reason)
      } catch (failure) {
        const message = failure instanceof Error ? failure.message : ''
        const key = STATE_MESSAGES[message]
        if (key) setError(t(`auth:callback.${key}`))
        else if (message.startsWith(PROVIDER_ERROR_PREFIX)) setError(t('auth:callback.providerError', { error: message.slice(PROVIDER_ERROR_PREFIX.length) }))
        else setError((await describeAuthFailure(failure, t)).message)
      }
    })()
  }, [navigate, t])
  return (
    <AuthShell title={t('auth:callback.title')}>
      {error ? (
        <>
          <Notice kind="error" testId="callback-error">
            {error}
          </Notice>
          <Link className="button" to="/login">
            {t('auth:callback.backToLogin')}
          </Link>
        </>
      ) : (
        <p aria-live="polite">{t('auth:callback.inProgress')}</p>
      )}
    </AuthShell>
  )
}
