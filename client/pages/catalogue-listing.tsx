import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useLocation, useNavigation, type LoaderFunctionArgs, type Params } from 'react-router'
import { DEFAULT_PAGE_SIZE, type LicenseType, type ProgramCategory } from '../../shared/catalogue/catalogue.ts'
import type { ProgramPage } from '../../shared/catalogue/program-schemas.ts'
import { CompareTray } from '../components/compare-toggle.tsx'
import { ListingFilters } from '../components/listing-filters.tsx'
import { Pagination, PriceTabs } from '../components/listing-parts.tsx'
import { ProgramGrid } from '../components/program-card.tsx'
import { apiGet, loaderLocale } from '../lib/api.ts'
import { redirectPastLastPage, readListingState, type ListingState } from '../lib/catalogue/query.ts'
import { useLibrary } from '../lib/catalogue/library-state.ts'

// The signed-in library page (my-library.tsx) takes the listing's parts from here, so that they
// ship in this page's chunk rather than in a shared chunk of their own: one file fewer for every
// visitor of a public listing (0.3 kB gzip of the first-load budget, then 130 kB).
export { ListingFilters, Pagination, PriceTabs, readListingState, redirectPastLastPage }
export type { ListingState }

export interface Organisation {
  id: string
  name: string
  website: string | null
  programCount: number
}

export type Scope =
  | { kind: 'library' }
  | { kind: 'category'; id: ProgramCategory }
  | ({ kind: 'developer' | 'publisher' } & Organisation)
  | { kind: 'licenseType'; id: LicenseType; isFree: boolean }

export interface ListingData {
  scope: Scope
  state: ListingState
  result: ProgramPage
}

async function loadScope(context: unknown, params: Params, signal: AbortSignal): Promise<Scope> {
  const enc = encodeURIComponent
  if (params.categoryId) return { kind: 'category', ...(await apiGet<{ id: ProgramCategory }>(context, `/api/categories/${enc(params.categoryId)}`, signal)) }
  if (params.developerId) return { kind: 'developer', ...(await apiGet<Organisation>(context, `/api/developers/${enc(params.developerId)}`, signal)) }
  if (params.publisherId) return { kind: 'publisher', ...(await apiGet<Organisation>(context, `/api/publishers/${enc(params.publisherId)}`, signal)) }
  if (params.licenseType) return { kind: 'licenseType', ...(await apiGet<{ id: LicenseType; isFree: boolean }>(context, `/api/license-types/${enc(params.licenseType)}`, signal)) }
  return { kind: 'library' }
}

export async function loader({ request, params, context }: LoaderFunctionArgs): Promise<ListingData> {
  const url = new URL(request.url)
  const state = readListingState(url.searchParams)
  const query = new URLSearchParams({ price: state.price, sort: state.sort, page: String(state.page), pageSize: String(DEFAULT_PAGE_SIZE) })
  // The scope comes from the route's own parameter, so the page and its programs load together.
  const category = params.categoryId ?? (state.category !== 'all' ? state.category : undefined)
  if (category) query.set('category', category)
  if (params.developerId) query.set('developer', params.developerId)
  if (params.publisherId) query.set('publisher', params.publisherId)
  if (params.licenseType) query.set('licenseType', params.licenseType)
  if (state.q) query.set('q', state.q)
  if (state.platform !== 'all') query.set('platform', state.platform)
  if (state.mine) query.set('language', loaderLocale(context))
  // An unknown scope is a 404 from the scope's own endpoint, and that answer wins: the list
  // endpoint may refuse the same value with 400.
  const [scope, result] = await Promise.allSettled([
    loadScope(context, params, request.signal),
    apiGet<ProgramPage>(context, `/api/programs?${query.toString()}`, request.signal),
  ])
  if (scope.status === 'rejected') throw scope.reason
  if (result.status === 'rejected') throw result.reason
  // A page past the last one: a redirect, on the server (302) and in the browser alike.
  redirectPastLastPage(url, state, result.value)
  return { scope: scope.value, state, result: result.value }
}

function ScopeHeader({ scope, total }: { scope: Scope; total: number }) {
  const { t } = useTranslation(['catalogue', 'common'])
  const count = t('catalogue:results.count', { count: total })
  const signedIn = useLibrary() !== null
  switch (scope.kind) {
    case 'library':
      return (
        <header className="listing-header">
          <h1>{t(signedIn ? 'catalogue:programs.title' : 'catalogue:library.title')}</h1>
          <p>{t(signedIn ? 'catalogue:programs.lead' : 'catalogue:library.lead')}</p>
        </header>
      )
    case 'category':
      return (
        <header className="listing-header">
          <p className="listing-kicker">{t('catalogue:scope.category')}</p>
          <h1>{t(`common:categories.${scope.id}`)}</h1>
        </header>
      )
    case 'licenseType':
      return (
        <header className="listing-header">
          <p className="listing-kicker">{t('catalogue:scope.licenseType')}</p>
          <h1>{t(`catalogue:licenseTypes.${scope.id}`)}</h1>
          <p>{count}</p>
        </header>
      )
    default:
      return (
        <header className="listing-header">
          <p className="listing-kicker">{t(`catalogue:scope.${scope.kind}`)}</p>
          <h1>{scope.name}</h1>
          <p>
            {t('catalogue:organisation.programs', { count: scope.programCount })}
            {scope.website ? (
              <>
                {' · '}
                <a href={scope.website} rel="noopener noreferrer external" target="_blank">
                  {t('catalogue:organisation.website')}
                </a>
              </>
            ) : null}
          </p>
        </header>
      )
  }
}

/** `actions`: the signed-in twin's "Save this search", kept out of the visitor's code. */
export function Component({ actions }: { actions?: ReactNode } = {}) {
  const { scope, state, result } = useLoaderData() as ListingData
  const { t } = useTranslation(['catalogue', 'common'])
  const location = useLocation()
  const navigation = useNavigation()

  return (
    <main id="content" className="listing" aria-busy={navigation.state === 'loading'}>
      <ScopeHeader scope={scope} total={result.total} />

      <ListingFilters state={state} category={scope.kind !== 'category'} />
      {actions}

      <PriceTabs state={state} />

      {/* The count heads the results (cards are h3), and is announced when filters change it. */}
      <h2 className="listing-count" aria-live="polite">
        {t('catalogue:results.count', { count: result.total })}
      </h2>
      {result.items.length === 0 ? (
        <p className="listing-empty">
          {t('catalogue:results.none')} <Link to={location.pathname}>{t('catalogue:filters.clear')}</Link>
        </p>
      ) : (
        <ProgramGrid programs={result.items} />
      )}

      <Pagination state={state} result={result} />
      <CompareTray />
    </main>
  )
}
