import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { Outlet, useNavigate, useRouteLoaderData } from 'react-router'
import { cookieLocale, switchTabLocale } from '../components/language-switcher.tsx'
import { NotificationBell } from '../components/notification-bell.tsx'
import { SignedInNav } from '../components/signed-in-nav.tsx'
import { onSignedOut } from '../lib/session/presence.ts'
import type { SignedInData } from '../lib/session/guards.ts'
import { SiteHeader } from '../components/site-header.tsx'
import { SiteFooter } from './default-layout.tsx'

/** Spec §2: the /@ pages use the logged-in layout (their scroll to the top is the root's ScrollRestoration). */
export function SignedInLayout() {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const navigate = useNavigate()
  // A sign-in may have set the account's own language while this tab showed another.
  useEffect(() => {
    const locale = cookieLocale()
    if (locale && locale !== i18n.language) void switchTabLocale(i18n, locale)
  }, [i18n])
  // Signed out in another tab, or the session ended for good: leave the private pages.
  useEffect(() => onSignedOut(() => void navigate('/login', { replace: true })), [navigate])
  return (
    <div className="layout-default layout-signed-in">
      <a className="skip-link" href="#content">
        {t('common:nav.skipToContent')}
      </a>
      {/* The bell stays beside the menu when the row folds; it is this layout's, so no visitor's page carries its code. */}
      <SiteHeader fold="xl" beside={<NotificationBell count={user.unreadNotifications} />}>
        <SignedInNav user={user} />
      </SiteHeader>
      <div className="layout-default-body">
        <Outlet />
      </div>
      <SiteFooter />
    </div>
  )
}
