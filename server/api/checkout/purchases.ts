import type Stripe from 'stripe'
import type { Database, Queryable } from '../../db/database.ts'
import type { PurchaseView } from '../../../shared/checkout.ts'
import type { SessionFacts } from './card-provider.ts'
import { periodEnd } from './card-provider.ts'

// Purchases and the entitlements they give (decision 018). A program is owned while one
// of the user's purchases of it is active. Rows come only from server-side facts: a Checkout
// session retrieved by id, or a webhook whose signature verified. Each session grants at most once
// (a unique session id), each event is applied at most once (its id, in the same transaction).

export type PurchaseStatus = PurchaseView['status']

interface PurchaseRow {
  program_id: string
  purchased_at: Date | string
  period: 'one-time' | 'month' | 'year'
  status: PurchaseStatus
  cancel_at_period_end: boolean
  current_period_end: Date | string | null
}

const iso = (value: Date | string) => new Date(value).toISOString()

function view(row: PurchaseRow): PurchaseView {
  return {
    programId: row.program_id,
    purchasedAt: iso(row.purchased_at),
    period: row.period,
    status: row.status,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    currentPeriodEnd: row.current_period_end === null ? null : iso(row.current_period_end),
  }
}

const VIEW_COLUMNS = 'program_id, purchased_at, period, status, cancel_at_period_end, current_period_end'

/** Subscription statuses after which Stripe will not charge again: the entitlement ends. */
const ENDED_SUBSCRIPTION = new Set<Stripe.Subscription.Status>(['canceled', 'unpaid', 'incomplete_expired'])

/** The session paid for what it says: a session of ours, complete, with the money taken. */
export function isPaid(facts: SessionFacts): boolean {
  return facts.status === 'complete' && (facts.paymentStatus === 'paid' || facts.paymentStatus === 'no_payment_required')
}

/** The user's current entitlements (active purchases), oldest first. */
export async function activePurchases(db: Queryable, userId: string): Promise<PurchaseView[]> {
  const { rows } = await db.query<PurchaseRow>(
    `SELECT ${VIEW_COLUMNS} FROM api.purchases WHERE user_id = $1 AND status = 'active' ORDER BY purchased_at, id`,
    [userId],
  )
  return rows.map(view)
}

/**
 * The one rule of ownership: a purchase `pu` lets its user use its program at
 * the time `now` (an SQL parameter) while it is an active one-time purchase, or an active
 * subscription whose recorded paid period has not ended (a period end not known yet counts as
 * running). Our purchase records only, never what the browser says. Streaming's refusal and the
 * "Owned" marks of the catalogue and the library are both this condition.
 */
const entitles = (now: string) => `pu.status = 'active' AND (pu.kind = 'payment' OR pu.current_period_end IS NULL OR pu.current_period_end > ${now})`

/**
 * The paid programs among `programIds` the user may not use at `now`: a program is paid
 * as checkout sells it (a priced program of a paid licence), and may be used with a purchase that
 * `entitles`. Free and unknown ids are never in the answer.
 */
export async function unentitledPaidPrograms(db: Queryable, userId: string, programIds: readonly string[], now: Date): Promise<Set<string>> {
  if (programIds.length === 0) return new Set()
  const { rows } = await db.query<{ id: string }>(
    `SELECT p.id FROM api.programs p JOIN api.license_types lt ON lt.id = p.license_type
      WHERE p.id = ANY($2::text[]) AND NOT lt.is_free AND p.price_amount IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM api.purchases pu WHERE pu.user_id = $1 AND pu.program_id = p.id AND ${entitles('$3')})`,
    [userId, [...programIds], now],
  )
  return new Set(rows.map((row) => row.id))
}

/**
 * The programs the user owns at `now` (the "Owned" marks and the library's Owned view),
 * by the same rule as streaming (`entitles`), the most recently bought first; saved in the library
 * or not.
 */
export async function ownedPrograms(db: Queryable, userId: string, now: Date): Promise<string[]> {
  const { rows } = await db.query<{ program_id: string }>(
    `SELECT pu.program_id FROM api.purchases pu WHERE pu.user_id = $1 AND ${entitles('$2')}
      GROUP BY pu.program_id ORDER BY max(pu.purchased_at) DESC, pu.program_id`,
    [userId, now],
  )
  return rows.map((row) => row.program_id)
}

/**
 * An active purchase of the program, its period ended or not: checkout does not sell it again. (A
 * subscription past its recorded period end whose renewal event is late is still billed by Stripe.)
 */
export async function ownsProgram(db: Queryable, userId: string, programId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM api.purchases WHERE user_id = $1 AND program_id = $2 AND status = $3 LIMIT 1', [userId, programId, 'active'])
  return rows.length > 0
}

/** The purchase a session made, whatever became of it since (refunded, ended). */
export async function purchaseOfSession(db: Queryable, sessionId: string): Promise<(PurchaseView & { userId: string }) | null> {
  const { rows } = await db.query<PurchaseRow & { user_id: string }>(`SELECT user_id, ${VIEW_COLUMNS} FROM api.purchases WHERE checkout_session_id = $1`, [sessionId])
  const row = rows[0]
  return row ? { ...view(row), userId: row.user_id } : null
}

/** The running subscription of a program the user owns, for cancelling it. */
export async function activeSubscription(db: Queryable, userId: string, programId: string): Promise<string | null> {
  const { rows } = await db.query<{ subscription_id: string }>(
    `SELECT subscription_id FROM api.purchases WHERE user_id = $1 AND program_id = $2 AND status = 'active' AND kind = 'subscription'
     ORDER BY purchased_at DESC LIMIT 1`,
    [userId, programId],
  )
  return rows[0]?.subscription_id ?? null
}

/** Every subscription of the user Stripe may still bill (active, cancelled at period end or not). */
export async function billedSubscriptions(db: Queryable, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ subscription_id: string }>(
    "SELECT DISTINCT subscription_id FROM api.purchases WHERE user_id = $1 AND kind = 'subscription' AND status = 'active'",
    [userId],
  )
  return rows.map((row) => row.subscription_id)
}

export async function markCancelAtPeriodEnd(db: Queryable, subscriptionId: string, currentPeriodEnd: Date | null): Promise<void> {
  await db.query('UPDATE api.purchases SET cancel_at_period_end = true, current_period_end = coalesce($2, current_period_end) WHERE subscription_id = $1', [
    subscriptionId,
    currentPeriodEnd,
  ])
}

/** The webhook events that grant a Checkout session. */
export const CHECKOUT_SESSION_EVENTS: ReadonlySet<string> = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded'])

/**
 * Why a session must not grant: Stripe holds it, but this app never made it (another
 * integration on the account, a Payment Link, the dashboard), or made it for another user or
 * program, or Stripe's amount or currency is not what this app asked for it.
 */
export type SessionRefusal = 'unknown-session' | 'other-user-or-program' | 'amount-mismatch'
const REFUSALS: ReadonlySet<string> = new Set<SessionRefusal>(['unknown-session', 'other-user-or-program', 'amount-mismatch'])
export const isRefusal = (outcome: string): outcome is SessionRefusal => REFUSALS.has(outcome)

/** Whether a Checkout session of this id is one this app made (api.checkout_sessions). */
export async function isSessionOfOurs(db: Queryable, sessionId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM api.checkout_sessions WHERE id = $1', [sessionId])).rows.length > 0
}

/**
 * The one rule for which sessions may grant: one this app made (its record of the session) for
 * the user and program Stripe's facts name, at the amount and currency it asked for. null: it may.
 */
export async function refusalOf(db: Queryable, facts: SessionFacts): Promise<SessionRefusal | null> {
  const { rows } = await db.query<{ user_id: string; program_id: string; amount_minor: string | number | null; currency: string | null }>(
    'SELECT user_id, program_id, amount_minor, currency FROM api.checkout_sessions WHERE id = $1',
    [facts.id],
  )
  const made = rows[0]
  if (!made) return 'unknown-session'
  if (facts.metadata.userId !== made.user_id || facts.clientReferenceId !== made.user_id || facts.metadata.programId !== made.program_id) return 'other-user-or-program'
  if (made.amount_minor === null || made.currency === null || facts.amountTotal !== Number(made.amount_minor) || facts.currency?.toLowerCase() !== made.currency.toLowerCase()) {
    return 'amount-mismatch'
  }
  return null
}

/** 'granted': the session's purchase exists (made now or before); 'ignored': nothing to grant. */
export type GrantOutcome = 'granted' | 'ignored' | SessionRefusal

/**
 * Records the purchase a paid session made, once: the first caller (the success page or the
 * webhook) inserts it, any later one finds it. `facts` are Stripe's, retrieved by id — never an
 * event's payload — and the session must be one this app made for that user and program at that
 * price (refusalOf). The program joins the user's library, where owned programs are listed.
 */
export async function grantSession(tx: Queryable, facts: SessionFacts, now: Date): Promise<GrantOutcome> {
  const refusal = await refusalOf(tx, facts)
  if (refusal) return refusal
  const userId = facts.metadata.userId!
  const programId = facts.metadata.programId!
  const kind = facts.mode === 'subscription' ? 'subscription' : 'payment'
  if (kind === 'subscription' && !facts.subscriptionId) return 'ignored'
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO api.purchases (user_id, program_id, checkout_session_id, kind, amount_minor, currency, period, payment_intent_id, subscription_id, status, purchased_at, current_period_end)
     SELECT u.id, p.id, $3, $4, $5, $6, p.price_period, $7, $8, 'active', $9, $10
       FROM api.users u, api.programs p
      WHERE u.id = $1 AND p.id = $2 AND p.price_period IS NOT NULL
     ON CONFLICT (checkout_session_id) DO NOTHING
     RETURNING id`,
    [userId, programId, facts.id, kind, facts.amountTotal ?? 0, (facts.currency ?? 'usd').toUpperCase(), facts.paymentIntentId, kind === 'subscription' ? facts.subscriptionId : null, now, facts.currentPeriodEnd],
  )
  if (inserted.rows.length > 0) {
    await tx.query('INSERT INTO api.user_programs (user_id, program_id, added_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [userId, programId, now])
    return 'granted'
  }
  // Granted already (the webhook's event names the subscription only): the period end, once known, is kept.
  const existing = await tx.query(
    'UPDATE api.purchases SET current_period_end = coalesce(current_period_end, $2) WHERE checkout_session_id = $1 RETURNING id',
    [facts.id, facts.currentPeriodEnd],
  )
  return existing.rows.length > 0 ? 'granted' : 'ignored'
}

/** Grants a paid session retrieved from Stripe in its own transaction (the success page's path). */
export async function grantPaidSession(db: Database, facts: SessionFacts, now: Date): Promise<GrantOutcome> {
  if (!isPaid(facts)) return 'ignored'
  return db.transaction((tx) => grantSession(tx, facts, now))
}

async function endSubscription(tx: Queryable, subscriptionId: string, now: Date): Promise<number> {
  const { rows } = await tx.query(`UPDATE api.purchases SET status = 'ended', ended_at = $2 WHERE subscription_id = $1 AND status = 'active' RETURNING id`, [subscriptionId, now])
  return rows.length
}

export type EventOutcome = 'applied' | 'ignored' | 'duplicate' | SessionRefusal

/**
 * Applies one verified Stripe event, once: its id is recorded in the same transaction as its
 * effect, so a replay (or a redelivery after we answered) finds it and changes nothing. For a
 * Checkout session's event, `session` is the session as Stripe holds it, retrieved by id (null
 * when it is not one this app made, or Stripe knows none): the event's own copy is not trusted.
 */
export async function applyEvent(db: Database, event: Stripe.Event, now: Date, session: SessionFacts | null = null): Promise<EventOutcome> {
  return db.transaction(async (tx) => {
    const fresh = await tx.query('INSERT INTO api.stripe_events (id, type, processed_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id', [event.id, event.type, now])
    if (fresh.rows.length === 0) return 'duplicate'
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        if (session === null || session.id !== event.data.object.id) return 'unknown-session'
        if (!isPaid(session)) return 'ignored'
        const granted = await grantSession(tx, session, now)
        return granted === 'granted' ? 'applied' : granted
      }
      case 'charge.refunded': {
        const charge = event.data.object
        const paymentIntent = typeof charge.payment_intent === 'string' ? charge.payment_intent : (charge.payment_intent?.id ?? null)
        // A partial refund keeps the program; only the whole amount back takes it away.
        if (!charge.refunded || paymentIntent === null) return 'ignored'
        const { rows } = await tx.query(
          `UPDATE api.purchases SET status = 'refunded', ended_at = $2 WHERE payment_intent_id = $1 AND kind = 'payment' AND status = 'active' RETURNING id`,
          [paymentIntent, now],
        )
        return rows.length > 0 ? 'applied' : 'ignored'
      }
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const subscription = event.data.object
        if (event.type === 'customer.subscription.deleted' || ENDED_SUBSCRIPTION.has(subscription.status)) {
          return (await endSubscription(tx, subscription.id, now)) > 0 ? 'applied' : 'ignored'
        }
        const { rows } = await tx.query(
          `UPDATE api.purchases SET cancel_at_period_end = $2, current_period_end = coalesce($3, current_period_end) WHERE subscription_id = $1 AND status = 'active' RETURNING id`,
          [subscription.id, subscription.cancel_at_period_end, periodEnd(subscription)],
        )
        return rows.length > 0 ? 'applied' : 'ignored'
      }
      case 'invoice.payment_failed': {
        const invoice = event.data.object
        const subscription = invoice.parent?.subscription_details?.subscription
        const subscriptionId = typeof subscription === 'string' ? subscription : (subscription?.id ?? null)
        // Stripe retries a failed renewal; only the last failure (no next attempt) ends it.
        if (subscriptionId === null || invoice.next_payment_attempt !== null) return 'ignored'
        return (await endSubscription(tx, subscriptionId, now)) > 0 ? 'applied' : 'ignored'
      }
      default:
        return 'ignored'
    }
  })
}

function formatMinor(minor: number, currency: string): string {
  const format = new Intl.NumberFormat('en', { style: 'currency', currency })
  return format.format(minor / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2))
}

export type SupportPurchase = PurchaseView & { kind: string; amount: string; checkoutSessionId: string; endedAt: string | null }

/** Every purchase of an account, for support (npm run accounts -- purchases <email>). */
export async function purchasesOfEmail(db: Queryable, email: string): Promise<SupportPurchase[]> {
  return supportPurchases(db, 'user_id IN (SELECT id FROM api.users WHERE lower(email) = lower($1))', email.trim())
}

/** Every purchase of an account, by its id, for the operator console's account page. */
export async function purchasesOfUser(db: Queryable, userId: string): Promise<SupportPurchase[]> {
  return supportPurchases(db, 'user_id = $1', userId)
}

async function supportPurchases(db: Queryable, where: string, key: string): Promise<SupportPurchase[]> {
  const { rows } = await db.query<PurchaseRow & { kind: string; amount_minor: string | number; currency: string; checkout_session_id: string; ended_at: Date | string | null }>(
    `SELECT ${VIEW_COLUMNS}, kind, amount_minor, currency, checkout_session_id, ended_at
       FROM api.purchases WHERE ${where}
      ORDER BY purchased_at, id`,
    [key],
  )
  return rows.map((row) => ({
    ...view(row),
    kind: row.kind,
    amount: formatMinor(Number(row.amount_minor), row.currency),
    checkoutSessionId: row.checkout_session_id,
    endedAt: row.ended_at === null ? null : iso(row.ended_at),
  }))
}
