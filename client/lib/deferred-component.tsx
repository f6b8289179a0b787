import { lazy, memo, Suspense, type ComponentType, type ReactNode } from 'react'

/** A component rendered by the server at once and loaded by the browser only when it first renders. */
export interface DeferredComponent {
  (): ReactNode
  /** The server's entry hands the component in (client/entry-server.tsx): its HTML is in the page. */
  provide(component: ComponentType): void
  /** Loads the code now, so that the component hydrates with the page (client/entry-client.tsx). */
  preload(): Promise<void>
}

/**
 * A part of the page shell that is in the server's HTML but whose code stays out of every page's
 * initial JS (issue 3, the 130 kB budget). The browser loads it when it first renders: during
 * hydration React keeps the server's HTML of its own Suspense boundary as it is and hydrates it
 * once the code is there, so nothing moves. Until then it does not answer clicks: what must work
 * as soon as the page does is preloaded before hydration instead. Memoised, so a re-render of the
 * layout around it does not reach the boundary while it waits. Without props: what it shows comes
 * from context.
 */
export function deferredComponent(load: () => Promise<ComponentType>): DeferredComponent {
  let provided: ComponentType | null = null
  const Loaded = lazy(() => load().then((component) => ({ default: component })))
  const Deferred = memo(function Deferred() {
    const Component = provided ?? Loaded
    return (
      <Suspense fallback={null}>
        <Component />
      </Suspense>
    )
  })
  return Object.assign(() => <Deferred />, {
    provide(component: ComponentType) {
      provided = component
    },
    async preload() {
      provided = await load()
    },
  })
}
