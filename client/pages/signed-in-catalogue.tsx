import { useLoaderData, type LoaderFunctionArgs } from 'react-router'
import type { ProgramDetail } from '../../shared/catalogue/program-schemas.ts'
import type { PurchaseView } from '../../shared/checkout.ts'
import type { Watch } from '../../shared/catalogue/living-schemas.ts'
import { WatchProvider } from '../components/watch-control.tsx'
import { apiGet } from '../lib/api.ts'
import { LibraryProvider } from '../lib/catalogue/library.tsx'
import * as listing from './catalogue-listing.tsx'
import * as program from './program.tsx'
import { PurchaseActions } from './checkout/purchase-actions.tsx'
import { SaveSearch } from '../components/save-search.tsx'

// The catalogue pages under /@ (/@/programs, /@/programs/{id}, /@/category/{id},
// /@/developer/{id}, /@/publisher/{id}, /@/license-type/{id}; client/lib/catalogue/twins.ts): the
// public pages' data plus which programs are in the user's library.

interface WithLibrary {
  libraryIds: string[]
  /** What the user owns, for the cards' "Owned". */
  ownedIds: string[]
  /** What the user watches, for the "Watch" controls. */
  watches: Watch[]
}

async function libraryIds(args: LoaderFunctionArgs): Promise<WithLibrary> {
  const [ids, watches] = await Promise.all([
    apiGet<{ programIds: string[]; ownedIds: string[] }>(args.context, '/api/user/program-ids', args.request.signal),
    apiGet<{ items: Watch[] }>(args.context, '/api/user/watches', args.request.signal),
  ])
  return { libraryIds: ids.programIds, ownedIds: ids.ownedIds, watches: watches.items }
}

export async function listingLoader(args: LoaderFunctionArgs): Promise<listing.ListingData & WithLibrary> {
  const [data, ids] = await Promise.all([listing.loader(args), libraryIds(args)])
  return { ...data, ...ids }
}

export async function programLoader(args: LoaderFunctionArgs) {
  const [data, ids, purchases] = await Promise.all([program.loader(args), libraryIds(args), apiGet<PurchaseView[]>(args.context, '/api/user/purchases', args.request.signal)])
  // The user's entitlement to this program, for Buy / Owned.
  return { ...data, ...ids, purchase: purchases.find((purchase) => purchase.programId === data.id) ?? null }
}

export function ListingComponent() {
  const { libraryIds: ids, ownedIds, watches } = useLoaderData() as WithLibrary
  return (
    <LibraryProvider ids={ids} ownedIds={ownedIds}>
      <WatchProvider watches={watches}>
        <listing.Component actions={<SaveSearch />} />
      </WatchProvider>
    </LibraryProvider>
  )
}

export function ProgramComponent() {
  const data = useLoaderData() as WithLibrary & ProgramDetail & { purchase: PurchaseView | null }
  // Keyed by program: moving to another program's page starts from its own library state.
  return (
    <LibraryProvider key={data.id} ids={data.libraryIds} ownedIds={data.ownedIds}>
      <WatchProvider watches={data.watches}>
        <program.Component purchase={<PurchaseActions key={`${data.id}:${data.purchase?.status ?? ''}`} program={data} purchase={data.purchase ?? undefined} />} />
      </WatchProvider>
    </LibraryProvider>
  )
}
