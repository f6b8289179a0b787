import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { ProgramDetail } from '../../../shared/catalogue/program-schemas.ts'
import type { PurchaseView } from '../../../shared/checkout.ts'
import type { ErrorBody } from '../../../shared/types.ts'
import { apiSend } from '../../lib/api.ts'
import { showToast } from '../../lib/notices/toasts.ts'

// The program page's purchase state under /@: "Buy" for a paid program on sale, "Owned"
// once bought, and for a subscription its renewal or end with "Cancel subscription". Loaded with
// the signed-in pages only: a visitor's program page carries none of it.

function errorKey(status: number, body: unknown): 'unavailable' | 'alreadyOwned' | 'notPaid' | 'failed' {
  const code = (body as Partial<ErrorBody> | null)?.code
  if (code === 'CHECKOUT_ALREADY_OWNED') return 'alreadyOwned'
  if (code === 'CHECKOUT_NOT_PAID') return 'notPaid'
  return status === 503 ? 'unavailable' : 'failed'
}

export function PurchaseActions({ program, purchase }: { program: ProgramDetail; purchase: PurchaseView | undefined }) {
  const { t, i18n } = useTranslation('checkout')
  const [busy, setBusy] = useState(false)
  const [confirming, setConfirming] = useState(false)
  const [current, setCurrent] = useState(purchase)
  const date = (value: string) => new Intl.DateTimeFormat(i18n.language, { dateStyle: 'long' }).format(new Date(value))

  const buy = async () => {
    setBusy(true)
    const result = await apiSend<{ url: string }>('POST', '/api/user/checkout', { programId: program.id })
    if (result.ok && result.body && 'url' in result.body) {
      // Stripe's hosted page; it returns to /stripe/success or /stripe/cancel.
      window.location.assign(result.body.url)
      return
    }
    setBusy(false)
    showToast({ kind: 'error', title: t(`errors.${errorKey(result.status, result.body)}`) })
  }

  const cancel = async () => {
    setBusy(true)
    const result = await apiSend<PurchaseView>('POST', `/api/user/purchases/${encodeURIComponent(program.id)}/cancel`)
    setBusy(false)
    setConfirming(false)
    if (result.ok && result.body && 'programId' in result.body) {
      setCurrent(result.body)
      showToast({ kind: 'success', title: t('subscription.cancelled', { name: program.name }) })
      return
    }
    showToast({ kind: 'error', title: t(`errors.${errorKey(result.status, result.body)}`) })
  }

  if (current) {
    const subscription = current.period !== 'one-time'
    let term: string | null = null
    if (subscription && current.cancelAtPeriodEnd) term = current.currentPeriodEnd ? t('subscription.ends', { date: date(current.currentPeriodEnd) }) : t('subscription.endsWithPeriod')
    else if (subscription && current.currentPeriodEnd) term = t('subscription.renews', { date: date(current.currentPeriodEnd) })
    return (
      <>
        <span className="badge badge-owned" data-testid="owned">
          {t('owned')}
        </span>
        {term ? <span className="hint">{term}</span> : null}
        {subscription && !current.cancelAtPeriodEnd && !confirming ? (
          <button type="button" className="button button-secondary button-small" data-testid="cancel-subscription" onClick={() => setConfirming(true)}>
            {t('subscription.cancel')}
          </button>
        ) : null}
        {confirming ? (
          <span className="purchase-confirm" role="group" aria-label={t('subscription.cancel')}>
            <span>{t('subscription.confirm', { name: program.name })}</span>
            <button type="button" className="button button-danger button-small" disabled={busy} onClick={() => void cancel()}>
              {t('subscription.confirmYes')}
            </button>
            <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => setConfirming(false)}>
              {t('subscription.confirmNo')}
            </button>
          </span>
        ) : null}
      </>
    )
  }
  if (!program.forSale) return null
  return (
    <button type="button" className="button" data-testid="buy" disabled={busy} aria-label={t('buyNamed', { name: program.name })} onClick={() => void buy()}>
      {busy ? t('opening') : t('buy')}
    </button>
  )
}
