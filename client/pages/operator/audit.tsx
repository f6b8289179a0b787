import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { data, Form, Link, useLoaderData, useNavigation, type LoaderFunctionArgs } from 'react-router'
import type { ErrorBody } from '../../../shared/types.ts'
import { Field, Notice } from '../../components/auth-shell.tsx'
import { apiResponse } from '../../lib/api.ts'

// /@/operator/audit: the audit log, newest first, filtered by actor, target and action
// (GET /api/operator/audit); "Older" follows the page's cursor; the CSV download takes the same
// filters. The filters live in the URL, so a filtered view is a link one can share or go back to.

const FILTERS = ['actor', 'target', 'action'] as const
type FilterName = (typeof FILTERS)[number]

interface AuditEntry {
  id: string
  at: string
  actor: { id: string; email: string }
  action: string
  target: string
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
  requestId: string
}

interface AuditData {
  filters: Record<FilterName, string>
  before: string | null
  entries: AuditEntry[]
  next: string | null
  /** The parameter the API refused (400 API_VALIDATION_FAILED names it), if any. */
  invalid: FilterName | 'before' | null
}

/** The query of the filters set (empty ones left out: the API refuses an empty filter). */
function filterQuery(filters: Record<FilterName, string>, before?: string | null): URLSearchParams {
  const query = new URLSearchParams()
  for (const name of FILTERS) if (filters[name]) query.set(name, filters[name])
  if (before) query.set('before', before)
  return query
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<AuditData> {
  const url = new URL(request.url)
  const filters = Object.fromEntries(FILTERS.map((name) => [name, (url.searchParams.get(name) ?? '').trim()])) as Record<FilterName, string>
  const before = url.searchParams.get('before') || null
  const path = `/api/operator/audit?${filterQuery(filters, before).toString()}`
  const response = await apiResponse(context, path, request.signal)
  if (response.status === 400) {
    const message = (response.body as Partial<ErrorBody> | null)?.message ?? ''
    const invalid = ([...FILTERS, 'before'] as const).find((name) => message.includes(name)) ?? null
    return { filters, before, entries: [], next: null, invalid }
  }
  // Anything else (403 for a role without audit:read, 5xx) is the route's error page.
  if (response.status !== 200) throw data(response.body, { status: response.status })
  const page = response.body as { entries: AuditEntry[]; next: string | null }
  return { filters, before, entries: page.entries, next: page.next, invalid: null }
}

/**
 * A time in the reader's own zone and language. The server renders it in UTC (it cannot know the
 * zone); the browser shows local time once it has taken over, so hydration matches.
 */
export function LocalTime({ iso }: { iso: string }) {
  const { i18n } = useTranslation()
  const [local, setLocal] = useState(false)
  useEffect(() => setLocal(true), [])
  const date = new Date(iso)
  const text = local
    ? date.toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'medium' })
    : `${date.toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })} UTC`
  return <time dateTime={iso}>{text}</time>
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return '—'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** The fields an entry changed, one line each: field: before → after. */
function Changes({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation('operator')
  const keys = [...new Set([...Object.keys(entry.before ?? {}), ...Object.keys(entry.after ?? {})])]
  if (keys.length === 0) return <span className="hint">{t('audit.noChanges')}</span>
  return (
    <ul className="operator-changes">
      {keys.map((key) => (
        <li key={key}>
          <span className="operator-change-field">{key}</span>: <del>{shown(entry.before?.[key])}</del> <span aria-hidden="true">→</span>
          <span className="visually-hidden">{` ${t('audit.changedTo')} `}</span> <ins>{shown(entry.after?.[key])}</ins>
        </li>
      ))}
    </ul>
  )
}

export function Component() {
  const { t } = useTranslation('operator')
  const id = useId()
  const audit = useLoaderData() as AuditData
  const navigation = useNavigation()
  const heading = useRef<HTMLHeadingElement>(null)
  const loading = navigation.state === 'loading' && navigation.location.pathname === '/@/operator/audit'
  // After a filter or a page change the reader is taken to the results, not left at the button.
  const key = `${filterQuery(audit.filters, audit.before).toString()}`
  const first = useRef(true)
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    heading.current?.focus()
  }, [key])

  const errorOf = (name: FilterName) => (audit.invalid === name ? t(`audit.errors.${name}`) : undefined)
  const csv = `/api/operator/audit.csv?${filterQuery(audit.filters).toString()}`
  const filtered = FILTERS.some((name) => audit.filters[name])

  return (
    <main id="content" className="operator-page" data-testid="operator-audit">
      <h1>{t('audit.title')}</h1>
      <p>{t('audit.lead')}</p>
      <Form method="get" className="operator-filters" aria-label={t('audit.filters')}>
        {FILTERS.map((name) => (
          <Field key={name} id={`${id}-${name}`} name={name} label={t(`audit.${name}`)} hint={t(`audit.${name}Hint`)} defaultValue={audit.filters[name]} error={errorOf(name)} autoComplete="off" spellCheck={false} />
        ))}
        <p className="actions">
          <button type="submit" className="button" disabled={loading}>
            {t('audit.apply')}
          </button>{' '}
          {filtered ? (
            <Link to="/@/operator/audit" className="button button-secondary">
              {t('audit.reset')}
            </Link>
          ) : null}{' '}
          <a href={csv} download className="button button-secondary" data-testid="audit-csv">
            {t('audit.download')}
          </a>
        </p>
      </Form>
      {audit.invalid === 'before' ? <Notice kind="error">{t('audit.errors.before')}</Notice> : null}
      <h2 ref={heading} tabIndex={-1} className="operator-results-heading">
        {t('audit.results')}
      </h2>
      {audit.entries.length === 0 ? (
        <p data-testid="audit-empty">{t('audit.empty')}</p>
      ) : (
        <div className="operator-table-wrap operator-audit-wrap">
          <table className="operator-table operator-audit-table" aria-busy={loading}>
            <thead>
              <tr>
                <th scope="col">{t('audit.columns.at')}</th>
                <th scope="col">{t('audit.columns.actor')}</th>
                <th scope="col">{t('audit.columns.action')}</th>
                <th scope="col">{t('audit.columns.target')}</th>
                <th scope="col">{t('audit.columns.changes')}</th>
              </tr>
            </thead>
            <tbody>
              {audit.entries.map((entry) => (
                <tr key={entry.id} data-testid="audit-entry">
                  <td>
                    <LocalTime iso={entry.at} />
                  </td>
                  <td>
                    <span className="operator-actor">{entry.actor.email}</span>
                  </td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                  <td>
                    <code>{entry.target}</code>
                  </td>
                  <td>
                    <Changes entry={entry} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label={t('audit.pages')}>
        {audit.before ? <Link to={`/@/operator/audit?${filterQuery(audit.filters).toString()}`}>{t('audit.newest')}</Link> : null}{' '}
        {audit.next ? (
          <Link to={`/@/operator/audit?${filterQuery(audit.filters, audit.next).toString()}`} data-testid="audit-older">
            {t('audit.older')}
          </Link>
        ) : null}
      </nav>
    </main>
  )
}
