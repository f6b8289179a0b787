import { useTranslation } from 'react-i18next'
import { NavLink } from 'react-router'
import type { UserRecord } from '../../shared/types.ts'
import { useClientConfig } from '../lib/client-config.tsx'
import { LanguageSwitcher } from './language-switcher.tsx'
import { UserAvatar } from './user-avatar.tsx'

/** What the header calls the account: its display name, or its email while it has none. */
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
  const label = accountLabel(user)
  const named = label !== user.email
  return (
    <>
      <NavLink to="/@/library">{t('nav.myLibrary')}</NavLink>
      <NavLink to="/@/programs" end={false}>
        {t('nav.catalogue')}
      </NavLink>
      <NavLink to="/@/files">{t('nav.myFiles')}</NavLink>
      {streaming ? <NavLink to="/streaming">{t('nav.streaming')}</NavLink> : null}
      {/* The operator console, for an account with a role. */}
      {user.roles.length > 0 ? <NavLink to="/@/operator">{t('nav.console')}</NavLink> : null}
      {/*
        The account and the way to its profile in one link: the avatar, "My profile" and
        the name, or the email while there is none. On wide screens the row has room for the avatar
        and a name only: "My profile" and an email are then for screen readers (styles.css).
      */}
      <NavLink to="/@/my-profile" className={named ? 'signed-in-as signed-in-named' : 'signed-in-as'} title={named ? `${label} (${user.email})` : user.email}>
        <UserAvatar user={user} size="small" />
        <span className="signed-in-profile">{t('nav.myProfile')}</span>
        <span className="signed-in-name" data-testid="signed-in-as">
          {label}
        </span>
      </NavLink>
      <LanguageSwitcher />
      <NavLink to="/@/logout">{t('nav.logOut')}</NavLink>
    </>
  )
}
