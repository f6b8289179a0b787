import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useLocation, useNavigation, type LoaderFunctionArgs } from 'react-router'
import { DEFAULT_PAGE_SIZE, LIBRARY_SORT_OPTIONS, type ProgramPage } from '../../shared/catalogue.ts'
import { ProgramGrid } from '../components/program-card.tsx'
import { apiGet } from '../lib/api.ts'
import { LibraryProvider } from '../lib/library.tsx'
// Through the public listing's module, so that they ship in its chunk (see there).
import { ListingFilters, Pagination, PriceTabs, readListingState, redirectPastLastPage, type ListingState } from './catalogue-listing.tsx'

// /@/library: the user's own programs, with the filter tabs all/free/paid, the three sorts and
// the category filter of spec §2, and (issue 15) the public listing's search box and a "recently
// added" sort (GET /api/user/programs takes the public listing's query, and sort=recentlyAdded).

interface MyLibraryData {
  state: ListingState
  result: ProgramPage
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<MyLibraryData> {
  const url = new URL(request.url)
  const state = readListingState(url.searchParams, LIBRARY_SORT_OPTIONS)
  const query = new URLSearchParams({ price: state.price, sort: state.sort, page: String(state.page), pageSize: String(DEFAULT_PAGE_SIZE) })
  if (state.category !== 'all') query.set('category', state.category)
  if (state.q) query.set('q', state.q)
  const result = await apiGet<ProgramPage>(context, `/api/user/programs?${query.toString()}`, request.signal)
  // Past the last page (a removal emptied it, or a hand-edited URL): the last page (issue 15).
  redirectPastLastPage(url, state, result)
  return { state, result }
}

export function Component() {
  const { state, result } = useLoaderData() as MyLibraryData
  const { t } = useTranslation(['auth', 'catalogue', 'common'])
  const location = useLocation()
  const navigation = useNavigation()
  const filtered = state.price !== 'all' || state.category !== 'all' || state.q !== ''

  return (
    <main id="content" className="listing" aria-busy={navigation.state === 'loading'}>
      <header className="listing-header">
        <h1>{t('auth:library.title')}</h1>
        <p>{t('auth:library.lead')}</p>
      </header>

      <ListingFilters state={state} languageFilter={false} sorts={LIBRARY_SORT_OPTIONS} />

      <PriceTabs state={state} />

      <h2 className="listing-count" aria-live="polite">
        {t('catalogue:results.count', { count: result.total })}
      </h2>
      {result.items.length === 0 ? (
        <div className="listing-empty" data-testid="library-empty">
          <p>{filtered ? t('catalogue:results.none') : t('auth:library.empty')}</p>
          <Link className="button" to={filtered ? location.pathname : '/@/programs'}>
            {filtered ? t('catalogue:filters.clear') : t('auth:library.browse')}
          </Link>
        </div>
      ) : (
        <LibraryProvider key={result.items.map((program) => program.id).join()} ids={result.items.map((program) => program.id)} revalidateOnChange>
          <ProgramGrid programs={result.items} />
        </LibraryProvider>
      )}

      <Pagination state={state} result={result} />
    </main>
  )
}
