import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { PRODUCT_NAME } from '../../shared/constants.ts'
import { LanguageSwitcher } from '../components/language-switcher.tsx'
import { SiteFooter } from '../layouts/default-layout.tsx'
import { useClientConfig } from '../lib/client-config.tsx'

/** The date the current legal texts took effect; users re-accept when the terms change. */
export const LEGAL_TEXTS_UPDATED = '2026-11-22'

type LegalDocument = 'terms' | 'privacy' | 'cookie'

function LegalPage({ doc }: { doc: LegalDocument }) {
  const { t, i18n } = useTranslation('legal')
  const config = useClientConfig()
  const values = { operator: config.operatorName, contactEmail: config.contactEmail }
  const sections = Object.keys((i18n.getResource(i18n.language, 'legal', `${doc}.sections`) as Record<string, unknown> | undefined) ?? {})
  const paragraphs = (id: string) =>
    ((i18n.getResource(i18n.language, 'legal', `${doc}.sections.${id}.body`) as unknown[] | undefined) ?? []).map((_, index) => index)
  const date = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(LEGAL_TEXTS_UPDATED))
  const rows = doc === 'cookie' ? Object.keys((i18n.getResource(i18n.language, 'legal', 'cookie.table.rows') as Record<string, unknown> | undefined) ?? {}) : []

  return (
    <div className="layout-none legal">
      <header className="legal-header">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          {PRODUCT_NAME}
        </Link>
        <LanguageSwitcher />
      </header>
      <main id="content" className="legal-document">
        <h1>{t(`${doc}.title`)}</h1>
        <p className="legal-updated">{t('updated', { date })}</p>
        <p className="legal-intro">{t(`${doc}.intro`, values)}</p>
        <nav aria-labelledby="toc-title" className="legal-toc">
          <h2 id="toc-title">{t('toc')}</h2>
          <ol>
            {sections.map((id) => (
              <li key={id}>
                <a href={`#${id}`}>{t(`${doc}.sections.${id}.heading`)}</a>
              </li>
            ))}
          </ol>
        </nav>
        {sections.map((id) => (
          <section key={id} id={id} aria-labelledby={`${id}-title`}>
            <h2 id={`${id}-title`}>{t(`${doc}.sections.${id}.heading`)}</h2>
            {paragraphs(id).map((index) => (
              <p key={index}>{t(`${doc}.sections.${id}.body.${index}`, values)}</p>
            ))}
          </section>
        ))}
        {doc === 'cookie' && rows.length > 0 ? (
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
                {rows.map((row) => (
                  <tr key={row}>
                    <th scope="row">
                      <code>{row}</code>
                    </th>
                    <td>{t(`cookie.table.rows.${row}.purpose`)}</td>
                    <td>{t(`cookie.table.rows.${row}.duration`)}</td>
                    <td>{t(`cookie.table.rows.${row}.type`)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
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
