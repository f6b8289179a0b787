import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useNavigation, useRevalidator, type LoaderFunctionArgs } from 'react-router'
import type { ProgramDetail } from '../../../shared/catalogue/program-schemas.ts'
import type { CheckoutResult, CheckoutStatus } from '../../../shared/checkout.ts'
import type { ErrorBody } from '../../../shared/types.ts'
import { apiResponse } from '../../lib/api.ts'

// Where Stripe's hosted page returns to (spec §2: /stripe/success and /stripe/cancel,
// protected). The success page asks the API what became of the session — the API checks it with
// Stripe, against this user, and grants a paid one — and says so honestly: paid, still
// processing, not completed, expired, or unknown.

type Outcome = CheckoutStatus | 'notFound' | 'unavailable' | 'notConfigured'

interface ReturnData {
  outcome: Outcome
  program: ProgramRef | null
}

interface ProgramRef {
  id: string
  name: string
  /** Sold as a subscription (a monthly or yearly price). */
  subscription: boolean
}

async function programOf(context: unknown, id: string | null, signal: AbortSignal): Promise<ProgramRef | null> {
  if (!id || !/^[a-z0-9-]{1,100}$/.test(id)) return null
  const answer = await apiResponse(context, `/api/programs/${encodeURIComponent(id)}`, signal)
  const program = answer.body as Partial<ProgramDetail> | null
  if (answer.status !== 200 || typeof program?.name !== 'string') return null
  return { id, name: program.name, subscription: program.price?.period === 'month' || program.price?.period === 'year' }
}

export async function successLoader({ request, context }: LoaderFunctionArgs): Promise<ReturnData> {
  const sessionId = new URL(request.url).searchParams.get('session_id') ?? ''
  if (sessionId === '') return { outcome: 'notFound', program: null }
  const answer = await apiResponse(context, `/api/user/checkout/${encodeURIComponent(sessionId)}`, request.signal)
  if (answer.status === 404 || answer.status === 400) return { outcome: 'notFound', program: null }
  // A server without card payments says so once; asking again would change nothing.
  if ((answer.body as ErrorBody | null)?.code === 'CHECKOUT_NOT_CONFIGURED') return { outcome: 'notConfigured', program: null }
  if (answer.status !== 200) return { outcome: 'unavailable', program: null }
  const result = answer.body as CheckoutResult
  return { outcome: result.status, program: await programOf(context, result.programId, request.signal) }
}

export async function cancelLoader({ request, context }: LoaderFunctionArgs): Promise<ReturnData> {
  return { outcome: 'open', program: await programOf(context, new URL(request.url).searchParams.get('program'), request.signal) }
}

const TITLES = {
  paid: 'success.paidTitle',
  pending: 'success.pendingTitle',
  open: 'success.openTitle',
  expired: 'success.expiredTitle',
  refunded: 'success.refundedTitle',
  ended: 'success.endedTitle',
  notFound: 'success.notFoundTitle',
  unavailable: 'success.unavailableTitle',
  notConfigured: 'success.notConfiguredTitle',
} as const

export function SuccessPage() {
  const { outcome, program } = useLoaderData() as ReturnData
  const { t } = useTranslation('checkout')
  const revalidator = useRevalidator()
  const navigation = useNavigation()
  const name = program?.name ?? ''
  const text: Record<Outcome, string> = {
    paid: program?.subscription ? t('success.paidSubscription', { name }) : t('success.paid', { name }),
    pending: t('success.pending', { name }),
    open: t('success.open', { name }),
    expired: t('success.expired', { name }),
    refunded: t('success.refunded', { name }),
    ended: t('success.ended', { name }),
    notFound: t('success.notFound'),
    unavailable: t('success.unavailable'),
    notConfigured: t('success.notConfigured'),
  }
  const good = outcome === 'paid'
  return (
    <main id="content" className="checkout-return" aria-busy={revalidator.state === 'loading' || navigation.state === 'loading'}>
      <div className={`card checkout-return-card ${good ? 'checkout-return-paid' : ''}`} data-testid="checkout-outcome" data-outcome={outcome}>
        <h1>{t(TITLES[outcome])}</h1>
        <p>{text[outcome]}</p>
        <p className="checkout-return-actions">
          {outcome === 'pending' || outcome === 'unavailable' ? (
            <button type="button" className="button" disabled={revalidator.state === 'loading'} onClick={() => void revalidator.revalidate()}>
              {t('success.check')}
            </button>
          ) : null}
          <Link className={`button ${good ? '' : 'button-secondary'}`} to="/@/library">
            {t('success.library')}
          </Link>
          {program ? (
            <Link className="button button-secondary" to={`/@/programs/${program.id}`}>
              {t('success.program', { name: program.name })}
            </Link>
          ) : (
            <Link className="button button-secondary" to="/@/programs">
              {t('success.browse')}
            </Link>
          )}
        </p>
      </div>
    </main>
  )
}

export function CancelPage() {
  const { program } = useLoaderData() as ReturnData
  const { t } = useTranslation('checkout')
  return (
    <main id="content" className="checkout-return">
      <div className="card checkout-return-card" data-testid="checkout-cancelled">
        <h1>{t('cancel.title')}</h1>
        <p>{program ? t('cancel.lead', { name: program.name }) : t('cancel.leadNoProgram')}</p>
        <p className="checkout-return-actions">
          {program ? (
            <Link className="button" to={`/@/programs/${program.id}`}>
              {t('cancel.back', { name: program.name })}
            </Link>
          ) : null}
          <Link className={`button ${program ? 'button-secondary' : ''}`} to="/@/programs">
            {t('cancel.browse')}
          </Link>
        </p>
      </div>
    </main>
  )
}
