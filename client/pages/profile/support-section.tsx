import { useTranslation } from 'react-i18next'
import { SupportLinks } from '../../layouts/default-layout.tsx'
import { useClientConfig } from '../../lib/client-config.tsx'

/** The profile's way to support (spec §1): the configured chat links; nothing when there are none. */
export function SupportSection() {
  const { t } = useTranslation('profile')
  const { botUrl, chatUrl } = useClientConfig().support
  if (!botUrl && !chatUrl) return null
  return (
    <section className="profile-section" aria-labelledby="profile-support" data-testid="profile-support">
      <h2 id="profile-support">{t('support.heading')}</h2>
      <p className="hint">{t('support.lead')}</p>
      <p className="actions">
        <SupportLinks className="button button-secondary" />
      </p>
    </section>
  )
}
