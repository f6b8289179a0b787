import Link from 'next/link'
import type { ReactNode } from 'react'
import { LOCALES, t, version } from '../lib/data'
import './styles.css'

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <div id="root">
          <div className="layout-default">
            <a className="skip-link" href="#content">
              {t('nav.skipToContent')}
            </a>
            <header className="site-header site-header-fold-lg">
              <Link className="brand" aria-label={t('nav.home')} href="/">
                <span className="brand-mark" aria-hidden="true"></span>Softshelf
              </Link>
              <nav className="site-nav" aria-label={t('nav.main')}>
                <details className="disclosure site-menu">
                  <summary>{t('nav.menu')}</summary>
                  <div className="site-menu-items">
                    <Link href="/library">{t('nav.catalogue')}</Link>
                    <Link href="/files">{t('nav.files')}</Link>
                    <div className="language-switcher">
                      <label htmlFor="language">{t('language.label')}</label>
                      <select id="language" data-testid="language-switcher" defaultValue="en">
                        {LOCALES.map(([code, name]) => (
                          <option key={code} value={code} lang={code}>
                            {name}
                          </option>
                        ))}
                      </select>
                    </div>
                    <Link href="/login">{t('nav.logIn')}</Link>
                    <Link className="button button-small" href="/welcome">
                      {t('nav.signUp')}
                    </Link>
                  </div>
                </details>
              </nav>
            </header>
            <div className="layout-default-body">{children}</div>
            <footer className="site-footer">
              <nav aria-label={t('footer.legal')}>
                <Link href="/terms">{t('footer.terms')}</Link>
                <Link href="/privacy">{t('footer.privacy')}</Link>
                <Link href="/cookie">{t('footer.cookie')}</Link>
              </nav>
              <p>
                {t('footer.copyright', { year: new Date().getFullYear(), operator: 'Softshelf' })}
                <span className="version"> · {t('footer.version', { version })}</span>
              </p>
            </footer>
          </div>
        </div>
      </body>
    </html>
  )
}
