import { createContext, useContext, type ComponentType } from 'react'

// What a catalogue page reads of the signed-in user's library, apart from the provider that keeps
// it (client/lib/catalogue/library.tsx, used by /@ pages only): the public pages' cards and program page
// load this much and no more (public JS budget).

export interface LibraryState {
  has(id: string): boolean
  busy(id: string): boolean
  toggle(id: string): Promise<void>
  /** Bought, or subscribed to with the paid period running (the cards' "Owned"). */
  owns(id: string): boolean
  /**
   * The "Watch" controls of a card and of the program page, where the page has the user's
   * watches (client/components/watch-control.tsx fills them in): the public pages carry no code of theirs.
   */
  WatchCard?: ComponentType<{ program: { id: string; name: string; retired?: boolean } }>
  WatchPage?: ComponentType<{ program: { id: string; name: string } }>
}

export const LibraryContext = createContext<LibraryState | null>(null)

/** The library under /@; null on the public pages. */
export function useLibrary(): LibraryState | null {
  return useContext(LibraryContext)
}
