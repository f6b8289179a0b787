import { useTranslation } from 'react-i18next'
import { NavLink } from 'react-router'

/**
 * The signed-in header's bell, with the count of unread notifications from the user
 * record the signed-in guard loads (GET /api/user `unreadNotifications`), so it follows every
 * navigation and revalidation. Its name says the count ("3 unread notifications"); the figure on it
 * is for the eye.
 */
export function NotificationBell({ count }: { count: number }) {
  const { t } = useTranslation()
  const label = count > 0 ? t('notificationBell.unread', { count }) : t('notificationBell.label')
  return (
    <NavLink to="/@/notifications" className="notification-bell" aria-label={label} title={label} data-testid="notification-bell">
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
        <path d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z" fill="currentColor" />
      </svg>
      {count > 0 ? (
        <span className="notification-count" aria-hidden="true" data-testid="notification-count">
          {count > 99 ? '99+' : count}
        </span>
      ) : null}
    </NavLink>
  )
}
