import { useTranslation } from 'react-i18next'
import { useConsent } from '../../lib/consent/consent.tsx'

interface CookieRow {
  purpose: string
  duration: string
  type: string
}

/** The consent cookie's row in the cookie policy's table; none while nothing asks for consent. */
export function useConsentCookieRow(): Array<[string, CookieRow]> {
  const { t } = useTranslation('legal')
  const { asked } = useConsent()
  return asked ? [['consent', t('consent.cookie', { returnObjects: true }) as CookieRow]] : []
}

/**
 * The analytics choice on /cookie: what it is now and a way to change it, with the
 * same two equal buttons as the banner. Shown only when a tag manager is configured.
 */
export function ConsentSettings() {
  const { t } = useTranslation(['legal', 'common'])
  const { asked, choice, choose } = useConsent()
  if (!asked) return null
  return (
    <section className="consent-settings" aria-labelledby="consent-settings-title" data-testid="consent-settings">
      <h3 id="consent-settings-title">{t('legal:consent.heading')}</h3>
      <p>{t('legal:consent.lead')}</p>
      <p role="status" data-testid="consent-state">
        <strong>{t(`legal:consent.${choice ?? 'unset'}`)}</strong>
      </p>
      <p className="actions">
        <button type="button" className="button" aria-pressed={choice === 'granted'} onClick={() => choose('granted')}>
          {t('common:support.consent.accept')}
        </button>
        <button type="button" className="button" aria-pressed={choice === 'denied'} onClick={() => choose('denied')}>
          {t('common:support.consent.decline')}
        </button>
      </p>
      <p className="hint">{t('legal:consent.withdraw')}</p>
    </section>
  )
}
