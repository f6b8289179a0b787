import { lazy, memo, Suspense, type ComponentType, type ReactNode } from 'react'

/** A component rendered by the server at once and loaded by the browser only when it first renders. */
export interface DeferredComponent<P extends object = object> {
  (props: P): ReactNode
  /** The server's entry hands the component in (client/entry-server.tsx): its HTML is in the page. */
  provide(component: ComponentType<P>): void
  /** Loads the code now, so that the component hydrates with the page (client/entry-client.tsx). */
  preload(): Promise<void>
}

/**
 * A part of the page shell that is in the server's HTML but whose code stays out of every page's
 * initial JS (the first-load budget). The browser loads it when it first renders: during
 * hydration React keeps the server's HTML of its own Suspense boundary as it is and hydrates it
 * once the code is there, so nothing moves. Until then it does not answer clicks: what must work
 * as soon as the page does is preloaded before hydration instead. Memoised, so a re-render of the
 * layout around it does not reach the boundary while it waits (props are compared as React.memo
 * does).
 */
export function deferredComponent<P extends object = object>(load: () => Promise<ComponentType<P>>): DeferredComponent<P> {
  let provided: ComponentType<P> | null = null
  const Loaded = lazy(() => load().then((component) => ({ default: component })))
  const Deferred = memo(function Deferred(props: P) {
    const Component = (provided ?? Loaded) as ComponentType<P>
    return (
      <Suspense fallback={null}>
        <Component {...props} />
      </Suspense>
    )
  })
  return Object.assign((props: P) => <Deferred {...props} />, {
    provide(component: ComponentType<P>) {
      provided = component
    },
    async preload() {
      provided = await load()
    },
  })
}
