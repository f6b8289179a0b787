import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useRevalidator, type LoaderFunctionArgs } from 'react-router'
import type { SavedSearch } from '../../shared/catalogue/living-schemas.ts'
import { apiGet, apiSend } from '../lib/api.ts'

// /@/saved-searches: the account's saved searches, each a link that opens the listing
// it was saved from, and Delete. A program that newly matches one becomes a notification.

export async function loader({ context, request }: LoaderFunctionArgs): Promise<{ items: SavedSearch[] }> {
  return apiGet<{ items: SavedSearch[] }>(context, '/api/user/saved-searches', request.signal)
}

/** The signed-in listing a saved query opens: its developer, publisher or licence type is the page, the rest the URL's filters. */
export function listingHref(query: string): string {
  const params = new URLSearchParams(query)
  let path = '/@/programs'
  for (const [name, segment] of [['developer', 'developer'], ['publisher', 'publisher'], ['licenseType', 'license-type']] as const) {
    const value = params.get(name)
    if (value !== null) {
      path = `/@/${segment}/${encodeURIComponent(value)}`
      params.delete(name)
      break
    }
  }
  // "Available in my language": the listing's own switch.
  if (params.has('language')) {
    params.delete('language')
    params.set('mine', '1')
  }
  const search = params.toString()
  return search === '' ? path : `${path}?${search}`
}

export function Component() {
  const { items } = useLoaderData() as { items: SavedSearch[] }
  const { t, i18n } = useTranslation(['saved-searches', 'common'])
  const revalidator = useRevalidator()
  const [status, setStatus] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const dateFormat = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' })

  const remove = async (search: SavedSearch) => {
    setBusy(search.id)
    const result = await apiSend<null>('DELETE', `/api/user/saved-searches/${encodeURIComponent(search.id)}`)
    setBusy(null)
    // Gone already (another tab): gone is what was asked.
    if (result.ok || result.status === 404) {
      setStatus({ kind: 'success', text: t('saved-searches:deleted', { name: search.name }) })
      await revalidator.revalidate()
    } else {
      setStatus({ kind: 'error', text: t('saved-searches:deleteFailed') })
    }
  }

  return (
    <main id="content" className="saved-searches-page">
      <header className="listing-header">
        <h1>{t('saved-searches:title')}</h1>
        <p>{t('saved-searches:lead')}</p>
      </header>
      {status ? (
        <p className={`notice ${status.kind === 'success' ? 'notice-success' : 'notice-error'}`} role={status.kind === 'success' ? 'status' : 'alert'}>
          {status.text}
        </p>
      ) : null}
      {items.length === 0 ? (
        <p className="listing-empty">
          {t('saved-searches:empty')} <Link to="/@/programs">{t('saved-searches:browse')}</Link>
        </p>
      ) : (
        <ul className="saved-searches" data-testid="saved-searches">
          {items.map((search) => (
            <li key={search.id} className="card saved-search">
              <Link to={listingHref(search.query)} className="saved-search-name">
                {search.name}
              </Link>
              <span className="hint">{t('saved-searches:savedOn', { date: dateFormat.format(new Date(search.createdAt)) })}</span>
              <button type="button" className="button button-secondary" disabled={busy === search.id} aria-label={t('saved-searches:deleteLabel', { name: search.name })} onClick={() => void remove(search)}>
                {t('saved-searches:delete')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </main>
  )
}
