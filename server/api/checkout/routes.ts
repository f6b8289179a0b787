import fp from 'fastify-plugin'
import { randomUUID } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { getProgram } from '../catalogue/repository.ts'
import { ApiCatalogueNotFound, ApiProgramRetired } from '../errors.ts'
import { Id } from '../catalogue/routes.ts'
import { answerPrivately, type SessionGuard } from '../session-guard.ts'
import type { CheckoutStatus } from '../../../shared/checkout.ts'
import { STRIPE_WEBHOOK_BODY_LIMIT } from '../../http/body-limits.ts'
import { minorUnits, type CardProvider, type SessionFacts } from './card-provider.ts'
import { CheckoutAlreadyOwned, CheckoutNoSubscription, CheckoutNotConfigured, CheckoutNotPaid, CheckoutSessionNotFound } from './errors.ts'
import {
  CHECKOUT_SESSION_EVENTS,
  activePurchases,
  activeSubscription,
  applyEvent,
  grantPaidSession,
  isPaid,
  isRefusal,
  isSessionOfOurs,
  markCancelAtPeriodEnd,
  ownsProgram,
  purchaseOfSession,
  refusalOf,
  type SessionRefusal,
} from './purchases.ts'

// Card checkout (decision 018): a Checkout session for a paid program, the return from
// it, the user's purchases, cancelling a subscription, and Stripe's webhook.

export interface CheckoutRouteOptions {
  guard: SessionGuard
  /** Stripe, or undefined when STRIPE_SECRET_KEY is not set: nothing is for sale. */
  provider: CardProvider | undefined
  appUrl: string
  now: () => number
}


/** Stripe keeps a Checkout session open for 24 hours; one older than this is not offered again. */
const OPEN_SESSION_REUSE_MS = 23 * 60 * 60_000

/** Stripe's Checkout session ids: cs_test_… / cs_live_…; anything else is not asked about. */
const SESSION_ID = /^cs_[A-Za-z0-9_]{1,255}$/

const PurchaseSchema = Type.Object({
  programId: Type.String(),
  purchasedAt: Type.String(),
  period: Type.Union([Type.Literal('one-time'), Type.Literal('month'), Type.Literal('year')]),
  status: Type.Union([Type.Literal('active'), Type.Literal('refunded'), Type.Literal('ended')]),
  cancelAtPeriodEnd: Type.Boolean(),
  currentPeriodEnd: Type.Union([Type.String(), Type.Null()]),
})

/** Stripe's event: checked by its signature on the exact bytes, so documented only (config.openapi). */
const WEBHOOK_DOCS = {
  headers: { type: 'object', required: ['stripe-signature'], properties: { 'stripe-signature': { type: 'string', description: 'Stripe\'s signature of the body with the endpoint\'s secret.' } } },
  body: {
    'application/json': {
      type: 'object',
      description: 'A Stripe event (checkout.session.completed and .async_payment_succeeded, charge.refunded, customer.subscription.updated and .deleted, invoice.payment_failed are acted on; others are acknowledged).',
      required: ['id', 'type', 'data'],
      properties: { id: { type: 'string' }, type: { type: 'string' }, data: { type: 'object', additionalProperties: true } },
      additionalProperties: true,
    },
  },
}

/** A session that may not grant is a warning: a misconfigured Stripe account, or someone trying. */
function warnRefused(log: FastifyBaseLogger, fields: { sessionId: string; reason: SessionRefusal; via: 'webhook' | 'success-page'; type?: string; stripeEvent?: string }): void {
  log.warn({ event: 'checkout-session-refused', ...fields }, 'a Checkout session this app did not make for this user, program and price granted nothing')
}

async function checkoutRoutes(app: FastifyInstance, opts: CheckoutRouteOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db
  const { authenticate, activeUser } = opts.guard
  const provider = () => {
    if (!opts.provider) throw new CheckoutNotConfigured()
    return opts.provider
  }

  answerPrivately(app)

  api.post(
    '/api/user/checkout',
    {
      preHandler: authenticate('complete'),
      schema: {
        body: Type.Object({ programId: Id }, { additionalProperties: false }),
        response: { 200: Type.Object({ url: Type.String() }) },
      },
    },
    async (request) => {
      const user = await activeUser(request)
      const program = await getProgram(db, request.body.programId)
      if (!program) throw new ApiCatalogueNotFound('program', request.body.programId)
      // A retired program is no longer sold (bought before, it stays owned).
      if (program.retired) throw new ApiProgramRetired(program.id)
      // The price is our catalogue's, never the browser's.
      if (program.isFree || program.price === null) throw new CheckoutNotPaid(program.name)
      if (await ownsProgram(db, user.id, program.id)) throw new CheckoutAlreadyOwned(program.name)
      // The session of an earlier "Buy" (another tab, the back button): still open, the buyer goes
      // back to it rather than to a second payment; paid already (the webhook not arrived yet),
      // the program is granted now and owned. Two clicks at the very same moment can still make two.
      const { rows: earlier } = await db.query<{ id: string; url: string }>(
        'SELECT id, url FROM api.checkout_sessions WHERE user_id = $1 AND program_id = $2 AND created_at > $3 ORDER BY created_at DESC LIMIT 1',
        [user.id, program.id, new Date(opts.now() - OPEN_SESSION_REUSE_MS)],
      )
      if (earlier[0]) {
        const facts = await provider().retrieveSession(earlier[0].id)
        if (facts && isPaid(facts)) {
          // Granted now, or before and since refunded or ended (then it may be bought again).
          await grantPaidSession(db, facts, new Date(opts.now()))
          if (await ownsProgram(db, user.id, program.id)) throw new CheckoutAlreadyOwned(program.name)
        } else if (facts?.status === 'open') {
          request.log.info({ event: 'checkout-resumed', programId: program.id, sessionId: facts.id }, 'an open Checkout session was given again')
          return { url: earlier[0].url }
        }
      }
      const amountMinor = minorUnits(program.price.amount, program.price.currency)
      const session = await provider().createSession({
        userId: user.id,
        email: user.email,
        programId: program.id,
        programName: program.name,
        amountMinor,
        currency: program.price.currency,
        period: program.price.period,
        successUrl: `${opts.appUrl}/stripe/success?session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${opts.appUrl}/stripe/cancel?program=${encodeURIComponent(program.id)}`,
        idempotencyKey: `checkout-${randomUUID()}`,
      })
      // The record a grant is checked against: who, what, and what we asked Stripe to charge.
      await db.query(
        'INSERT INTO api.checkout_sessions (id, user_id, program_id, url, created_at, amount_minor, currency) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING',
        [session.id, user.id, program.id, session.url, new Date(opts.now()), amountMinor, program.price.currency.toUpperCase()],
      )
      request.log.info({ event: 'checkout-started', programId: program.id, sessionId: session.id }, 'a Checkout session was made')
      return { url: session.url }
    },
  )

  // The success page: the session as Stripe holds it, checked against the signed-in user. A paid
  // one grants the program, once (the webhook may have done it already, or do it later).
  api.get(
    '/api/user/checkout/:sessionId',
    {
      preHandler: authenticate('complete'),
      schema: {
        params: Type.Object({ sessionId: Type.String({ maxLength: 300 }) }),
        response: { 200: Type.Object({ status: Type.String(), programId: Type.String() }) },
      },
    },
    async (request) => {
      const user = await activeUser(request)
      const sessionId = request.params.sessionId
      if (!SESSION_ID.test(sessionId)) throw new CheckoutSessionNotFound()
      const facts = await provider().retrieveSession(sessionId)
      // Someone else's session answers exactly like one that does not exist.
      if (!facts || facts.metadata.userId !== user.id || facts.clientReferenceId !== user.id || !facts.metadata.programId) throw new CheckoutSessionNotFound()
      const programId = facts.metadata.programId
      // Not made by this app for this user and program at this price: it does not exist for us either.
      const refusal = await refusalOf(db, facts)
      if (refusal) {
        warnRefused(request.log, { sessionId, reason: refusal, via: 'success-page' })
        throw new CheckoutSessionNotFound()
      }
      if (isPaid(facts)) {
        if ((await grantPaidSession(db, facts, new Date(opts.now()))) === 'granted') request.log.info({ event: 'checkout-returned', programId, sessionId }, 'a paid session was read')
        const purchase = await purchaseOfSession(db, sessionId)
        const status: CheckoutStatus = purchase?.status === 'refunded' ? 'refunded' : purchase?.status === 'ended' ? 'ended' : 'paid'
        return { status, programId }
      }
      const status: CheckoutStatus = facts.status === 'expired' ? 'expired' : facts.status === 'complete' ? 'pending' : 'open'
      return { status, programId }
    },
  )

  api.get('/api/user/purchases', { preHandler: authenticate('complete'), schema: { response: { 200: Type.Array(PurchaseSchema) } } }, async (request) => {
    const user = await activeUser(request)
    return activePurchases(db, user.id)
  })

  // A subscription ends with the period already paid for: Stripe stops renewing it, the program
  // stays owned until its customer.subscription.deleted arrives.
  api.post(
    '/api/user/purchases/:programId/cancel',
    { preHandler: authenticate('complete'), schema: { params: Type.Object({ programId: Id }), response: { 200: PurchaseSchema } } },
    async (request) => {
      const user = await activeUser(request)
      const programId = request.params.programId
      const subscriptionId = await activeSubscription(db, user.id, programId)
      if (!subscriptionId) throw new CheckoutNoSubscription((await getProgram(db, programId))?.name ?? programId)
      const { currentPeriodEnd } = await provider().cancelAtPeriodEnd(subscriptionId)
      await markCancelAtPeriodEnd(db, subscriptionId, currentPeriodEnd)
      request.log.info({ event: 'subscription-cancelled', programId }, 'a subscription will end with its period')
      return (await activePurchases(db, user.id)).find((purchase) => purchase.programId === programId)!
    },
  )

  // Stripe's webhook: no session, the signature on the raw bytes instead. It answers at once
  // after the database has the effect; a failure answers 5xx and Stripe delivers again.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: STRIPE_WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body))
    scope.post('/api/stripe/webhook', { bodyLimit: STRIPE_WEBHOOK_BODY_LIMIT, schema: { response: { 200: Type.Object({ received: Type.Literal(true) }) } }, config: { openapi: WEBHOOK_DOCS } }, async (request) => {
      const signature = request.headers['stripe-signature']
      const body = request.body instanceof Buffer ? request.body : Buffer.alloc(0)
      const event = provider().verifyEvent(body, typeof signature === 'string' ? signature : undefined, opts.now())
      // A Checkout session's facts are read back from Stripe, and only for a session this app
      // made: the event's copy is not trusted, even signed.
      let session: SessionFacts | null = null
      const named = CHECKOUT_SESSION_EVENTS.has(event.type) ? (event.data.object as { id?: unknown }).id : undefined
      const sessionId = typeof named === 'string' && SESSION_ID.test(named) ? named : undefined
      if (sessionId !== undefined && (await isSessionOfOurs(db, sessionId))) session = await provider().retrieveSession(sessionId)
      const outcome = await applyEvent(db, event, new Date(opts.now()), session)
      if (isRefusal(outcome)) {
        // Acknowledged all the same: Stripe would deliver a refused event again and again for days.
        warnRefused(request.log, { sessionId: sessionId ?? String(named).slice(0, 300), reason: outcome, via: 'webhook', type: event.type, stripeEvent: event.id })
      } else {
        request.log.info({ event: 'stripe-webhook', type: event.type, stripeEvent: event.id, outcome }, 'a Stripe event was received')
      }
      return { received: true }
    })
  })
}

export default fp(checkoutRoutes, { name: 'checkout-routes', encapsulate: true, decorators: { fastify: ['db'] } })
