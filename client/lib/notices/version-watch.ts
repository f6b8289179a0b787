import type { VersionResponse } from '../../../shared/types.ts'

// Spec §4 "Maintenance notice" and "Version notice", as a pure step so it can be tested alone.

export interface VersionWatchState {
  /** The first version this tab saw. */
  firstVersion: string | null
  /** Whether the new-version notice was already shown (it is shown once per tab). */
  versionNoticeShown: boolean
}

export interface VersionWatchStep {
  state: VersionWatchState
  /** undefined: leave storage alone; null: clear it; a string: store this ISO time. */
  storeMaintenance: string | null | undefined
  /** An ISO time to announce in a persistent error notice. */
  announceMaintenance: string | null
  announceNewVersion: boolean
}

function sameInstant(a: string, b: string): boolean {
  const ta = Date.parse(a)
  const tb = Date.parse(b)
  return Number.isNaN(ta) || Number.isNaN(tb) ? a === b : ta === tb
}

export function versionWatchStep(state: VersionWatchState, response: VersionResponse, storedMaintenance: string | null): VersionWatchStep {
  let storeMaintenance: string | null | undefined
  let announceMaintenance: string | null = null
  const time = response.maintenanceTime
  if (time) {
    if (storedMaintenance === null || !sameInstant(storedMaintenance, time)) {
      const iso = Number.isNaN(Date.parse(time)) ? time : new Date(time).toISOString()
      storeMaintenance = iso
      announceMaintenance = iso
    }
  } else if (storedMaintenance !== null) {
    storeMaintenance = null
  }

  let announceNewVersion = false
  let next = state
  if (state.firstVersion === null) {
    next = { ...state, firstVersion: response.version }
  } else if (response.version !== state.firstVersion && !state.versionNoticeShown) {
    announceNewVersion = true
    next = { ...state, versionNoticeShown: true }
  }
  return { state: next, storeMaintenance, announceMaintenance, announceNewVersion }
}
