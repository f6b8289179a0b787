import type { TFunction } from 'i18next'
import { lazy, Suspense, useSyncExternalStore } from 'react'

// The "Compare" choice of program cards and the program page, and the tray of the
// programs chosen. Both need the page's script — the list lives in the browser (localStorage) —
// so the server's HTML has neither, a page without scripts works as before (a comparison is still
// a link anyone can open), and their code (compare-controls.tsx) loads after hydration, outside
// the page's first JavaScript (the first-load budget, 110 kB).

const Control = lazy(() => import('./compare-controls.tsx'))

const subscribe = () => () => undefined

function Lazily(props: { program?: { id: string; name: string }; t?: TFunction<'catalogue'> }) {
  // False in the server's HTML and while hydrating, true once the page's script runs.
  const scripted = useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  )
  return scripted ? (
    <Suspense fallback={null}>
      <Control {...props} />
    </Suspense>
  ) : null
}

export function CompareToggle(props: { program: { id: string; name: string }; t: TFunction<'catalogue'> }) {
  return <Lazily {...props} />
}

export function CompareTray() {
  return <Lazily />
}
