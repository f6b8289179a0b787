import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { useConsent } from '../lib/consent/consent.tsx'

/**
 * Asks a visitor who has not chosen whether the tag manager may load. It sits at the
 * end of the page and sticks to the bottom of the window: nothing is covered for good, nothing
 * moves when it goes, and the page stays usable without answering. Accept and decline look alike.
 * When it shows is decided in client/components/shell-parts.tsx, which loads this code only then.
 */
export function ConsentBanner() {
  const { t } = useTranslation()
  const { choose } = useConsent()
  const id = useId()
  return (
    <section className="consent-banner" aria-labelledby={id} data-testid="consent-banner">
      <div className="consent-banner-text">
        <h2 id={id}>{t('support.consent.title')}</h2>
        <p>
          {t('support.consent.text')} <Link to="/cookie">{t('support.consent.policy')}</Link>
        </p>
      </div>
      <div className="consent-banner-actions">
        <button type="button" className="button" onClick={() => choose('granted')}>
          {t('support.consent.accept')}
        </button>
        <button type="button" className="button" onClick={() => choose('denied')}>
          {t('support.consent.decline')}
        </button>
      </div>
    </section>
  )
}
