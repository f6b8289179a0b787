import type { i18n as I18n, TFunction } from 'i18next'
import { MAINTENANCE_STORAGE_KEY, VERSION_POLL_INTERVAL_MS } from '../../../shared/constants.ts'
import type { VersionResponse } from '../../../shared/types.ts'
import { showPersistentNotice } from './toasts.ts'
import { versionWatchStep, type VersionWatchState } from './version-watch.ts'

// The version and maintenance polling of spec §4 and §9. use-version-polling.ts starts it once
// the app has mounted, so none of this weighs on a page's first JS (the first poll comes after
// the mount anyway), as the chat widget's code does not.

function readStored(): string | null {
  try {
    return sessionStorage.getItem(MAINTENANCE_STORAGE_KEY)
  } catch {
    return null
  }
}

function writeStored(value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(MAINTENANCE_STORAGE_KEY)
    else sessionStorage.setItem(MAINTENANCE_STORAGE_KEY, value)
  } catch {
    // Storage can be disabled; the notice still shows, it just may show again after a reload.
  }
}

/** Polls now and every 6 s until the returned function is called; `state` outlives one run (the tab's first version). */
export function startVersionPolling(state: { current: VersionWatchState }, t: TFunction, i18n: Pick<I18n, 'language'>): () => void {
  let cancelled = false
  const poll = async (): Promise<void> => {
    let body: VersionResponse
    try {
      const response = await fetch('/api/version', { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      body = (await response.json()) as VersionResponse
    } catch (error) {
      // Spec §7: a failed poll yields no data and is only logged.
      console.warn('version check failed', error)
      return
    }
    if (cancelled) return
    const step = versionWatchStep(state.current, body, readStored())
    state.current = step.state
    if (step.storeMaintenance !== undefined) writeStored(step.storeMaintenance)
    if (step.announceMaintenance) {
      const time = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'full', timeStyle: 'short' }).format(new Date(step.announceMaintenance))
      showPersistentNotice({ kind: 'error', title: t('maintenanceMode.title'), description: t('maintenanceMode.description', { time }) })
    }
    if (step.announceNewVersion) {
      // The notice offers what it asks for; a full load fetches the new build's page and code.
      showPersistentNotice({
        kind: 'success',
        title: t('appVersion.title'),
        description: t('appVersion.description'),
        action: { label: t('appVersion.reload'), run: () => window.location.reload() },
      })
    }
  }
  void poll()
  const timer = setInterval(() => void poll(), VERSION_POLL_INTERVAL_MS)
  return () => {
    cancelled = true
    clearInterval(timer)
  }
}
