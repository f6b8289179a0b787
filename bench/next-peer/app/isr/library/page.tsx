import { LibraryPage, libraryMetadata } from '../../../lib/pages'

// The cached path: ISR, regenerated at most once a second.
export const revalidate = 1
export const metadata = libraryMetadata()

export default function Page() {
  return <LibraryPage />
}
