import Stripe from 'stripe'
import type { StripeSettings } from '../../config.ts'
import { CheckoutBadSignature, CheckoutUnavailable } from './errors.ts'

// The card payment provider behind one small interface (CONVENTIONS.md 16): Stripe Checkout
// through its SDK. Tests point the SDK at a faithful local fake (test/stripe-fake.ts) through
// STRIPE_API_URL; nothing else here knows it is a fake.

/** What one Checkout session is for: our catalogue's price, never one from the browser. */
export interface SessionRequest {
  userId: string
  email: string
  programId: string
  programName: string
  amountMinor: number
  currency: string
  period: 'one-time' | 'month' | 'year'
  successUrl: string
  cancelUrl: string
  /** The SDK sends it with the call and every retry of it: one attempt, one session. */
  idempotencyKey: string
}

/** The facts of a session, as Stripe holds them. */
export interface SessionFacts {
  id: string
  /** 'open', 'complete' or 'expired' (Stripe may add others). */
  status: string | null
  /** 'paid', 'unpaid' or 'no_payment_required'. */
  paymentStatus: string
  mode: string
  clientReferenceId: string | null
  metadata: Record<string, string>
  paymentIntentId: string | null
  subscriptionId: string | null
  amountTotal: number | null
  currency: string | null
  /** A subscription's paid period end, when the session came with its subscription expanded. */
  currentPeriodEnd: Date | null
}

export interface CardProvider {
  createSession(request: SessionRequest): Promise<{ id: string; url: string }>
  /** null when Stripe knows no such session. */
  retrieveSession(id: string): Promise<SessionFacts | null>
  /** Ends the subscription when its paid period does; the period's end, when Stripe says it. */
  cancelAtPeriodEnd(subscriptionId: string): Promise<{ currentPeriodEnd: Date | null }>
  /** Ends the subscription now (its account is being deleted); nothing happens when it has ended already or Stripe knows none. */
  cancelNow(subscriptionId: string): Promise<void>
  /** The event, when the signature verifies on these exact bytes within the tolerance; else CheckoutBadSignature. */
  verifyEvent(rawBody: Buffer, signature: string | undefined, nowMs: number): Stripe.Event
}

/** Stripe's default: a signature older than five minutes is refused (a replayed delivery). */
export const WEBHOOK_TOLERANCE_SECONDS = 300

/** The price in the currency's smallest unit (cents; yen are already whole). */
export function minorUnits(amount: number, currency: string): number {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  return Math.round(amount * 10 ** digits)
}

export function sessionFacts(session: Stripe.Checkout.Session): SessionFacts {
  const idOf = (value: string | { id: string } | null) => (value === null ? null : typeof value === 'string' ? value : value.id)
  return {
    id: session.id,
    status: session.status,
    paymentStatus: session.payment_status,
    mode: session.mode,
    clientReferenceId: session.client_reference_id,
    metadata: { ...(session.metadata ?? {}) },
    paymentIntentId: idOf(session.payment_intent),
    subscriptionId: idOf(session.subscription),
    amountTotal: session.amount_total,
    currency: session.currency,
    currentPeriodEnd: session.subscription !== null && typeof session.subscription === 'object' ? periodEnd(session.subscription) : null,
  }
}

/** The end of a subscription's current period: on its items since Stripe's 2025 API versions. */
export function periodEnd(subscription: Stripe.Subscription): Date | null {
  const ends = subscription.items.data.map((item) => item.current_period_end).filter((end) => typeof end === 'number')
  return ends.length > 0 ? new Date(Math.min(...ends) * 1000) : null
}

/** Stripe unreachable, slow, or failing on its side: the caller is told to try later (503), nothing else. */
function unavailable(error: unknown): Error {
  const cause = error instanceof Error ? error : new Error(String(error))
  return Object.assign(new CheckoutUnavailable(), { cause, retryAfter: 30 })
}

function isMissing(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeInvalidRequestError && (error.statusCode === 404 || error.code === 'resource_missing')
}

export function stripeProvider(settings: StripeSettings): CardProvider {
  const url = new URL(settings.apiUrl)
  const stripe = new Stripe(settings.secretKey, {
    host: url.hostname,
    port: url.port || (url.protocol === 'http:' ? 80 : 443),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
    // Retries reuse the call's idempotency key, so a retried create is still one session.
    maxNetworkRetries: 2,
    timeout: 10_000,
    telemetry: false,
  })

  return {
    async createSession(request) {
      const recurring = request.period === 'one-time' ? undefined : { interval: request.period }
      const metadata = { userId: request.userId, programId: request.programId }
      try {
        const session = await stripe.checkout.sessions.create(
          {
            mode: recurring ? 'subscription' : 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: request.currency.toLowerCase(),
                  unit_amount: request.amountMinor,
                  product_data: { name: request.programName, metadata: { programId: request.programId } },
                  ...(recurring ? { recurring } : {}),
                },
              },
            ],
            client_reference_id: request.userId,
            customer_email: request.email,
            metadata,
            // The subscription (and its later events) carries who and what too.
            ...(recurring ? { subscription_data: { metadata } } : { payment_intent_data: { metadata } }),
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
          },
          { idempotencyKey: request.idempotencyKey },
        )
        if (!session.url) throw new Error('Stripe answered a Checkout session without a URL')
        return { id: session.id, url: session.url }
      } catch (error) {
        throw unavailable(error)
      }
    },

    async retrieveSession(id) {
      try {
        // The subscription comes along, so the page can say when it renews.
        return sessionFacts(await stripe.checkout.sessions.retrieve(id, { expand: ['subscription'] }))
      } catch (error) {
        if (isMissing(error)) return null
        throw unavailable(error)
      }
    },

    async cancelAtPeriodEnd(subscriptionId) {
      try {
        return { currentPeriodEnd: periodEnd(await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })) }
      } catch (error) {
        throw unavailable(error)
      }
    },

    async cancelNow(subscriptionId) {
      try {
        await stripe.subscriptions.cancel(subscriptionId)
      } catch (error) {
        // Already ended (Stripe refuses to cancel it twice) or unknown: there is nothing to stop.
        const stripeError = error as { statusCode?: number; code?: string; message?: string }
        if (stripeError.code === 'resource_missing' || (stripeError.statusCode === 400 && /cancell?ed subscription/i.test(stripeError.message ?? ''))) return
        throw unavailable(error)
      }
    },

    verifyEvent(rawBody, signature, nowMs) {
      if (signature === undefined) throw new CheckoutBadSignature()
      try {
        return stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret, WEBHOOK_TOLERANCE_SECONDS, undefined, nowMs)
      } catch {
        throw new CheckoutBadSignature()
      }
    },
  }
}
