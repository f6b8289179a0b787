import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useLocation, useNavigation, type LoaderFunctionArgs } from 'react-router'
import { DEFAULT_PAGE_SIZE, LIBRARY_SORT_OPTIONS, LIBRARY_VIEWS } from '../../shared/catalogue/catalogue.ts'
import type { ProgramPage } from '../../shared/catalogue/program-schemas.ts'
import { CompareTray } from '../components/compare-toggle.tsx'
import type { Watch } from '../../shared/catalogue/living-schemas.ts'
import { ProgramGrid } from '../components/program-card.tsx'
import { WatchProvider } from '../components/watch-control.tsx'
import { apiGet } from '../lib/api.ts'
import { LibraryProvider } from '../lib/catalogue/library.tsx'
// Through the public listing's module, so that they ship in its chunk (see there).
import { ListingFilters, Pagination, PriceTabs, readListingState, redirectPastLastPage, type ListingState } from './catalogue-listing.tsx'

// /@/library: the user's own programs, with the filter tabs all/free/paid, the three sorts and
// the category filter of spec §2, and the public listing's search box and a "recently
// added" sort (GET /api/user/programs takes the public listing's query, and sort=recentlyAdded).
// Two views, the programs saved and (?view=owned, plain links that work before scripts
// load and survive a reload) the programs bought or subscribed to, saved or not; every card says
// "Owned" where the user owns it.

interface MyLibraryData {
  state: ListingState
  result: ProgramPage
  libraryIds: string[]
  ownedIds: string[]
  /** What the user watches, for the cards' "Watch". */
  watches: Watch[]
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<MyLibraryData> {
  const url = new URL(request.url)
  const state = readListingState(url.searchParams, LIBRARY_SORT_OPTIONS, LIBRARY_VIEWS)
  const query = new URLSearchParams({ price: state.price, sort: state.sort, page: String(state.page), pageSize: String(DEFAULT_PAGE_SIZE) })
  if (state.category !== 'all') query.set('category', state.category)
  if (state.q) query.set('q', state.q)
  if (state.platform !== 'all') query.set('platform', state.platform)
  if (state.view !== 'saved') query.set('view', state.view)
  const [result, ids, watches] = await Promise.all([
    apiGet<ProgramPage>(context, `/api/user/programs?${query.toString()}`, request.signal),
    apiGet<{ programIds: string[]; ownedIds: string[] }>(context, '/api/user/program-ids', request.signal),
    apiGet<{ items: Watch[] }>(context, '/api/user/watches', request.signal),
  ])
  // Past the last page (a removal emptied it, or a hand-edited URL): the last page.
  redirectPastLastPage(url, state, result)
  return { state, result, libraryIds: ids.programIds, ownedIds: ids.ownedIds, watches: watches.items }
}

/** Saved | Owned: plain links, the view in the URL; a view starts unfiltered. */
function ViewTabs({ view }: { view: ListingState['view'] }) {
  const { t } = useTranslation('auth')
  const { pathname } = useLocation()
  return (
    <nav className="tabs" aria-label={t('library.views.label')}>
      {LIBRARY_VIEWS.map((option) => (
        <Link
          key={option}
          to={option === 'saved' ? pathname : `${pathname}?view=${option}`}
          className={`tab${view === option ? ' tab-active' : ''}`}
          aria-current={view === option ? 'page' : undefined}
        >
          {t(`library.views.${option}`)}
        </Link>
      ))}
    </nav>
  )
}

export function Component() {
  const { state, result, libraryIds, ownedIds, watches } = useLoaderData() as MyLibraryData
  const { t } = useTranslation(['auth', 'catalogue', 'common'])
  const location = useLocation()
  const navigation = useNavigation()
  const filtered = state.price !== 'all' || state.category !== 'all' || state.platform !== 'all' || state.q !== ''
  const owned = state.view === 'owned'

  return (
    <main id="content" className="listing" aria-busy={navigation.state === 'loading'}>
      <header className="listing-header">
        <h1>{t('auth:library.title')}</h1>
        <p>{t(owned ? 'auth:library.ownedLead' : 'auth:library.lead')}</p>
      </header>

      <ViewTabs view={state.view} />

      <ListingFilters state={state} languageFilter={false} sorts={LIBRARY_SORT_OPTIONS} />

      <PriceTabs state={state} />

      <h2 className="listing-count" aria-live="polite">
        {t('catalogue:results.count', { count: result.total })}
      </h2>
      {result.items.length === 0 ? (
        <div className="listing-empty" data-testid="library-empty">
          <p>{filtered ? t('catalogue:results.none') : t(owned ? 'auth:library.ownedEmpty' : 'auth:library.empty')}</p>
          {filtered ? (
            <Link className="button" to={`${location.pathname}${owned ? '?view=owned' : ''}`}>
              {t('catalogue:filters.clear')}
            </Link>
          ) : (
            <Link className="button" to={owned ? '/@/programs?price=paid' : '/@/programs'}>
              {t(owned ? 'auth:library.browsePaid' : 'auth:library.browse')}
            </Link>
          )}
        </div>
      ) : (
        // Keyed by the view and its cards: a list the revalidation changed starts from its own state.
        <LibraryProvider key={`${state.view}:${result.items.map((program) => program.id).join()}`} ids={libraryIds} ownedIds={ownedIds} revalidateOnChange>
          <WatchProvider watches={watches}>
            <ProgramGrid programs={result.items} />
          </WatchProvider>
        </LibraryProvider>
      )}

      <Pagination state={state} result={result} />
      <CompareTray />
    </main>
  )
}
