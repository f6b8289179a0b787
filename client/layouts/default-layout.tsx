import { useTranslation } from 'react-i18next'
import { Link, Outlet, useMatches, useRouteLoaderData } from 'react-router'
import { LanguageSwitcher } from '../components/language-switcher.tsx'
import { SignedInNav } from '../components/shell-parts.tsx'
import { SiteHeader } from '../components/site-header.tsx'
import { useClientConfig } from '../lib/client-config.tsx'
import { useViewer } from '../lib/session/guards.ts'
import type { RouteHandle } from '../lib/i18n/namespaces.ts'
import type { RootData } from '../root.tsx'

/**
 * The chat links of spec §1: a messaging bot (SUPPORT_BOT_URL) and a chat app (SUPPORT_CHAT_URL),
 * each only when configured. Here rather than in a module of their own: the footer is on every
 * page, and a shared module would be one more request in the public pages' budget.
 */
export function SupportLinks({ className }: { className?: string }) {
  const { t } = useTranslation()
  const { botUrl, chatUrl } = useClientConfig().support
  return (
    <>
      {botUrl ? (
        <a href={botUrl} className={className} data-testid="support-bot">
          {t('support.chat.bot')}
        </a>
      ) : null}
      {chatUrl ? (
        <a href={chatUrl} className={className} data-testid="support-chat">
          {t('support.chat.app')}
        </a>
      ) : null}
    </>
  )
}

export function SiteFooter() {
  const { t } = useTranslation()
  const root = useRouteLoaderData('root') as RootData | undefined
  const config = useClientConfig()
  return (
    <footer className="site-footer">
      <nav aria-label={t('footer.legal')}>
        <Link to="/terms">{t('footer.terms')}</Link>
        <Link to="/privacy">{t('footer.privacy')}</Link>
        <Link to="/cookie">{t('footer.cookie')}</Link>
      </nav>
      {config.support.botUrl || config.support.chatUrl ? (
        <nav aria-label={t('support.chat.label')}>
          <SupportLinks />
        </nav>
      ) : null}
      <p>
        {t('footer.copyright', { year: new Date().getUTCFullYear(), operator: config.operatorName })}
        {root ? <span className="version"> · {t('footer.version', { version: root.version })}</span> : null}
      </p>
    </footer>
  )
}

/** Sign-in links for visitors; a half-finished sign-in (code or email pending) can leave. */
function AccountLinks() {
  const { t } = useTranslation()
  const { state } = useViewer()
  if (state === null) return null
  if (state !== 'LOGGED_OUT') return <Link to="/@/logout">{t('nav.logOut')}</Link>
  return (
    <>
      <Link to="/login">{t('nav.logIn')}</Link>
      <Link to="/welcome" className="button button-small">
        {t('nav.signUp')}
      </Link>
    </>
  )
}

/**
 * Spec §2: the default layout is centred, with an optional footer. Its header is for who is there
 *: the layout also frames pages a signed-in user opens (/streaming, /mfa, /sentry-test,
 * the 404 page), and they get the signed-in header, not a visitor's.
 */
export function DefaultLayout() {
  const { t } = useTranslation()
  const matches = useMatches()
  const showFooter = matches.every((match) => (match.handle as RouteHandle | undefined)?.footer !== false)
  const { user } = useViewer()
  return (
    <div className="layout-default">
      <a className="skip-link" href="#content">
        {t('nav.skipToContent')}
      </a>
      {user ? (
        <SiteHeader fold="xl">
          <SignedInNav user={user} />
        </SiteHeader>
      ) : (
        <SiteHeader>
          <Link to="/library">{t('nav.catalogue')}</Link>
          <Link to="/files">{t('nav.files')}</Link>
          <LanguageSwitcher />
          <AccountLinks />
        </SiteHeader>
      )}
      <div className="layout-default-body">
        <Outlet />
      </div>
      {showFooter ? <SiteFooter /> : null}
    </div>
  )
}
