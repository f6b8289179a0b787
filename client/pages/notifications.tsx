import { useState, type FormEvent, type MouseEvent } from 'react'
import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useNavigate, useRevalidator, type ActionFunctionArgs, type LoaderFunctionArgs } from 'react-router'
import { LICENSE_TYPE_NAMES_EN, type LicenseType } from '../../shared/catalogue/catalogue.ts'
import type { Notification, NotificationData, NotificationList, NotificationType } from '../../shared/catalogue/living.ts'
import { Notice } from '../components/auth-shell.tsx'
import { ProgramIcon } from '../components/program-icon.tsx'
import { apiGet, apiSend } from '../lib/api.ts'
import { apiWrite, failed, readWrite, useFailureText, useRouteWrite, withStatus, type WriteFailure } from '../lib/route-writes.ts'

// /@/notifications: what happened to the programs the user watches and what their saved
// searches found, newest first (GET /api/user/notifications, `before=` for older ones). Opening one
// marks it read, and "Mark all as read" reads them all (POST /api/user/notifications/read, through the
// route's action: a form that works before the script too); each then loads the page and the
// signed-in layout's user record again, whose count the bell shows.

const READ_PATH = '/api/user/notifications/read'

interface NotificationsData extends NotificationList {
  /** The page's `before=`: null on the newest page. */
  before: string | null
  /** The `before=` of the next older page; null when there is none. */
  older: string | null
  /** When the page was read: the times are written relative to it, the same on the server and in the hydrated page. */
  now: string
}

type MarkAllOutcome = { intent: 'markAllRead'; failure?: WriteFailure }

export async function action({ request, context }: ActionFunctionArgs) {
  const { intent } = await readWrite(request, ['markAllRead'] as const)
  const outcome: MarkAllOutcome = { intent, ...failed(await apiWrite(context, 'POST', READ_PATH, { all: true })) }
  return withStatus(outcome)
}

/** Notifications a page shows; one more is asked for, to know whether an older page follows. */
export const NOTIFICATIONS_PAGE = 20

/** Ids are the API's bigserial, written in decimal; anything else is the newest page. */
const ID = /^[1-9][0-9]{0,18}$/

export async function loader({ request, context }: LoaderFunctionArgs): Promise<NotificationsData> {
  const asked = new URL(request.url).searchParams.get('before')
  const before = asked !== null && ID.test(asked) ? asked : null
  const query = new URLSearchParams({ limit: String(NOTIFICATIONS_PAGE + 1) })
  if (before) query.set('before', before)
  const list = await apiGet<NotificationList>(context, `/api/user/notifications?${query.toString()}`, request.signal)
  const items = list.items.slice(0, NOTIFICATIONS_PAGE)
  const older = list.items.length > NOTIFICATIONS_PAGE ? (items.at(-1)?.id ?? null) : null
  return { items, unread: list.unread, before, older, now: new Date().toISOString() }
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
]

/** "3 hours ago", "yesterday", "now", in the page's language. */
export function relativeTime(at: string, now: string, language: string): string {
  const seconds = (Date.parse(at) - Date.parse(now)) / 1000
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' })
  for (const [unit, size] of UNITS) if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit)
  return format.format(0, 'second')
}

const formats = new Map<string, Intl.NumberFormat>()

/**
 * A price as the cards write it (client/components/price-label.tsx: the currency in the page's
 * language, "per month", "Free"). Not imported from there: this page would split that module out
 * of the cards' chunk, a request and its glue more on every public page (JS budget).
 */
function priceText(price: { amount: number; currency: string; period: string } | null, t: TFunction<'catalogue'>, language: string): string {
  if (!price) return t('program.free')
  let format = formats.get(`${language}|${price.currency}`)
  if (!format) formats.set(`${language}|${price.currency}`, (format = new Intl.NumberFormat(language, { style: 'currency', currency: price.currency })))
  const amount = format.format(price.amount)
  return t(price.period === 'month' ? 'program.perMonth' : price.period === 'year' ? 'program.perYear' : 'program.price', { price: amount })
}

function isType<T extends NotificationType>(item: Notification, type: T): item is Notification<T> {
  return item.type === type
}

function licenceName(value: string, t: TFunction<'catalogue'>): string {
  return value in LICENSE_TYPE_NAMES_EN ? t(`licenseTypes.${value as LicenseType}`) : value
}

/** What happened, in the page's language. */
export function notificationText(item: Notification, t: TFunction<'notifications'>, catalogueT: TFunction<'catalogue'>, language: string): string {
  const name = (item.data as { programName?: string }).programName ?? item.programId
  if (isType(item, 'release')) return t('types.release', { name, version: item.data.version })
  if (isType(item, 'price')) {
    const { before, after } = item.data as NotificationData['price']
    if (!after) return t('types.priceNowFree', { name, before: priceText(before, catalogueT, language) })
    if (!before) return t('types.priceNoLongerFree', { name, after: priceText(after, catalogueT, language) })
    return t('types.priceChanged', { name, before: priceText(before, catalogueT, language), after: priceText(after, catalogueT, language) })
  }
  if (isType(item, 'licence')) return t('types.licence', { name, before: licenceName(item.data.before, catalogueT), after: licenceName(item.data.after, catalogueT) })
  if (isType(item, 'search')) return t('types.search', { name, search: item.data.searchName })
  return name
}

export function Component() {
  const data = useLoaderData() as NotificationsData
  const { t, i18n } = useTranslation(['notifications', 'common'])
  const { t: catalogueT } = useTranslation('catalogue')
  const { t: notificationsT } = useTranslation('notifications')
  const navigate = useNavigate()
  const revalidator = useRevalidator()
  const failureText = useFailureText()
  // The list and the bell's count (the signed-in layout's user record) are loaded again after it.
  type Status = { kind: 'success' | 'error'; text: string }
  const statusOf = (outcome: MarkAllOutcome): Status => (outcome.failure ? { kind: 'error', text: failureText(outcome.failure) } : { kind: 'success', text: t('markedAllRead') })
  const write = useRouteWrite<MarkAllOutcome>((outcome) => setStatus(statusOf(outcome)))
  const [status, setStatus] = useState<Status | null>(() => (write.initial ? statusOf(write.initial) : null))

  const markAll = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setStatus(null)
    void write.submit({ intent: 'markAllRead' })
  }

  /** An unread notification is read once opened: marked first, then the program's page (whose navigation reads the count again). */
  const open = (event: MouseEvent<HTMLAnchorElement>, item: Notification, to: string) => {
    if (item.read) return
    const elsewhere = event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey
    if (elsewhere) {
      // A new tab or window: this page stays, and shows it read.
      void apiSend('POST', READ_PATH, { ids: [item.id] }).then((result) => (result.ok ? revalidator.revalidate() : undefined))
      return
    }
    event.preventDefault()
    void apiSend('POST', READ_PATH, { ids: [item.id] }).then(() => navigate(to))
  }

  return (
    <main id="content" className="notifications-page">
      <header className="listing-header">
        <h1>{t('title')}</h1>
        <p>{t('lead')}</p>
      </header>
      <div className="notifications-bar">
        <p className="notifications-unread" data-testid="notifications-unread">
          {data.unread > 0 ? t('common:notificationBell.unread', { count: data.unread }) : t('noneUnread')}
        </p>
        {data.unread > 0 ? (
          <form method="post" onSubmit={markAll}>
            <input type="hidden" name="intent" value="markAllRead" />
            <button type="submit" className="button button-secondary" disabled={write.busy} data-testid="mark-all-read">
              {t('markAllRead')}
            </button>
          </form>
        ) : null}
        <Link to="/@/my-profile#notifications">{t('settings')}</Link>
        <Link to="/@/saved-searches">{t('savedSearches')}</Link>
      </div>
      {status ? (
        <Notice kind={status.kind} testId="notifications-status">
          {status.text}
        </Notice>
      ) : null}
      {data.items.length === 0 ? (
        <div className="listing-empty" data-testid="notifications-empty">
          <p>{data.before ? t('emptyOlder') : t('empty')}</p>
          {data.before ? null : (
            <>
              <p className="hint">{t('emptyHint')}</p>
              <Link className="button" to="/@/programs">
                {t('browse')}
              </Link>
            </>
          )}
        </div>
      ) : (
        <ol className="notification-list" aria-label={t('listLabel')}>
          {data.items.map((item) => {
            const to = `/@/programs/${encodeURIComponent(item.programId)}`
            return (
              <li key={item.id} className={item.read ? 'notification' : 'notification notification-unread'} data-testid="notification" data-read={item.read}>
                <ProgramIcon id={item.programId} />
                <div className="notification-body">
                  <Link to={to} onClick={(event) => open(event, item, to)} className="notification-text">
                    {notificationText(item, notificationsT, catalogueT, i18n.language)}
                  </Link>
                  <p className="hint">
                    {item.read ? null : <span className="badge badge-unread">{t('unread')}</span>}
                    <time dateTime={item.at}>{relativeTime(item.at, data.now, i18n.language)}</time>
                    {isType(item, 'release') && item.data.notesUrl && /^https?:\/\//i.test(item.data.notesUrl) ? (
                      <a href={item.data.notesUrl} rel="noopener noreferrer external" target="_blank">
                        {t('releaseNotes')}
                      </a>
                    ) : null}
                    {isType(item, 'search') ? <Link to={`/@/programs?${item.data.query}`}>{t('showSearch')}</Link> : null}
                  </p>
                </div>
              </li>
            )
          })}
        </ol>
      )}
      {data.before || data.older ? (
        <nav className="notifications-paging" aria-label={t('listLabel')}>
          {data.before ? <Link to="/@/notifications">{t('newest')}</Link> : null}
          {data.older ? (
            <Link to={`/@/notifications?before=${encodeURIComponent(data.older)}`} rel="next" data-testid="notifications-older">
              {t('older')}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </main>
  )
}
