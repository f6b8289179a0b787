import { useTranslation } from 'react-i18next'
import { Link, Outlet, useMatches, useRouteLoaderData } from 'react-router'
import { LanguageSwitcher } from '../components/language-switcher.tsx'
import { SiteFooter } from '../components/shell-parts.tsx'
import { useCatalogueHref } from '../lib/catalogue/twins.ts'
import { SiteHeader } from '../components/site-header.tsx'
import type { RouteHandle } from '../lib/namespaces.ts'
import type { SessionState } from '../../shared/session.ts'

/** Sign-in links for visitors; a half-finished sign-in (code or email pending) can leave. */
function AccountLinks() {
  const { t } = useTranslation()
  const guard = useRouteLoaderData('public') as { state: SessionState } | undefined
  if (!guard) return null
  if (guard.state !== 'LOGGED_OUT') return <Link to="/@/logout">{t('nav.logOut')}</Link>
  return (
    <>
      <Link to="/login">{t('nav.logIn')}</Link>
      <Link to="/welcome" className="button button-small">
        {t('nav.signUp')}
      </Link>
    </>
  )
}

/** Spec §2: the default layout is centred, with an optional footer. */
export function DefaultLayout() {
  const { t } = useTranslation()
  const matches = useMatches()
  const showFooter = matches.every((match) => (match.handle as RouteHandle | undefined)?.footer !== false)
  // The layout also frames a signed-in page (/streaming): its links then go to the twins under /@.
  const href = useCatalogueHref()
  return (
    <div className="layout-default">
      <a className="skip-link" href="#content">
        {t('nav.skipToContent')}
      </a>
      <SiteHeader>
        <Link to={href('/library')}>{t('nav.library')}</Link>
        <Link to={href('/files')}>{t('nav.files')}</Link>
        <LanguageSwitcher />
        <AccountLinks />
      </SiteHeader>
      <div className="layout-default-body">
        <Outlet />
      </div>
      {showFooter ? <SiteFooter /> : null}
    </div>
  )
}
