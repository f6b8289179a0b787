import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { data, useActionData, useNavigation, useSubmit } from 'react-router'
import type { ErrorBody } from '../../shared/types.ts'
import { apiSend, type ApiResult, type LoaderContext } from './api.ts'

// A page's writes go through its route action, React Router's one place for a write and its
// outcome: a form (or the page's own submit) posts the fields with an `intent`, the action makes the
// API call and returns what happened as data, and the router loads the page's data again before
// the page says so. The page turns the outcome into words; the action never does.

/** Why a write did not happen: the API's answer, or status 0 when none came. */
export interface WriteFailure {
  status: number
  code?: string
  message?: string
}

export function failureOf(result: ApiResult<unknown>): WriteFailure {
  const body = result.body as Partial<ErrorBody> | null
  return {
    status: result.status,
    ...(typeof body?.code === 'string' ? { code: body.code } : {}),
    ...(typeof body?.message === 'string' ? { message: body.message } : {}),
  }
}

/** The failure of one call, or nothing when it went through (spread into an outcome). */
export function failed(result: ApiResult<unknown>): { failure?: WriteFailure } {
  return result.ok ? {} : { failure: failureOf(result) }
}

/**
 * An outcome with its HTTP status: a refused write is the server's 4xx or 5xx (502 when no answer
 * came), `refusedHere` a 400 the action decided itself — what the page rendered for a form sent
 * before its script ran says; the page shows the outcome either way.
 */
export function withStatus<Outcome extends { failure?: WriteFailure }>(outcome: Outcome, refusedHere = false) {
  const status = outcome.failure ? (outcome.failure.status >= 400 ? outcome.failure.status : 502) : refusedHere ? 400 : 200
  return data(outcome, { status })
}

/**
 * A route action's call: in the browser the page's own fetch; on the server, for a form sent before
 * the page's script ran, the BFF's transport (the same routes, the visitor's session).
 */
export async function apiWrite<T>(context: unknown, method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<ApiResult<T>> {
  const send = (context as LoaderContext | undefined)?.api?.send
  if (!send) return apiSend<T>(method, path, body)
  const answer = await send(method, path, body ?? {})
  return { ok: answer.status >= 200 && answer.status < 300, status: answer.status, body: answer.body as T }
}

/** A failure in words: no answer, the API's own message, or the product's generic one. */
export function useFailureText(): (failure: WriteFailure) => string {
  const { t } = useTranslation('common')
  return (failure) => (failure.status === 0 ? t('errors.errorApiRequest') : (failure.message ?? t('errors.occuredSomeError')))
}

/** The fields a route action was sent, and its intent; a post without one of `intents` is a 400. */
export async function readWrite<Intent extends string>(request: Request, intents: readonly Intent[]): Promise<{ intent: Intent; form: FormData }> {
  const form = await request.formData()
  const intent = form.get('intent')
  if (typeof intent !== 'string' || !(intents as readonly string[]).includes(intent)) throw data({ message: 'Unknown form.' }, { status: 400 })
  return { intent: intent as Intent, form }
}

/** A text field of a write's form ('' when absent or a file). */
export function textField(form: FormData, name: string): string {
  const value = form.get(name)
  return typeof value === 'string' ? value : ''
}

export type WriteFields = Record<string, string | readonly string[] | Blob | undefined>

/**
 * A write through the route's action: `submit` posts `fields` to the page's own route (the address
 * stays; no history entry, no scroll), `busy` holds from the post until the page's data is loaded
 * again, and `onOutcome` runs once per answer, with the page already showing what the write
 * changed. One write at a time: a new one while one runs would cancel the first's answer, so the
 * page disables what starts one while `busy`. (A navigation's submission, not a fetcher: the pages'
 * shared router code already holds it, and a fetcher costs every public page 0.3 kB more.)
 * `initial` is the answer the page was rendered with: a form sent before the script ran, its
 * action run by the server; a section shows it from its first render, on the server too.
 */
export function useRouteWrite<Outcome>(onOutcome: (outcome: Outcome) => void) {
  const send = useSubmit()
  const navigation = useNavigation()
  const answer = useActionData() as Outcome | undefined
  // An answer already there when the component mounts is `initial`, not news (or another's: a dialog opened again).
  const [initial] = useState(answer)
  const handled = useRef<Outcome | undefined>(answer)
  const handler = useRef(onOutcome)
  handler.current = onOutcome
  useEffect(() => {
    if (navigation.state !== 'idle' || answer === undefined || answer === handled.current) return
    handled.current = answer
    handler.current(answer)
  }, [navigation.state, answer])
  const submit = (fields: WriteFields) => {
    const form = new FormData()
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue
      if (typeof value === 'string' || value instanceof Blob) form.append(name, value)
      else for (const each of value) form.append(name, each)
    }
    const multipart = Object.values(fields).some((value) => value instanceof Blob)
    return send(form, { method: 'post', replace: true, preventScrollReset: true, ...(multipart ? { encType: 'multipart/form-data' } : {}) })
  }
  return { submit, busy: navigation.formData !== undefined, initial }
}
