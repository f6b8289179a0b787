import { createContext, useCallback, useContext, useId, useMemo, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { WATCH_EVENTS, type WatchEvent } from '../../shared/catalogue/living.ts'
import type { Watch } from '../../shared/catalogue/living-schemas.ts'
import { apiResponse, apiSend, errorMessage } from '../lib/api.ts'
import { LibraryContext, type LibraryState } from '../lib/catalogue/library-state.ts'
import { showToast } from '../lib/notices/toasts.ts'

// Watching a program from the catalogue pages under /@ — a toggle on each card (every
// event) and, on the program page, the toggle with a small menu of the three events. The user's
// watches come from the page's loader (GET /api/user/watches, one call per page); a change is
// PUT /api/user/watches/{id} { events } or, with no event left, DELETE. Only the /@ pages load this
// module: it hands its controls to the cards and the program page through the library's state
// (client/lib/catalogue/library-state.ts), which it provides again with them.

interface WatchStore {
  /** The events of a watched program; empty when it is not watched. */
  events(id: string): readonly WatchEvent[]
  busy(id: string): boolean
  save(id: string, events: readonly WatchEvent[]): Promise<void>
}

const StoreContext = createContext<WatchStore | null>(null)

function byProgram(watches: readonly Watch[]): Map<string, readonly WatchEvent[]> {
  return new Map(watches.map((watch) => [watch.programId, watch.events]))
}

function withEvents(map: ReadonlyMap<string, readonly WatchEvent[]>, id: string, events: readonly WatchEvent[]): Map<string, readonly WatchEvent[]> {
  const next = new Map(map)
  if (events.length === 0) next.delete(id)
  else next.set(id, events)
  return next
}

/** The user's watches for the cards and the program page inside it (and inside a LibraryProvider). */
export function WatchProvider({ watches, children }: { watches: readonly Watch[]; children: ReactNode }) {
  const { t } = useTranslation('common')
  const library = useContext(LibraryContext)
  // The loader's list, with the page's own changes on top of it; a revalidated list (another
  // page's change, a program added to the library that watches it) starts again from itself.
  // Derived, not copied into state during render: a copy set while rendering a navigation's new
  // list kept React Router from committing it (the library's sort stayed where it was).
  const loaded = useMemo(() => byProgram(watches), [watches])
  const [changed, setChanged] = useState<{ from: readonly Watch[]; map: ReadonlyMap<string, readonly WatchEvent[]> } | null>(null)
  const watched = changed !== null && changed.from === watches ? changed.map : loaded
  // Adding to the library may watch the program too (the profile's "watch the programs I
  // add"): after an add, the watches are what the API now says. Asked here, not by revalidating
  // the page's loaders, which a navigation made at the same moment would lose.
  const toggle = useCallback(
    async (id: string) => {
      if (!library) return
      const adding = !library.has(id)
      await library.toggle(id)
      if (!adding) return
      const answer = await apiResponse(undefined, '/api/user/watches')
      if (answer.status === 200) setChanged({ from: watches, map: byProgram((answer.body as { items: Watch[] }).items) })
    },
    [library, watches],
  )
  const withControls = useMemo<LibraryState | null>(() => library && { ...library, toggle, WatchCard: WatchToggle, WatchPage: WatchControl }, [library, toggle])
  const [pending, setPending] = useState(() => new Set<string>())
  const save = useCallback(
    async (id: string, wanted: readonly WatchEvent[]) => {
      const events = WATCH_EVENTS.filter((event) => wanted.includes(event))
      const path = `/api/user/watches/${encodeURIComponent(id)}`
      // Shown at once (a checkbox ticks when clicked), and taken back if the API refuses it.
      const previous = watched.get(id) ?? []
      setChanged((current) => ({ from: watches, map: withEvents(current !== null && current.from === watches ? current.map : loaded, id, events) }))
      setPending((set) => new Set(set).add(id))
      const result = events.length === 0 ? await apiSend('DELETE', path) : await apiSend<Watch>('PUT', path, { events })
      setPending((set) => {
        const next = new Set(set)
        next.delete(id)
        return next
      })
      if (result.ok) return
      setChanged((current) => ({ from: watches, map: withEvents(current !== null && current.from === watches ? current.map : loaded, id, previous) }))
      showToast({ kind: 'error', title: result.status === 0 ? t('errors.errorApiRequest') : (errorMessage(result) ?? t('errors.occuredSomeError')) })
    },
    [t, watched, watches, loaded],
  )
  const store = useMemo<WatchStore>(() => ({ events: (id) => watched.get(id) ?? [], busy: (id) => pending.has(id), save }), [watched, pending, save])
  return (
    <StoreContext.Provider value={store}>
      <LibraryContext.Provider value={withControls}>{children}</LibraryContext.Provider>
    </StoreContext.Provider>
  )
}

function useStore(): WatchStore {
  const store = useContext(StoreContext)
  if (!store) throw new Error('a watch control outside WatchProvider')
  return store
}

/** Watch (every event) or stop watching; the button says which, and for what. A retired program has nothing more to tell. */
export function WatchToggle({ program }: { program: { id: string; name: string; retired?: boolean } }) {
  const { t } = useTranslation('catalogue')
  const store = useStore()
  const watching = store.events(program.id).length > 0
  if (program.retired && !watching) return null
  return (
    <button
      type="button"
      className={`button watch-toggle${watching ? ' button-secondary' : ''}`}
      aria-pressed={watching}
      disabled={store.busy(program.id)}
      onClick={() => void store.save(program.id, watching ? [] : WATCH_EVENTS)}
      aria-label={t(watching ? 'watch.stopNamed' : 'watch.watchNamed', { name: program.name })}
      data-testid="watch-toggle"
    >
      {t(watching ? 'watch.watching' : 'watch.watch')}
    </button>
  )
}

/** The program page's control: the toggle, and a menu of the events to hear of, each saved when ticked. */
export function WatchControl({ program }: { program: { id: string; name: string } }) {
  const { t } = useTranslation('catalogue')
  const store = useStore()
  const id = useId()
  const events = store.events(program.id)
  const busy = store.busy(program.id)
  return (
    <span className="watch-control">
      <WatchToggle program={program} />
      <details
        className="disclosure watch-menu"
        data-testid="watch-menu"
        onKeyDown={(event) => {
          // Escape closes the menu and gives the focus back to its button.
          if (event.key !== 'Escape' || !event.currentTarget.open) return
          event.currentTarget.open = false
          ;(event.currentTarget.firstElementChild as HTMLElement).focus()
        }}
      >
        <summary aria-label={t('watch.chooseNamed', { name: program.name })}>{t('watch.choose')}</summary>
        <fieldset className="watch-events">
          <legend>{t('watch.legend', { name: program.name })}</legend>
          {WATCH_EVENTS.map((event) => (
            <label key={event} htmlFor={`${id}-${event}`}>
              <input
                id={`${id}-${event}`}
                type="checkbox"
                name="events"
                value={event}
                checked={events.includes(event)}
                disabled={busy}
                onChange={(change) => void store.save(program.id, change.target.checked ? [...events, event] : events.filter((kept) => kept !== event))}
              />{' '}
              {t(`watch.events.${event}`)}
            </label>
          ))}
          <span className="hint">{t('watch.hint')}</span>
        </fieldset>
      </details>
    </span>
  )
}
