import { useState, type Dispatch, type SetStateAction } from 'react'
import { data, useActionData, type ActionFunctionArgs } from 'react-router'
import type { FormOutcome } from '../../../shared/auth-forms.ts'

/**
 * The outcome an account page shows: a form sent before the page's script ran was answered by the
 * BFF, which renders the page with it as the route's action data (decision 025); after that, the
 * page's own submit sets it.
 */
export function useFormOutcome(): [FormOutcome | undefined, Dispatch<SetStateAction<FormOutcome | undefined>>] {
  const fromServer = useActionData() as FormOutcome | null | undefined
  return useState<FormOutcome | undefined>(fromServer ?? undefined)
}

/**
 * The route action of an account page whose form works before the page's script runs: on the
 * server, the outcome the BFF has just made of the form (requestContext.form, decision 025). In
 * the browser the pages send their forms with the SDK and never call it.
 */
export function formOutcomeAction({ context }: ActionFunctionArgs) {
  const form = (context as { form?: { outcome: unknown; status: number } } | undefined)?.form
  return data(form?.outcome ?? null, { status: form?.status ?? 200 })
}
