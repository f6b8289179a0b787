import type { NavigateFunction } from 'react-router'
import { nextAccountStep, readReturn, returnSearch, SIGNED_IN_HOME, type ReturnTarget } from '../../../shared/auth/return-path.ts'
import { apiResponse, apiSend } from '../api.ts'

/** History state of the target page: what was done for the visitor on the way (the program page says so). */
export interface ReturnState {
  added?: string
}

/**
 * After an account step the user has just finished here (a form they sent, a link they confirmed):
 * on to `target` — through the steps still owed first (second factor, email,
 * terms, in the route guard's order), each carrying the target, and once none is, its pending
 * action, then the page, which is told. Only the account pages run an action, after the person's
 * own submit: opening the target never does (SECURITY.md, "No GET changes state"). The route guard
 * in the browser sends on without a target (every page's bundle stays small); on a page load the
 * BFF adds it (server/bff/plugins/ssr.ts).
 */
export async function continueTo(navigate: NavigateFunction, target: ReturnTarget | null): Promise<void> {
  if (!target) {
    await navigate(SIGNED_IN_HOME, { replace: true })
    return
  }
  const user = await apiResponse(undefined, '/api/user')
  const step = nextAccountStep(user.status, user.body)
  if (step !== 'ready' && step !== 'unknown') {
    await navigate(`${step}${returnSearch(target)}`, { replace: true })
    return
  }
  let state: ReturnState | undefined
  if (step === 'ready' && target.action) {
    const added = await apiSend('POST', `/api/user/program/${encodeURIComponent(target.action.programId)}`)
    if (added.ok) state = { added: target.action.programId }
  }
  await navigate(target.path, { replace: true, state })
}

/** Where an external sign-in goes once back (session storage: this tab, this origin, survives the provider's pages). */
const EXTERNAL_RETURN_KEY = 'softshelf.externalReturn'

export function rememberExternalReturn(search: string): void {
  try {
    if (search) sessionStorage.setItem(EXTERNAL_RETURN_KEY, search)
    else sessionStorage.removeItem(EXTERNAL_RETURN_KEY)
  } catch {
    // Storage off: the sign-in lands on the signed-in home.
  }
}

/** The target remembered for this tab's external sign-in, read once. */
export function takeExternalReturn(): ReturnTarget | null {
  try {
    const search = sessionStorage.getItem(EXTERNAL_RETURN_KEY)
    sessionStorage.removeItem(EXTERNAL_RETURN_KEY)
    return search ? readReturn(search) : null
  } catch {
    return null
  }
}

/**
 * Options for an SDK call after which the BFF mails a link (the verification on sign-up and on
 * "send again", the password reset): the target rides along in the call's query, and the BFF puts
 * it into the link, so it survives the link being opened in another browser.
 */
export function carryReturn(target: ReturnTarget | null): { preAPIHook: (context: { url: string; requestInit: RequestInit }) => Promise<{ url: string; requestInit: RequestInit }> } | undefined {
  const search = returnSearch(target)
  if (!search) return undefined
  return { preAPIHook: async (context) => ({ ...context, url: `${context.url}${context.url.includes('?') ? '&' : '?'}${search.slice(1)}` }) }
}
