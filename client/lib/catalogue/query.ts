import { redirect } from 'react-router'
import { ALL_CATEGORIES, LIBRARY_FILTER_TABS, PLATFORM_FILTERS, PROGRAM_CATEGORIES, SORT_OPTIONS, type LibrarySortOption, type LibraryView, type Platform, type PriceFilter } from '../../../shared/catalogue/catalogue.ts'
import type { ProgramPage } from '../../../shared/catalogue/program-schemas.ts'

// A listing's state lives in the URL query (shareable, server-rendered, survives reload and
// back/forward). A hand-edited URL with odd values gets the defaults, not an error page.

export interface ListingState {
  price: PriceFilter
  /** One of the page's sorts: spec §2's three, and on the personal library also recentlyAdded. */
  sort: LibrarySortOption
  category: string
  /** The platform the programs run on; 'all' is no filter. */
  platform: Platform | 'all'
  q: string
  mine: boolean
  /** My library's view: the programs saved, or those owned (?view=owned). 'saved' elsewhere. */
  view: LibraryView
  page: number
}

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback
}

/** The state in a URL query; `sorts` and `views` are those the page offers (an unknown one is the default). */
export function readListingState(params: URLSearchParams, sorts: readonly LibrarySortOption[] = SORT_OPTIONS, views: readonly LibraryView[] = ['saved']): ListingState {
  const page = Number(params.get('page'))
  return {
    price: oneOf(params.get('price'), LIBRARY_FILTER_TABS, 'all'),
    sort: oneOf(params.get('sort'), sorts, 'namePopular'),
    category: oneOf(params.get('category'), [ALL_CATEGORIES, ...PROGRAM_CATEGORIES], ALL_CATEGORIES),
    platform: oneOf(params.get('platform'), [...PLATFORM_FILTERS, 'all'], 'all'),
    q: (params.get('q') ?? '').slice(0, 100),
    mine: params.get('mine') === '1',
    view: oneOf(params.get('view'), views, 'saved'),
    page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
  }
}

/** The URL query of a state, defaults left out so URLs stay short. */
export function listingSearch(state: ListingState): string {
  const params = new URLSearchParams()
  if (state.q) params.set('q', state.q)
  if (state.price !== 'all') params.set('price', state.price)
  if (state.category !== ALL_CATEGORIES) params.set('category', state.category)
  if (state.platform !== 'all') params.set('platform', state.platform)
  if (state.sort !== 'namePopular') params.set('sort', state.sort)
  if (state.mine) params.set('mine', '1')
  if (state.view !== 'saved') params.set('view', state.view)
  if (state.page > 1) params.set('page', String(state.page))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** The number of a listing's last page (1 when nothing matches). */
export function lastPage(result: Pick<ProgramPage, 'total' | 'pageSize'>): number {
  return Math.max(1, Math.ceil(result.total / result.pageSize))
}

/**
 * A page number past the last page ("Page 99 of 11") is answered with a redirect to the
 * same URL on the last page, every other parameter kept — page 1, with its empty state, when
 * nothing matches. Thrown from a loader, it is a 302 on the server and a redirect in the browser.
 */
export function redirectPastLastPage(url: URL, state: ListingState, result: Pick<ProgramPage, 'total' | 'pageSize'>): void {
  const last = lastPage(result)
  if (state.page <= last) return
  url.searchParams.set('page', String(last))
  throw redirect(url.pathname + url.search)
}

/**
 * The numbered pages of a listing's pagination: the first, the last and the current one
 * with its neighbours; 0 stands for an ellipsis. Seven entries at most, so a phone's row holds them.
 */
export function pageItems(current: number, last: number): number[] {
  const items: number[] = []
  for (let page = 1; page <= last; page++) {
    const distance = Math.abs(page - current)
    // An ellipsis would take the room of the one page it stands for: that page shows instead.
    if (page === 1 || page === last || distance <= 1 || (distance === 2 && (page === 2 || page === last - 1))) items.push(page)
    else if (items[items.length - 1]) items.push(0)
  }
  return items
}
