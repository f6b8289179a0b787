// Card checkout's wire shapes, shared by the API and the pages.

/** One entitlement, as GET /api/user/purchases answers it. */
export interface PurchaseView {
  programId: string
  purchasedAt: string
  period: 'one-time' | 'month' | 'year'
  status: 'active' | 'refunded' | 'ended'
  /** Subscriptions: cancelled by the user, ending with the paid period. */
  cancelAtPeriodEnd: boolean
  /** Subscriptions: when the paid period ends (renewal or end), when Stripe has said it. */
  currentPeriodEnd: string | null
}

/** GET /api/user/checkout/{sessionId}: what became of a Checkout session. */
export type CheckoutStatus = 'paid' | 'pending' | 'open' | 'expired' | 'refunded' | 'ended'

export interface CheckoutResult {
  status: CheckoutStatus
  programId: string
}
