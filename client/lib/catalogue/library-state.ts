import { createContext, useContext } from 'react'

// What the catalogue pages read of the signed-in user's library, apart from the provider that
// changes it (client/lib/library.tsx): the public pages' cards and program page ask "is there a
// library?" and ship this alone, not the code that adds and removes, which only /@ pages use.

export interface LibraryState {
  has(id: string): boolean
  busy(id: string): boolean
  toggle(id: string): Promise<void>
}

export const LibraryContext = createContext<LibraryState | null>(null)

/** The library under /@; null on the public pages. */
export function useLibrary(): LibraryState | null {
  return useContext(LibraryContext)
}
