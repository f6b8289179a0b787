import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { outcomeOfAnswer, type SdkAnswer } from '../../../shared/auth/forms.ts'
import { returnSearch, type ReturnTarget } from '../../../shared/auth/return-path.ts'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { continueTo, takeExternalReturn } from '../../lib/account/continue.ts'
import { ThirdParty } from '../../lib/session/auth.ts'
import { problemMessage, problemOfFailure } from '../../lib/account/auth-errors.ts'

/** Spec §5: the SDK's state checks, each with its exact message, explained in the visitor's language by this map. */
const STATE_MESSAGES: Record<string, 'noState' | 'noStateReceived' | 'expired' | 'invalidState'> = {
  'No valid auth state present in session storage': 'noState',
  'No state recieved from auth provider': 'noStateReceived',
  'Auth state verification failed. The auth provider took too long to respond': 'expired',
  'Auth state verification failed. The auth provider responded with an invalid state': 'invalidState',
}
const PROVIDER_ERROR_PREFIX = 'Auth provider responded with error: '

/** A failure: what it means in the visitor's language, and the spec's own English words where it names them. */
interface Failure {
  message: string
  detail?: string
}

/**
 * /auth-callback/{provider}: the provider sent the visitor back; finish the sign-in and go on to
 * where the login page was asked to lead. A failure shows in the login page's
 * layout with the way back to it: said in the visitor's language, with spec §5's message kept in
 * English as its detail.
 */
export function Component() {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const [error, setError] = useState<Failure | null>(null)
  const [target, setTarget] = useState<ReturnTarget | null>(null)
  const started = useRef(false)
  useEffect(() => {
    // One attempt: the code is single use (StrictMode runs effects twice in development).
    if (started.current) return
    started.current = true
    const returnTo = takeExternalReturn()
    setTarget(returnTo)
    void (async () => {
      try {
        const result = await ThirdParty.signInAndUp()
        if (result.status === 'OK') {
          await continueTo(navigate, returnTo)
          return
        }
        setError({ message: result.status === 'NO_EMAIL_GIVEN_BY_PROVIDER' ? t('auth:callback.noEmail') : problemMessage(outcomeOfAnswer(result as SdkAnswer).problem ?? { kind: 'unknown' }, t, i18n.language) })
      } catch (failure) {
        const message = failure instanceof Error ? failure.message : ''
        const key = STATE_MESSAGES[message]
        if (key) setError({ message: t(`auth:callback.${key}`), detail: message })
        else if (message.startsWith(PROVIDER_ERROR_PREFIX)) setError({ message: t('auth:callback.providerError'), detail: message })
        else setError({ message: problemMessage(await problemOfFailure(failure), t, i18n.language) })
      }
    })()
  }, [navigate, t, i18n.language])
  return (
    <AuthShell title={error ? t('auth:callback.failedTitle') : t('auth:callback.title')}>
      {error ? (
        <>
          <Notice kind="error" testId="callback-problem">
            <p>{error.message}</p>
            {error.detail ? (
              <p className="callback-detail">
                <small>
                  {t('auth:callback.detail')}{' '}
                  <code lang="en" data-testid="callback-error">
                    {error.detail}
                  </code>
                </small>
              </p>
            ) : null}
          </Notice>
          <Link className="button" to={`/login${returnSearch(target)}`}>
            {t('auth:callback.tryAgain')}
          </Link>
        </>
      ) : (
        <p aria-live="polite">{t('auth:callback.inProgress')}</p>
      )}
    </AuthShell>
  )
}
