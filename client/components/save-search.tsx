import { useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useLocation } from 'react-router'
import { SAVED_SEARCH_IGNORED_PARAMS, SAVED_SEARCH_NAME_MAX } from '../../shared/catalogue/living.ts'
import type { SavedSearch } from '../../shared/catalogue/living-schemas.ts'
import { apiSend, errorMessage } from '../lib/api.ts'
import type { ListingData, Scope } from '../pages/catalogue-listing.tsx'

// "Save this search" on the signed-in listing pages (/@/programs and its filter twins).
// What is saved is the listing's own query — the URL's filters and the page's scope (a category,
// a developer…) — as GET /api/programs reads it; the API refuses what the listing would refuse.

/** The listing's query for the API: the URL's filters, the scope of the page, "my language" as the language itself. */
export function savedSearchQuery(scope: Scope, search: string, language: string): string {
  const params = new URLSearchParams(search)
  for (const name of [...SAVED_SEARCH_IGNORED_PARAMS, 'view']) params.delete(name)
  if (params.get('mine') === '1') params.set('language', language)
  params.delete('mine')
  if (params.get('category') === 'all') params.delete('category')
  if (params.get('price') === 'all') params.delete('price')
  if (scope.kind === 'category') params.set('category', scope.id)
  if (scope.kind === 'developer') params.set('developer', scope.id)
  if (scope.kind === 'publisher') params.set('publisher', scope.id)
  if (scope.kind === 'licenseType') params.set('licenseType', scope.id)
  params.sort()
  return params.toString()
}

export function SaveSearch() {
  const { scope, state } = useLoaderData() as ListingData
  const { t, i18n } = useTranslation(['catalogue', 'common'])
  const location = useLocation()
  const nameId = useId()
  const [open, setOpen] = useState(false)
  const [busy, setBusy] = useState(false)
  const [status, setStatus] = useState<{ kind: 'success' } | { kind: 'error'; text: string } | null>(null)

  // The name is what the filters say: "Graphics · Paid · “blender”".
  const scopeName =
    scope.kind === 'category' ? t(`common:categories.${scope.id}`)
    : scope.kind === 'licenseType' ? t(`catalogue:licenseTypes.${scope.id}`)
    : scope.kind === 'developer' || scope.kind === 'publisher' ? scope.name
    : state.category !== 'all' ? t(`common:categories.${state.category as 'graphics'}`)
    : null
  const parts = [scopeName, state.price !== 'all' ? t(`catalogue:tabs.${state.price}`) : null, state.q ? `“${state.q}”` : null].filter((part): part is string => part !== null)
  const suggested = (parts.length > 0 ? parts.join(' · ') : t('catalogue:saveSearch.everything')).slice(0, SAVED_SEARCH_NAME_MAX)

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const name = String(new FormData(event.currentTarget).get('name') ?? '').trim()
    if (name === '') return
    setBusy(true)
    const result = await apiSend<SavedSearch>('POST', '/api/user/saved-searches', { name, query: savedSearchQuery(scope, location.search, i18n.language) })
    setBusy(false)
    if (result.ok) {
      setOpen(false)
      setStatus({ kind: 'success' })
    } else {
      setStatus({ kind: 'error', text: errorMessage(result) ?? t('catalogue:saveSearch.failed') })
    }
  }

  return (
    <div className="save-search" data-testid="save-search">
      {open ? (
        <form className="save-search-form" onSubmit={(event) => void save(event)}>
          <label htmlFor={nameId}>{t('catalogue:saveSearch.name')}</label>
          <input id={nameId} name="name" type="text" required maxLength={SAVED_SEARCH_NAME_MAX} defaultValue={suggested} autoComplete="off" />
          <button type="submit" className="button" disabled={busy}>
            {t('catalogue:saveSearch.save')}
          </button>
          <button type="button" className="button button-secondary" onClick={() => setOpen(false)}>
            {t('catalogue:saveSearch.cancel')}
          </button>
          <p className="hint">{t('catalogue:saveSearch.hint')}</p>
        </form>
      ) : (
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => {
            setStatus(null)
            setOpen(true)
          }}
        >
          {t('catalogue:saveSearch.open')}
        </button>
      )}
      {status ? (
        <p className={`notice ${status.kind === 'success' ? 'notice-success' : 'notice-error'}`} role={status.kind === 'success' ? 'status' : 'alert'}>
          {status.kind === 'success' ? t('catalogue:saveSearch.saved') : status.text}{' '}
          {status.kind === 'success' ? <Link to="/@/saved-searches">{t('catalogue:saveSearch.manage')}</Link> : null}
        </p>
      ) : null}
    </div>
  )
}
