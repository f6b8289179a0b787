import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useLocation, useNavigate, useNavigation, type LoaderFunctionArgs } from 'react-router'
import { DEFAULT_PAGE_SIZE, type ProgramPage } from '../../shared/catalogue.ts'
import { ProgramGrid } from '../components/program-card.tsx'
import { apiGet } from '../lib/api.ts'
import { redirectPastLastPage, readListingState, type ListingState } from '../lib/catalogue-query.ts'
import { LibraryProvider } from '../lib/library.tsx'
// Through the public listing's module, so that they ship in its chunk (see there).
import { CategoryField, FiltersDisclosure, Pagination, PriceTabs, SortField, useListingLink } from './catalogue-listing.tsx'

// /@/library: the user's own programs, with the filter tabs all/free/paid, the three sorts and
// the category filter of spec §2 (GET /api/user/programs takes the public listing's query).

interface MyLibraryData {
  state: ListingState
  result: ProgramPage
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<MyLibraryData> {
  const url = new URL(request.url)
  const state = readListingState(url.searchParams)
  const query = new URLSearchParams({ price: state.price, sort: state.sort, page: String(state.page), pageSize: String(DEFAULT_PAGE_SIZE) })
  if (state.category !== 'all') query.set('category', state.category)
  const result = await apiGet<ProgramPage>(context, `/api/user/programs?${query.toString()}`, request.signal)
  // Past the last page (a removal emptied it, or a hand-edited URL): the last page (issue 15).
  redirectPastLastPage(url, state, result)
  return { state, result }
}

export function Component() {
  const { state, result } = useLoaderData() as MyLibraryData
  const { t } = useTranslation(['auth', 'catalogue', 'common'])
  const location = useLocation()
  const navigate = useNavigate()
  const navigation = useNavigation()
  const link = useListingLink(state)
  const filtered = state.price !== 'all' || state.category !== 'all'

  return (
    <main id="content" className="listing" aria-busy={navigation.state === 'loading'}>
      <header className="listing-header">
        <h1>{t('auth:library.title')}</h1>
        <p>{t('auth:library.lead')}</p>
      </header>

      <FiltersDisclosure active={Number(state.category !== 'all')}>
        <div className="listing-filters">
          <CategoryField id="library-category" value={state.category} onChange={(event) => void navigate(link({ category: event.target.value }))} />
          <SortField id="library-sort" value={state.sort} onChange={(event) => void navigate(link({ sort: event.target.value as ListingState['sort'] }))} />
        </div>
      </FiltersDisclosure>

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
