import { useTranslation } from 'react-i18next'
import { BrandLink } from '../components/brand-link.tsx'
import { LanguageSwitcher } from '../components/language-switcher.tsx'
import { SiteFooter } from '../layouts/default-layout.tsx'
import { useClientConfig } from '../lib/client-config.tsx'
import { ConsentSettings, useConsentCookieRow } from './legal/consent-settings.tsx'

/** The date the current legal texts took effect; users re-accept when the terms change. */
export const LEGAL_TEXTS_UPDATED = '2026-11-22'

type LegalDocument = 'terms' | 'privacy' | 'cookie'
interface LegalSection {
  heading: string
  body: string[]
}
interface CookieRow {
  purpose: string
  duration: string
  type: string
}

function LegalPage({ doc }: { doc: LegalDocument }) {
  const { t, i18n } = useTranslation('legal')
  const config = useClientConfig()
  const values = { operator: config.operatorName, contactEmail: config.contactEmail }
  // Whole documents come back as objects, interpolated: the section list is the translation's own.
  const sections = Object.entries(t(`${doc}.sections`, { returnObjects: true, ...values }) as Record<string, LegalSection>)
  const date = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(LEGAL_TEXTS_UPDATED))
  const consentRow = useConsentCookieRow()
  const rows = doc === 'cookie' ? [...Object.entries(t('cookie.table.rows', { returnObjects: true }) as Record<string, CookieRow>), ...consentRow] : []

  // The cookie policy's table follows the section that introduces it ("the table below").
  const cookieTable =
    rows.length > 0 ? (
      <div className="table-scroll">
        <table className="cookie-table">
          <thead>
            <tr>
              <th scope="col">{t('cookie.table.name')}</th>
              <th scope="col">{t('cookie.table.purpose')}</th>
              <th scope="col">{t('cookie.table.duration')}</th>
              <th scope="col">{t('cookie.table.type')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([name, row]) => (
              <tr key={name}>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td>{row.purpose}</td>
                <td>{row.duration}</td>
                <td>{row.type}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    ) : null

  return (
    <div className="layout-none legal">
      <header className="legal-header">
        <BrandLink />
        <LanguageSwitcher />
      </header>
      <main id="content" className="legal-document">
        <h1>{t(`${doc}.title`)}</h1>
        <p className="legal-updated">{t('updated', { date })}</p>
        <p className="legal-intro">{t(`${doc}.intro`, values)}</p>
        <nav aria-labelledby="toc-title" className="legal-toc">
          <h2 id="toc-title">{t('toc')}</h2>
          <ol>
            {sections.map(([id, section]) => (
              <li key={id}>
                <a href={`#${id}`}>{section.heading}</a>
              </li>
            ))}
          </ol>
        </nav>
        {sections.map(([id, section]) => (
          <section key={id} id={id} aria-labelledby={`${id}-title`}>
            <h2 id={`${id}-title`}>{section.heading}</h2>
            {section.body.map((paragraph, index) => (
              <p key={index}>{paragraph}</p>
            ))}
            {doc === 'cookie' && id === 'howWeUse' ? cookieTable : null}
            {doc === 'cookie' && id === 'control' ? <ConsentSettings /> : null}
          </section>
        ))}
      </main>
      <SiteFooter />
    </div>
  )
}

export function TermsPage() {
  return <LegalPage doc="terms" />
}
export function PrivacyPage() {
  return <LegalPage doc="privacy" />
}
export function CookiePage() {
  return <LegalPage doc="cookie" />
}
