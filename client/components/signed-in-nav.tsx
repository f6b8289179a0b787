import { useTranslation } from 'react-i18next'
import { NavLink } from 'react-router'
import type { UserRecord } from '../../shared/types.ts'
import { useClientConfig } from '../lib/client-config.tsx'
import { LanguageSwitcher } from './language-switcher.tsx'
import { UserAvatar } from './user-avatar.tsx'

/** What the header calls the account (issue 27): its display name, or its email while it has none. */
export function accountLabel(user: Pick<UserRecord, 'name' | 'email'>): string {
  return user.name?.trim() || user.email
}

/**
 * The signed-in header's links (spec §2), on every page a signed-in user sees with a header: the
 * signed-in layout's and the default layout's (/streaming, /mfa, /sentry-test, the 404 page; issue
 * 27). Its words are in `common`, which every page has. "Streaming" only where clusters are
 * configured, since without them it cannot work (the page itself still says so to a direct visit).
 */
export function SignedInNav({ user }: { user: UserRecord }) {
  const { t } = useTranslation()
  const { streaming } = useClientConfig()
  return (
    <>
      <NavLink to="/@/library">{t('nav.myLibrary')}</NavLink>
      <NavLink to="/@/programs" end={false}>
        {t('nav.catalogue')}
      </NavLink>
      <NavLink to="/@/files">{t('nav.myFiles')}</NavLink>
      {streaming ? <NavLink to="/streaming">{t('nav.streaming')}</NavLink> : null}
      <NavLink to="/@/my-profile">{t('nav.myProfile')}</NavLink>
      <span className="signed-in-as" title={user.name?.trim() ? user.email : undefined}>
        <UserAvatar user={user} size="small" />
        <span data-testid="signed-in-as">{accountLabel(user)}</span>
      </span>
      <LanguageSwitcher />
      <NavLink to="/@/logout">{t('nav.logOut')}</NavLink>
    </>
  )
}
