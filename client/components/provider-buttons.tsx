import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { returnSearch, type ReturnTarget } from '../../shared/auth/return-path.ts'
import { rememberExternalReturn } from '../lib/account/continue.ts'
import { ThirdParty } from '../lib/session/auth.ts'
import { problemMessage, problemOfFailure } from '../lib/account/auth-errors.ts'
import { useClientConfig } from '../lib/client-config.tsx'
import { Notice } from './auth-shell.tsx'

/**
 * External sign-in, one button per configured provider. The SDK keeps the state (spec §3: random
 * state, provider, expiry in 10 minutes, PKCE verifier) in session storage and returns to
 * /auth-callback/{provider}; where to go from there waits beside it (the address registered at
 * the provider cannot carry it).
 */
export function ProviderButtons({ target }: { target: ReturnTarget | null }) {
  const { providers } = useClientConfig()
  const { t, i18n } = useTranslation(['auth', 'common'])
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  if (providers.length === 0) return null
  const start = async (id: string) => {
    setBusy(id)
    setError(null)
    try {
      const url = await ThirdParty.getAuthorisationURLWithQueryParamsAndSetState({
        thirdPartyId: id,
        frontendRedirectURI: `${window.location.origin}/auth-callback/${id}`,
      })
      rememberExternalReturn(returnSearch(target))
      window.location.assign(url)
    } catch (failure) {
      setError(problemMessage(await problemOfFailure(failure), t, i18n.language))
      setBusy(null)
    }
  }
  return (
    <div className="provider-buttons">
      <p className="divider">
        <span>{t('auth:providers.or')}</span>
      </p>
      {providers.map((provider) => (
        <button key={provider.id} type="button" className="button button-secondary" disabled={busy !== null} onClick={() => void start(provider.id)}>
          {t('auth:providers.continueWith', { name: provider.name })}
        </button>
      ))}
      {error ? <Notice kind="error">{error}</Notice> : null}
    </div>
  )
}
