import { useContext, useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Form, UNSAFE_DataRouterContext, useLocation, useSubmit } from 'react-router'
import { LIBRARY_VIEWS, SORT_OPTIONS, type LibrarySortOption } from '../../shared/catalogue/catalogue.ts'
import { readListingState, type ListingState } from '../lib/catalogue/query.ts'
import { CategoryField, FiltersDisclosure, PlatformField, SortField } from './listing-parts.tsx'

// The search and filter form of a program listing — the public catalogue, its signed-in twins and
// the user's own library — as a GET form, so it works before scripts load or without
// them: submitting reloads the same page with the query in the URL. On a phone it folds behind
// the Filters button (FiltersDisclosure), which says how many filters are in use.

interface ListingFiltersProps {
  state: ListingState
  /** Whether the category select shows (not on a category's own page). */
  category?: boolean
  /** Whether the "in my language" box shows (the public catalogue's). */
  languageFilter?: boolean
  /** The sorts the page offers; the personal library adds recentlyAdded. */
  sorts?: readonly LibrarySortOption[]
}

export function ListingFilters({ state, category = true, languageFilter = true, sorts = SORT_OPTIONS }: ListingFiltersProps) {
  const { t } = useTranslation('catalogue')
  const submit = useSubmit()
  const form = useRef<HTMLFormElement>(null)
  // Uncontrolled fields show the URL's state when they mount; back and forward change the state
  // without remounting them, so they are set again (setting a field to its own value keeps focus).
  useEffect(() => {
    const fields = form.current?.elements
    if (!fields) return
    const values: Record<string, string> = { q: state.q, category: state.category, platform: state.platform, sort: state.sort }
    for (const [name, value] of Object.entries(values)) {
      const field = fields.namedItem(name) as HTMLInputElement | HTMLSelectElement | null
      if (field) field.value = value
    }
    const mine = fields.namedItem('mine') as HTMLInputElement | null
    if (mine) mine.checked = state.mine
  }, [state.q, state.category, state.platform, state.sort, state.mine])

  // The price and view tabs are links outside the form. The one picked last is what the visitor
  // means, and a sort or filter picked before the page shows it must keep it: while its list loads
  // it is the navigation under way; once loaded, the address says it before the page is rendered
  // again (React Router updates the URL, then renders in a transition). So the hidden fields are
  // set again just before the form is sent, from the router's state as it is then (the last render
  // may not have caught up with a click a moment ago) and the address.
  const router = useContext(UNSAFE_DataRouterContext)?.router
  const location = useLocation()
  const askedFor = (): Pick<ListingState, 'price' | 'view'> => {
    const now = router?.state.navigation
    if (now?.state === 'loading' && now.location.pathname === location.pathname) return readListingState(new URLSearchParams(now.location.search), sorts, LIBRARY_VIEWS)
    if (typeof window !== 'undefined' && window.location.pathname === location.pathname) return readListingState(new URLSearchParams(window.location.search), sorts, LIBRARY_VIEWS)
    return state
  }
  const keepTabs = (form: HTMLFormElement) => {
    const asked = askedFor()
    for (const [name, value, unset] of [['price', asked.price, 'all'], ['view', asked.view, 'saved']] as const) {
      const field = form.elements.namedItem(name) as HTMLInputElement | null
      if (!field) continue
      field.value = value
      // A disabled field is not sent: the default stays out of the URL.
      field.disabled = value === unset
    }
  }

  // What narrows the list (the sort only orders it); a category page's own category is no filter.
  const active = [state.q !== '', category && state.category !== 'all', state.platform !== 'all', languageFilter && state.mine].filter(Boolean).length

  return (
    <FiltersDisclosure active={active}>
      <Form
        ref={form}
        method="get"
        role="search"
        className="listing-filters"
        // A visitor using the filters stays where the filters are; a new list is not a new page.
        preventScrollReset
        onSubmit={(event) => keepTabs(event.currentTarget)}
        onChange={(event) => {
          // Selects and the checkbox apply at once when scripts run; the button serves everyone else.
          const target = event.target as unknown as HTMLInputElement | HTMLSelectElement
          if (target.tagName === 'SELECT' || target.type === 'checkbox') {
            keepTabs(event.currentTarget)
            void submit(event.currentTarget, { preventScrollReset: true })
          }
        }}
      >
        <div className="field field-search">
          <label htmlFor="listing-q">{t('filters.search')}</label>
          <input id="listing-q" type="search" name="q" defaultValue={state.q} placeholder={t('filters.searchPlaceholder')} maxLength={100} />
        </div>
        <input type="hidden" name="price" value={state.price} disabled={state.price === 'all'} />
        <input type="hidden" name="view" value={state.view} disabled={state.view === 'saved'} />
        {category ? <CategoryField id="listing-category" name="category" defaultValue={state.category} /> : null}
        <PlatformField id="listing-platform" name="platform" defaultValue={state.platform} />
        <SortField id="listing-sort" name="sort" defaultValue={state.sort} sorts={sorts} />
        {languageFilter ? (
          <div className="field field-check">
            <input id="listing-mine" type="checkbox" name="mine" value="1" defaultChecked={state.mine} />
            <label htmlFor="listing-mine">{t('filters.myLanguage')}</label>
          </div>
        ) : null}
        <button type="submit" className="button">
          {t('filters.submit')}
        </button>
      </Form>
    </FiltersDisclosure>
  )
}
