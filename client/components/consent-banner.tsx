import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation } from 'react-router'
import { useConsent } from '../lib/consent/consent.tsx'

/**
 * Asks a visitor who has not chosen whether the tag manager may load (issue 11). It sits at the
 * end of the page and sticks to the bottom of the window: nothing is covered for good, nothing
 * moves when it goes, and the page stays usable without answering. Accept and decline look alike.
 * No tag manager configured: nothing to ask, no banner. Not on /cookie either, whose own settings
 * ask the same question (and would sit under it).
 */
export function ConsentBanner() {
  const { t } = useTranslation()
  const { choice, asked, choose } = useConsent()
  const id = useId()
  const { pathname } = useLocation()
  if (!asked || choice !== null || pathname === '/cookie') return null
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
