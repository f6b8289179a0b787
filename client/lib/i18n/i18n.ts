import i18next, { type BackendModule, type i18n as I18n } from 'i18next'
import { initReactI18next } from 'react-i18next'
import type { Locale } from '../../../shared/locales.ts'
import type { NamespaceResources } from '../../../shared/web/ssr-contract.ts'

/**
 * One i18next instance: per request on the server, one per tab in the browser. The resources of
 * the page's namespaces are given; in the browser more are fetched from the hashed locale path.
 * English fills missing keys on the server before resources are sent, so no fallback is loaded.
 */
export function createI18n(options: {
  locale: Locale
  resources: NamespaceResources
  namespaces: string[]
  localesHash?: string
}): I18n {
  const instance = i18next.createInstance()
  if (options.localesHash) instance.use(fetchBackend(options.localesHash))
  instance.use(initReactI18next)
  void instance.init({
    lng: options.locale,
    fallbackLng: false,
    supportedLngs: false,
    ns: options.namespaces,
    defaultNS: 'common',
    resources: { [options.locale]: options.resources },
    partialBundledLanguages: true,
    initAsync: false,
    interpolation: { escapeValue: false },
    react: { useSuspense: false },
    returnNull: false,
  })
  return instance
}

function fetchBackend(hash: string): BackendModule {
  return {
    type: 'backend',
    init() {},
    read(language, namespace, callback) {
      fetch(`/locales/${hash}/${encodeURIComponent(language)}/${encodeURIComponent(namespace)}.json`, {
        headers: { accept: 'application/json' },
      })
        .then(async (response) => {
          if (!response.ok) throw new Error(`locale ${language}/${namespace}: HTTP ${response.status}`)
          callback(null, (await response.json()) as Record<string, unknown>)
        })
        .catch((error: unknown) => callback(error as Error, false))
    },
  }
}

