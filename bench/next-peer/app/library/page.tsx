import { LibraryPage, libraryMetadata } from '../../lib/pages'

// The rendered path: every request renders.
export const dynamic = 'force-dynamic'
export const metadata = libraryMetadata()

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const page = Number((await searchParams).page ?? 1)
  return <LibraryPage page={Number.isInteger(page) && page > 0 ? page : 1} />
}
