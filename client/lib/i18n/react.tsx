import { createContext, useContext, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react'
import type { BrowserI18n, TFunction } from './browser.ts'

/**
 * What the browser's pages import as `react-i18next` (decision 031): vite.config.ts
 * resolves that name here for the browser only, so the components keep their imports and the
 * server keeps rendering with react-i18next and i18next. The parts of react-i18next the app uses,
 * the way it behaves with `useSuspense: false`: `useTranslation(ns)` gives `t` for the first of the
 * namespaces in the tab's language (`ns:key` reaches the others) — a new one when the language
 * changes, which re-renders the component — with the instance and `ready`, both as an array and as
 * properties; a namespace the tab lacks is fetched after the render, which then runs again.
 */

const I18nContext = createContext<BrowserI18n | null>(null)

export function I18nextProvider({ i18n, children }: { i18n: BrowserI18n; children?: ReactNode }) {
  return <I18nContext.Provider value={i18n}>{children}</I18nContext.Provider>
}

type UseTranslation = [TFunction, BrowserI18n, boolean] & { t: TFunction; i18n: BrowserI18n; ready: boolean }

export function useTranslation(ns?: string | readonly string[]): UseTranslation {
  const i18n = useContext(I18nContext)
  if (!i18n) throw new Error('useTranslation needs an I18nextProvider above it')
  const namespaces = typeof ns === 'string' ? [ns] : ns && ns.length > 0 ? ns : [i18n.options.defaultNS]
  const names = namespaces.join(' ')
  const language = useSyncExternalStore(
    (changed) => {
      i18n.on('languageChanged', changed)
      return () => i18n.off('languageChanged', changed)
    },
    () => i18n.language,
    () => i18n.language,
  )
  // After a load the component renders again; one that failed is not asked for again by it.
  const [, setLoads] = useState(0)
  const ready = namespaces.every((n) => i18n.hasLoadedNamespace(n))
  useEffect(() => {
    if (!ready) void i18n.loadNamespaces(names.split(' ')).then(() => setLoads((n) => n + 1))
  }, [i18n, names, ready])
  return useMemo(() => {
    const t = i18n.getFixedT(language, names.split(' ')[0])
    return Object.assign([t, i18n, ready] as [TFunction, BrowserI18n, boolean], { t, i18n, ready })
  }, [i18n, language, names, ready])
}
