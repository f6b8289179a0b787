import type { UtmRecord } from '../../../shared/auth/sign-up.ts'

// Spec §3 "UTM record (stored locally)": where a visitor came from, captured on the page they
// landed on and sent with sign-up and external sign-in. A later landing with campaign parameters
// replaces it; plain visits keep the first one.

export const UTM_STORAGE_KEY = 'utm'
const SESSION_ID_KEY = 'utmSessionId'
const UTM_PARAMS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const
const GCLID_PARAMS = ['gclid', 'gad_source'] as const

function pick<K extends string>(search: URLSearchParams, names: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {}
  for (const name of names) {
    const value = search.get(name)
    if (value) out[name] = value.slice(0, 2048)
  }
  return out
}

function sessionId(): string {
  try {
    let id = sessionStorage.getItem(SESSION_ID_KEY)
    if (!id) sessionStorage.setItem(SESSION_ID_KEY, (id = crypto.randomUUID()))
    return id
  } catch {
    return crypto.randomUUID()
  }
}

/** Called once per page load in the browser. Storage that is off or full loses only the record. */
export function captureUtm(): void {
  try {
    const search = new URLSearchParams(window.location.search)
    const utmParams = pick(search, UTM_PARAMS)
    const gclidParams = pick(search, GCLID_PARAMS)
    const hasCampaign = Object.keys(utmParams).length > 0 || Object.keys(gclidParams).length > 0
    if (!hasCampaign && localStorage.getItem(UTM_STORAGE_KEY)) return
    const record: UtmRecord = {
      timestamp: Date.now(),
      utmParams,
      gclidParams,
      additionalInfo: {
        referrer: document.referrer.slice(0, 2048),
        userAgent: navigator.userAgent.slice(0, 2048),
        language: navigator.language,
        landingPageUrl: window.location.href.slice(0, 2048),
        screenWidth: window.screen.width,
        screenHeight: window.screen.height,
      },
      sessionId: sessionId(),
    }
    localStorage.setItem(UTM_STORAGE_KEY, JSON.stringify(record))
  } catch {
    // Private mode or storage disabled: sign-up works without the record.
  }
}

export function readUtm(): UtmRecord | undefined {
  try {
    const raw = localStorage.getItem(UTM_STORAGE_KEY)
    return raw ? (JSON.parse(raw) as UtmRecord) : undefined
  } catch {
    return undefined
  }
}
