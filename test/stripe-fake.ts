import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type net from 'node:net'
import Stripe from 'stripe'

// A faithful local fake of the Stripe endpoints the checkout uses (DESIGN.md §4.13: the card
// provider has no local server): create and retrieve a Checkout session, update a subscription,
// and a minimal hosted payment page whose "Pay" button completes the session, delivers the signed
// checkout.session.completed webhook when told where, and redirects to the session's success_url.
// The SDK reaches it through STRIPE_API_URL (its host/port/protocol options); requests are checked
// as Stripe checks them: the secret key, form-encoded parameters, idempotency keys, modes and prices.

export interface FakeSession {
  id: string
  object: 'checkout.session'
  url: string
  status: 'open' | 'complete' | 'expired'
  payment_status: 'paid' | 'unpaid' | 'no_payment_required'
  mode: 'payment' | 'subscription'
  client_reference_id: string | null
  customer_email: string | null
  metadata: Record<string, string>
  payment_intent: string | null
  subscription: string | null
  amount_total: number
  amount_subtotal: number
  currency: string
  success_url: string
  cancel_url: string | null
  created: number
  expires_at: number
  livemode: false
}

export interface FakeSubscription {
  id: string
  object: 'subscription'
  status: 'active' | 'past_due' | 'canceled' | 'unpaid'
  cancel_at_period_end: boolean
  metadata: Record<string, string>
  items: { object: 'list'; data: Array<{ id: string; object: 'subscription_item'; current_period_start: number; current_period_end: number }> }
  livemode: false
}

export interface StripeFake {
  /** http://127.0.0.1:<port>: STRIPE_API_URL. */
  url: string
  sessions: Map<string, FakeSession>
  subscriptions: Map<string, FakeSubscription>
  /** Every API call received: method, path, idempotency key. */
  calls: Array<{ method: string; path: string; idempotencyKey: string | undefined }>
  /** What the hosted page's "Pay" does: the session complete and paid (or left unpaid, as an async payment method would). */
  complete(id: string, options?: { paid?: boolean }): FakeSession
  expire(id: string): FakeSession
  /** Where "Pay" delivers checkout.session.completed, signed with the secret; none until set. */
  deliverTo(webhook: { url: string; secret: string } | undefined): void
  /** Answer every API call with this status from now on (an outage); undefined to recover. */
  failWith(status: number | undefined): void
  close(): Promise<void>
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`
const nowSeconds = () => Math.floor(Date.now() / 1000)
const PERIOD_SECONDS = { day: 86_400, week: 7 * 86_400, month: 30 * 86_400, year: 365 * 86_400 } as const

/** Stripe's form encoding: `line_items[0][price_data][currency]=usd` → nested objects and arrays. */
export function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.split('[').map((part) => part.replace(/]$/, ''))
    let node: Record<string, unknown> = root
    path.forEach((part, index) => {
      if (index === path.length - 1) node[part] = value
      else node = (node[part] ??= {}) as Record<string, unknown>
    })
  }
  return root
}

/** Objects keyed "0", "1"… as arrays, the way Stripe reads them. */
function list(value: unknown): Array<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null) return []
  return Object.keys(value)
    .sort((a, b) => Number(a) - Number(b))
    .map((key) => (value as Record<string, Record<string, unknown>>)[key]!)
}

class StripeRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
    readonly code?: string,
    readonly type = 'invalid_request_error',
  ) {
    super(message)
  }
}

function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** A signed delivery of `event` as Stripe sends it: the JSON bytes and their Stripe-Signature header. */
export function signedDelivery(event: object, secret: string, timestamp = nowSeconds()): { payload: string; signature: string } {
  const payload = JSON.stringify(event, null, 2)
  return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }) }
}

/** An event as Stripe builds it around an object. */
export function stripeEvent(type: string, object: object, eventId = id('evt')): Record<string, unknown> {
  return { id: eventId, object: 'event', api_version: '2026-10-28.endive', created: nowSeconds(), livemode: false, pending_webhooks: 1, type, data: { object } }
}

export async function startStripeFake(owner: { teardown(fn: () => unknown): void }, options: { secretKey: string; port?: number }): Promise<StripeFake> {
  const sessions = new Map<string, FakeSession>()
  const subscriptions = new Map<string, FakeSubscription>()
  const idempotent = new Map<string, { body: string; answer: string }>()
  const calls: StripeFake['calls'] = []
  let webhook: { url: string; secret: string } | undefined
  let failure: number | undefined
  let base = ''

  function createSession(params: Record<string, unknown>): FakeSession {
    const mode = params.mode
    if (mode !== 'payment' && mode !== 'subscription') throw new StripeRequestError(400, 'Invalid mode: must be one of payment, setup, or subscription', 'mode')
    if (typeof params.success_url !== 'string') throw new StripeRequestError(400, 'Missing required param: success_url.', 'success_url')
    const items = list(params.line_items)
    if (items.length === 0) throw new StripeRequestError(400, 'Missing required param: line_items.', 'line_items')
    let amount = 0
    let currency = ''
    for (const [index, item] of items.entries()) {
      const price = item.price_data as Record<string, unknown> | undefined
      if (!price) throw new StripeRequestError(400, `Missing required param: line_items[${index}][price_data].`, `line_items[${index}][price_data]`)
      const unit = Number(price.unit_amount)
      if (!/^\d+$/.test(String(price.unit_amount)) || !Number.isSafeInteger(unit)) throw new StripeRequestError(400, 'Invalid integer: unit_amount', `line_items[${index}][price_data][unit_amount]`)
      if (typeof price.currency !== 'string' || !/^[a-z]{3}$/.test(price.currency)) throw new StripeRequestError(400, 'Invalid currency', `line_items[${index}][price_data][currency]`)
      const product = price.product_data as Record<string, unknown> | undefined
      if (typeof product?.name !== 'string' || product.name === '') throw new StripeRequestError(400, 'Missing required param: product_data[name].', `line_items[${index}][price_data][product_data][name]`)
      const recurring = price.recurring as Record<string, unknown> | undefined
      if (mode === 'payment' && recurring) throw new StripeRequestError(400, 'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.')
      if (mode === 'subscription' && !(typeof recurring?.interval === 'string' && recurring.interval in PERIOD_SECONDS)) {
        throw new StripeRequestError(400, 'You must provide at least one recurring price in `subscription` mode when using prices.')
      }
      amount += unit * Number(item.quantity ?? 1)
      currency = price.currency
    }
    const created = nowSeconds()
    const session: FakeSession = {
      id: id('cs'),
      object: 'checkout.session',
      url: '',
      status: 'open',
      payment_status: 'unpaid',
      mode,
      client_reference_id: typeof params.client_reference_id === 'string' ? params.client_reference_id : null,
      customer_email: typeof params.customer_email === 'string' ? params.customer_email : null,
      metadata: { ...((params.metadata as Record<string, string> | undefined) ?? {}) },
      payment_intent: null,
      subscription: null,
      amount_total: amount,
      amount_subtotal: amount,
      currency,
      success_url: params.success_url,
      cancel_url: typeof params.cancel_url === 'string' ? params.cancel_url : null,
      created,
      expires_at: created + 24 * 3600,
      livemode: false,
    }
    session.url = `${base}/pay/${session.id}`
    const interval = (list(params.line_items)[0]!.price_data as { recurring?: { interval: keyof typeof PERIOD_SECONDS } }).recurring?.interval
    if (mode === 'subscription' && interval) {
      // Made when the session completes; the period is known now.
      ;(session as FakeSession & { _interval?: string })._interval = interval
      ;(session as FakeSession & { _subscriptionMetadata?: Record<string, string> })._subscriptionMetadata = {
        ...(((params.subscription_data as Record<string, unknown> | undefined)?.metadata as Record<string, string> | undefined) ?? {}),
      }
    }
    sessions.set(session.id, session)
    return session
  }

  function visible(session: FakeSession): FakeSession {
    const { _interval: _i, _subscriptionMetadata: _m, ...rest } = session as FakeSession & { _interval?: string; _subscriptionMetadata?: unknown }
    return rest
  }

  function complete(sessionId: string, { paid = true }: { paid?: boolean } = {}): FakeSession {
    const session = sessions.get(sessionId) as (FakeSession & { _interval?: keyof typeof PERIOD_SECONDS; _subscriptionMetadata?: Record<string, string> }) | undefined
    if (!session) throw new Error(`no session ${sessionId}`)
    if (session.status !== 'open') return visible(session)
    session.status = 'complete'
    session.payment_status = paid ? 'paid' : 'unpaid'
    if (session.mode === 'payment') session.payment_intent = id('pi')
    else {
      const start = nowSeconds()
      const subscription: FakeSubscription = {
        id: id('sub'),
        object: 'subscription',
        status: 'active',
        cancel_at_period_end: false,
        metadata: session._subscriptionMetadata ?? {},
        items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', current_period_start: start, current_period_end: start + PERIOD_SECONDS[session._interval ?? 'month'] }] },
        livemode: false,
      }
      subscriptions.set(subscription.id, subscription)
      session.subscription = subscription.id
    }
    return visible(session)
  }

  async function deliverCompleted(session: FakeSession): Promise<void> {
    if (!webhook) return
    const { payload, signature } = signedDelivery(stripeEvent('checkout.session.completed', session), webhook.secret)
    try {
      await fetch(webhook.url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' }, body: payload })
    } catch {
      // Stripe would retry later; the success page grants meanwhile.
    }
  }

  async function api(request: http.IncomingMessage, body: string): Promise<[number, unknown]> {
    const auth = request.headers.authorization
    if (auth !== `Bearer ${options.secretKey}`) throw new StripeRequestError(401, 'Invalid API Key provided.', undefined, undefined, 'invalid_request_error')
    if (failure !== undefined) throw new StripeRequestError(failure, 'An error occurred with our connection to Stripe.', undefined, undefined, 'api_error')
    const path = new URL(request.url ?? '/', 'http://fake').pathname
    const session = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path)
    const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)
    if (request.method === 'POST' && path === '/v1/checkout/sessions') return [200, visible(createSession(parseStripeForm(body)))]
    if (request.method === 'GET' && session) {
      const found = sessions.get(decodeURIComponent(session[1]!))
      if (!found) throw new StripeRequestError(404, `No such checkout.session: '${session[1]}'`, 'session', 'resource_missing')
      // expand[]=subscription (the SDK writes expand[0]=…): the object in place of its id.
      const query = new URL(request.url ?? '/', 'http://fake').searchParams
      const expand = [...query.entries()].filter(([key]) => /^expand\[\d*\]$/.test(key)).map(([, value]) => value)
      const answer = visible(found)
      return [200, expand.includes('subscription') && found.subscription ? { ...answer, subscription: subscriptions.get(found.subscription) } : answer]
    }
    if (request.method === 'POST' && subscription) {
      const found = subscriptions.get(decodeURIComponent(subscription[1]!))
      if (!found) throw new StripeRequestError(404, `No such subscription: '${subscription[1]}'`, 'id', 'resource_missing')
      const params = parseStripeForm(body)
      if (found.status === 'canceled') throw new StripeRequestError(400, 'A canceled subscription can only update its cancellation_details and metadata.')
      if (params.cancel_at_period_end !== undefined) found.cancel_at_period_end = params.cancel_at_period_end === 'true'
      return [200, found]
    }
    if (request.method === 'DELETE' && subscription) {
      const found = subscriptions.get(decodeURIComponent(subscription[1]!))
      if (!found) throw new StripeRequestError(404, `No such subscription: '${subscription[1]}'`, 'id', 'resource_missing')
      if (found.status === 'canceled') throw new StripeRequestError(400, 'This customer has no active subscription: a canceled subscription cannot be canceled again.')
      found.status = 'canceled'
      return [200, found]
    }
    throw new StripeRequestError(404, `Unrecognized request URL (${request.method}: ${path}).`)
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const url = new URL(request.url ?? '/', 'http://fake')
      const pay = /^\/pay\/([^/]+)$/.exec(url.pathname)
      if (pay) {
        const session = sessions.get(pay[1]!)
        if (!session) return response.writeHead(404, { 'content-type': 'text/plain' }).end('No such session')
        if (request.method === 'POST') {
          const done = complete(session.id)
          void deliverCompleted(done).then(() => {
            response.writeHead(303, { location: done.success_url.replace('{CHECKOUT_SESSION_ID}', done.id) }).end()
          })
          return
        }
        const price = new Intl.NumberFormat('en', { style: 'currency', currency: session.currency }).format(session.amount_total / 100)
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        return response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Fake Stripe Checkout</title></head>
<body><main><h1>Fake Stripe Checkout</h1><p>${html(session.mode === 'subscription' ? 'Subscription' : 'Payment')}: ${html(price)}</p>
<form method="post" action="/pay/${html(session.id)}"><button type="submit">Pay</button></form>
${session.cancel_url ? `<p><a href="${html(session.cancel_url)}">Back</a></p>` : ''}</main></body></html>`)
      }
      calls.push({ method: request.method ?? '', path: url.pathname, idempotencyKey: request.headers['idempotency-key'] as string | undefined })
      const key = request.method === 'POST' ? (request.headers['idempotency-key'] as string | undefined) : undefined
      const replay = key === undefined ? undefined : idempotent.get(key)
      if (replay) {
        if (replay.body !== body) {
          return response
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.' } }))
        }
        return response.writeHead(200, { 'content-type': 'application/json', 'idempotent-replayed': 'true' }).end(replay.answer)
      }
      api(request, body)
        .then(([status, answer]) => {
          const text = JSON.stringify(answer)
          if (key !== undefined) idempotent.set(key, { body, answer: text })
          response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(text)
        })
        .catch((error: unknown) => {
          const problem = error instanceof StripeRequestError ? error : new StripeRequestError(500, 'An unknown error occurred', undefined, undefined, 'api_error')
          response
            .writeHead(problem.status, { 'content-type': 'application/json', 'request-id': id('req') })
            .end(JSON.stringify({ error: { type: problem.type, message: problem.message, ...(problem.param ? { param: problem.param } : {}), ...(problem.code ? { code: problem.code } : {}) } }))
        })
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  owner.teardown(close)
  return {
    url: base,
    sessions,
    subscriptions,
    calls,
    complete,
    expire(sessionId) {
      const session = sessions.get(sessionId)
      if (!session) throw new Error(`no session ${sessionId}`)
      session.status = 'expired'
      return visible(session)
    },
    deliverTo(target) {
      webhook = target
    },
    failWith(status) {
      failure = status
    },
    close,
  }
}
