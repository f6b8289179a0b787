import type { ReactNode, SelectHTMLAttributes } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation } from 'react-router'
import { LIBRARY_FILTER_TABS, PLATFORM_FILTERS, PROGRAM_CATEGORIES, SORT_OPTIONS, type LibrarySortOption } from '../../shared/catalogue/catalogue.ts'
import type { ProgramPage } from '../../shared/catalogue/program-schemas.ts'
import { lastPage, listingSearch, pageItems, type ListingState } from '../lib/catalogue/query.ts'

// What every program listing shares — the public catalogue, its signed-in twins and the user's
// own library: the price tabs (spec §2: all, free, paid) and the pages, both as plain links so
// they work before scripts load and survive back/forward — and the category and sort fields.

/** The listing's URL with `change` applied (back to the first page unless the change says otherwise). */
export function useListingLink(state: ListingState): (change: Partial<ListingState>) => string {
  const { pathname } = useLocation()
  return (change) => `${pathname}${listingSearch({ ...state, page: 1, ...change })}`
}

export function PriceTabs({ state }: { state: ListingState }) {
  const { t } = useTranslation('catalogue')
  const link = useListingLink(state)
  return (
    <nav className="tabs" aria-label={t('tabs.label')}>
      {LIBRARY_FILTER_TABS.map((tab) => (
        // A tab filters the list the visitor is looking at: the page keeps its scroll position.
        <Link key={tab} to={link({ price: tab })} preventScrollReset className={`tab${state.price === tab ? ' tab-active' : ''}`} aria-current={state.price === tab ? 'page' : undefined}>
          {t(`tabs.${tab}`)}
        </Link>
      ))}
    </nav>
  )
}

/**
 * Previous, the numbered pages (first, last, current ±1) and next, all plain links; the
 * current page is a link too, marked `aria-current`.
 */
export function Pagination({ state, result }: { state: ListingState; result: ProgramPage }) {
  const { t } = useTranslation('catalogue')
  const link = useListingLink(state)
  const pages = lastPage(result)
  if (pages <= 1) return null
  return (
    <nav className="pagination" aria-label={t('results.pagination')}>
      {state.page > 1 ? (
        <Link to={link({ page: state.page - 1 })} rel="prev">
          {t('results.previous')}
        </Link>
      ) : null}
      <ul>
        {pageItems(state.page, pages).map((page, index) => (
          <li key={index}>
            {page ? (
              <Link to={link({ page })} aria-current={page === state.page ? 'page' : undefined}>
                {page}
              </Link>
            ) : (
              '…'
            )}
          </li>
        ))}
      </ul>
      {state.page < pages ? (
        <Link to={link({ page: state.page + 1 })} rel="next">
          {t('results.next')}
        </Link>
      ) : null}
    </nav>
  )
}

/**
 * A listing's filters: folded behind a "Filters" button on phones, which says how many are in use,
 * and always shown from md up — a <details> like the site menu's (`.disclosure` in
 * styles.css), without its scripts: a summary says by itself whether it is open.
 */
export function FiltersDisclosure({ active, children }: { active: number; children: ReactNode }) {
  const { t } = useTranslation('catalogue')
  return (
    <details className="disclosure listing-disclosure">
      <summary>
        {t('filters.toggle')}{' '}
        {active > 0 ? <span className="badge listing-active">{t('filters.active', { count: active })}</span> : null}
      </summary>
      {children}
    </details>
  )
}

type SelectProps = { id: string } & SelectHTMLAttributes<HTMLSelectElement>

/** The category filter (spec §2 categories, "All" first), as a form field or a controlled select. */
export function CategoryField({ id, ...select }: SelectProps) {
  const { t } = useTranslation(['catalogue', 'common'])
  return (
    <div className="field">
      <label htmlFor={id}>{t('catalogue:filters.category')}</label>
      <select id={id} {...select}>
        <option value="all">{t('common:categories.all')}</option>
        {PROGRAM_CATEGORIES.map((category) => (
          <option key={category} value={category}>
            {t(`common:categories.${category}`)}
          </option>
        ))}
      </select>
    </div>
  )
}

/** The platform filter ("All platforms" first). */
export function PlatformField({ id, ...select }: SelectProps) {
  const { t } = useTranslation('catalogue')
  return (
    <div className="field">
      <label htmlFor={id}>{t('filters.platform')}</label>
      <select id={id} {...select}>
        <option value="all">{t('filters.allPlatforms')}</option>
        {PLATFORM_FILTERS.map((platform) => (
          <option key={platform} value={platform}>
            {t(`platforms.${platform}`)}
          </option>
        ))}
      </select>
    </div>
  )
}

/** The three sorts of spec §2; `sorts` when the page offers others too (the personal library's recentlyAdded). */
export function SortField({ id, sorts = SORT_OPTIONS, ...select }: SelectProps & { sorts?: readonly LibrarySortOption[] }) {
  const { t } = useTranslation('catalogue')
  return (
    <div className="field">
      <label htmlFor={id}>{t('sort.label')}</label>
      <select id={id} {...select}>
        {sorts.map((sort) => (
          <option key={sort} value={sort}>
            {t(`sort.${sort}`)}
          </option>
        ))}
      </select>
    </div>
  )
}
