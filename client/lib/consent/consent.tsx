import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { consentCookie, type AnalyticsConsent } from '../../../shared/consent.ts'
import { useClientConfig } from '../client-config.tsx'

// The visitor's analytics choice and the one script it governs: the tag manager
// (TAG_MANAGER_SCRIPT_URL) loads only after the visitor accepts, once per page load; declining
// loads nothing. The choice lives in the `consent` cookie (shared/consent.ts), which the server
// reads too, so a page never flashes the banner at someone who has chosen.

export interface ConsentState {
  /** null: not chosen yet. */
  choice: AnalyticsConsent | null
  /** Whether anything asks for consent: a tag manager is configured. */
  asked: boolean
  choose(choice: AnalyticsConsent): void
}

const ConsentContext = createContext<ConsentState | null>(null)

let tagManagerLoaded = false

/** Adds the tag manager's script to this document, once; a failure is only logged. */
function loadTagManager(url: string): void {
  if (tagManagerLoaded) return
  tagManagerLoaded = true
  // The start event Google Tag Manager's own snippet pushes; other tag managers ignore it.
  const page = window as unknown as { dataLayer?: unknown[] }
  ;(page.dataLayer ??= []).push({ 'gtm.start': Date.now(), event: 'gtm.js' })
  const script = document.createElement('script')
  script.src = url
  script.async = true
  script.addEventListener('error', () => console.warn('[softshelf] the tag manager script did not load'))
  document.head.append(script)
}

/** `initial`: the choice the server rendered with (its cookie) — the browser reads the same cookie. */
export function ConsentProvider({ initial, children }: { initial: AnalyticsConsent | null; children: ReactNode }) {
  const url = useClientConfig().support.tagManagerScriptUrl
  const [choice, setChoice] = useState(initial)
  useEffect(() => {
    if (url && choice === 'granted') loadTagManager(url)
  }, [url, choice])
  const choose = useCallback((next: AnalyticsConsent) => {
    document.cookie = consentCookie(next, window.location.protocol === 'https:')
    // A script that runs cannot be unloaded: withdrawing consent starts the page afresh without it.
    if (next === 'denied' && tagManagerLoaded) {
      window.location.reload()
      return
    }
    setChoice(next)
  }, [])
  const value = useMemo(() => ({ choice, asked: url !== null, choose }), [choice, url, choose])
  return <ConsentContext.Provider value={value}>{children}</ConsentContext.Provider>
}

export function useConsent(): ConsentState {
  const state = useContext(ConsentContext)
  if (!state) throw new Error('useConsent outside ConsentProvider')
  return state
}
