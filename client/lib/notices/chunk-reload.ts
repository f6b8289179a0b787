import { CHUNK_RELOAD_MIN_INTERVAL_MS, CHUNK_RELOAD_STORAGE_KEY } from '../../../shared/constants.ts'

// After a deploy, an open tab may ask for code chunks that no longer exist. The page reloads to
// get the new build, at most once per 10 s (spec §4, §9) so a real outage cannot loop.

const CHUNK_ERROR = /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i

export function isChunkLoadError(error: unknown): boolean {
  return error instanceof Error && CHUNK_ERROR.test(error.message)
}

/** Reloads unless a reload happened less than 10 s ago; returns whether it reloads. */
export function reloadAfterChunkError(now = Date.now()): boolean {
  let last = 0
  try {
    last = Number(sessionStorage.getItem(CHUNK_RELOAD_STORAGE_KEY) ?? 0)
  } catch {
    last = 0
  }
  if (now - last < CHUNK_RELOAD_MIN_INTERVAL_MS) return false
  try {
    sessionStorage.setItem(CHUNK_RELOAD_STORAGE_KEY, String(now))
  } catch {
    // Without storage the guard is per page load only.
  }
  window.location.reload()
  return true
}
