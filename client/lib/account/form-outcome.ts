import { useState, type Dispatch, type SetStateAction } from 'react'
import { data, useActionData, useLocation, type ActionFunctionArgs } from 'react-router'
import type { FormOutcome } from '../../../shared/auth/forms.ts'
import { readReturn } from '../../../shared/auth/return-path.ts'
import type { RenderInput } from '../../../shared/web/ssr-contract.ts'
import { problemOfFailure } from './auth-errors.ts'

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
 * What an account form's page shares: where it leads (?redirectToPath=), the outcome it shows, and
 * `send`, which runs one submit — busy meanwhile, the last outcome cleared first, then the outcome
 * `work` returns (none when it has moved on), or, when the SDK call throws, its problem with the
 * form's `values` to show again.
 */
export function useAccountForm() {
  const target = readReturn(useLocation().search)
  const [outcome, setOutcome] = useFormOutcome()
  const [busy, setBusy] = useState(false)
  const send = async (values: FormOutcome['values'], work: () => Promise<FormOutcome | undefined>): Promise<void> => {
    setBusy(true)
    setOutcome(undefined)
    try {
      const next = await work()
      if (next) setOutcome(next)
    } catch (failure) {
      const problem = await problemOfFailure(failure)
      setOutcome(values ? { problem, values } : { problem })
    } finally {
      setBusy(false)
    }
  }
  return { target, outcome, setOutcome, busy, send }
}

/**
 * The route action of an account page whose form works before the page's script runs: on the
 * server, the outcome the BFF has just made of the form (requestContext.form, decision 025). In
 * the browser the pages send their forms with the SDK and never call it.
 */
export function formOutcomeAction({ context }: ActionFunctionArgs) {
  const form = (context as Pick<RenderInput, 'form'> | undefined)?.form
  return data(form?.outcome ?? null, { status: form?.status ?? 200 })
}
