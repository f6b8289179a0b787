// The query that carries a return target from one account page to the next (shared/return-path.ts
// reads and checks it). Kept apart and small: the route guard, in every page's bundle, builds it.

export const RETURN_PARAM = 'redirectToPath'

/** Spec §2: the home after login. */
export const SIGNED_IN_HOME = '/@'

/** What to do once signed in; only adding the program of the target page exists. */
export interface PendingAdd {
  kind: 'add'
  programId: string
}

export interface ReturnTarget {
  /** A same-origin path, with its query. */
  path: string
  action?: PendingAdd
}

/** The query that carries a target path (without action) on: empty for the signed-in home. */
export function returnQuery(path: string): string {
  return path === SIGNED_IN_HOME || path === `${SIGNED_IN_HOME}/library` ? '' : `?${RETURN_PARAM}=${encodeURIComponent(path)}`
}
