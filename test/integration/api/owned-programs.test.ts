import t from 'tap'
import { browser, buildStack, signedInTab } from '../../helpers.ts'
import { signedDelivery, startStripeFake, stripeEvent } from '../../stripe-fake.ts'

// Which programs a signed-in user owns, for the "Owned" marks on every card under /@
// and My library's Owned view. Owned is streaming's rule, on the API's clock: a
// one-time purchase not refunded, or a subscription whose paid period has not ended. Bought
// through the real checkout against the local Stripe fake.

const STRIPE_SECRET_KEY = 'sk_test_owned0123456789'
const STRIPE_WEBHOOK_SECRET = 'whsec_owned0123456789abcdef'
let clockOffset = 0
const now = () => Date.now() + clockOffset
const stripe = await startStripeFake(t, { secretKey: STRIPE_SECRET_KEY })
const stack = await buildStack(t, {
  auth: true,
  env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_API_URL: stripe.url, LOG_LEVEL: 'warn' },
  now,
})

const ONE_TIME = 'reaper'
const MONTHLY = 'substance-3d-painter'

type Tab = Awaited<ReturnType<typeof signedInTab>>
let people = 0
const person = () => signedInTab(stack, `owner-${++people}@example.com`)

/** Buys a paid program as the browser does: checkout, Stripe's page paid, the success page read. */
async function buy(tab: Tab, programId: string): Promise<{ paymentIntent: string | null; subscription: string | null }> {
  const started = await tab.send('POST', '/api/user/checkout', { programId })
  if (started.statusCode !== 200) throw new Error(`checkout ${programId}: ${started.body}`)
  const session = stripe.complete(/\/pay\/([^/?]+)$/.exec(started.json().url as string)![1]!)
  const back = await tab.get(`/api/user/checkout/${session.id}`)
  if (back.json().status !== 'paid') throw new Error(`success page: ${back.body}`)
  return { paymentIntent: session.payment_intent, subscription: session.subscription }
}

function deliver(event: object) {
  const { payload, signature } = signedDelivery(event, STRIPE_WEBHOOK_SECRET, Math.floor(now() / 1000))
  return stack.bff.inject({ method: 'POST', url: '/api/stripe/webhook', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature }, payload })
}

const ids = async (tab: Tab) => (await tab.get('/api/user/program-ids')).json() as { programIds: string[]; ownedIds: string[] }
const ownedView = async (tab: Tab, query = '') => (await tab.get(`/api/user/programs?view=owned${query}`)).json() as { total: number; items: Array<{ id: string }> }

t.test('GET /api/user/program-ids says which programs the user owns, saved in the library or not, privately', async (t) => {
  const tab = await person()
  t.equal((await tab.send('POST', `/api/user/program/${MONTHLY}`)).statusCode, 200, 'a paid program saved, not bought')
  t.same(await ids(tab), { programIds: [MONTHLY], ownedIds: [] }, 'saved is not owned')

  await buy(tab, ONE_TIME)
  const answer = await tab.get('/api/user/program-ids')
  t.equal(answer.statusCode, 200)
  t.equal(answer.headers['cache-control'], 'no-store', 'never kept by a cache shared between users')
  t.same(answer.json(), { programIds: [ONE_TIME, MONTHLY].sort(), ownedIds: [ONE_TIME] })

  t.equal((await tab.send('DELETE', `/api/user/program/${ONE_TIME}`)).statusCode, 200)
  t.same(await ids(tab), { programIds: [MONTHLY], ownedIds: [ONE_TIME] }, 'removed from the library, still owned')

  const other = await person()
  t.same(await ids(other), { programIds: [], ownedIds: [] }, 'another user owns nothing of it')
  t.equal((await browser(stack.bff).get('/api/user/program-ids')).statusCode, 401, 'no session: no answer')
})

t.test('GET /api/user/programs?view=owned lists what the user bought, saved or not; the default view is the library', async (t) => {
  const tab = await person()
  t.same(await ownedView(tab), { total: 0, items: [], page: 1, pageSize: 24 }, 'nothing bought: an empty page')
  t.equal((await tab.send('POST', '/api/user/program/blender')).statusCode, 200)
  await buy(tab, ONE_TIME)
  await buy(tab, MONTHLY)
  t.equal((await tab.send('DELETE', `/api/user/program/${ONE_TIME}`)).statusCode, 200, 'the one-time purchase removed from the library')

  const owned = await ownedView(tab)
  t.same(owned.items.map((p) => p.id).sort(), [ONE_TIME, MONTHLY].sort(), 'both purchases, the unsaved one too, and no free program')
  t.same((await ownedView(tab, '&sort=recentlyAdded')).items.map((p) => p.id), [MONTHLY, ONE_TIME], 'recentlyAdded: the newest purchase first')
  t.same((await ownedView(tab, '&price=free')).total, 0, 'the filters apply to the view')
  t.same((await ownedView(tab, '&q=reaper')).items.map((p) => p.id), [ONE_TIME], 'and the search')

  const saved = (await tab.get('/api/user/programs')).json() as { items: Array<{ id: string }> }
  t.same(saved.items.map((p) => p.id).sort(), ['blender', MONTHLY].sort(), 'without view: the library as before')
  t.same((await tab.get('/api/user/programs?view=saved')).json(), saved, 'view=saved is the same')

  const bad = await tab.get('/api/user/programs?view=bought')
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { statusCode: 400, code: 'API_VALIDATION_FAILED', error: 'Bad Request' })
})

t.test('an ended subscription, a period run out on the API clock, or a refund: no longer owned', async (t) => {
  const tab = await person()
  const { paymentIntent } = await buy(tab, ONE_TIME)
  const { subscription } = await buy(tab, MONTHLY)
  t.same((await ids(tab)).ownedIds, [ONE_TIME, MONTHLY].sort())

  // The paid period runs out and no renewal event has come: the same rule streaming refuses by.
  const end = stripe.subscriptions.get(subscription!)!.items.data[0]!.current_period_end * 1000
  clockOffset += end - now() - 60_000
  t.same((await ids(tab)).ownedIds, [ONE_TIME, MONTHLY].sort(), 'a minute before the period ends: owned')
  clockOffset += end - now()
  t.same((await ids(tab)).ownedIds, [ONE_TIME], 'at the period end: not owned')
  t.same((await ownedView(tab)).items.map((p) => p.id), [ONE_TIME], 'nor in the Owned view')
  const streaming = (await tab.get('/api/user/streaming')).json() as { programs: Array<{ id: string; entitled: boolean }> }
  t.equal(streaming.programs.find((p) => p.id === MONTHLY)?.entitled, false, 'streaming says the same')

  // Stripe renewed it: owned again.
  const renewed = stripe.subscriptions.get(subscription!)!
  renewed.items.data[0]!.current_period_end = Math.floor(now() / 1000) + 30 * 86_400
  t.equal((await deliver(stripeEvent('customer.subscription.updated', renewed))).statusCode, 200)
  t.same((await ids(tab)).ownedIds, [ONE_TIME, MONTHLY].sort(), 'renewed: owned again')

  // Stripe deleted it, and the one-time purchase was refunded in full.
  t.equal((await deliver(stripeEvent('customer.subscription.deleted', { ...renewed, status: 'canceled' }))).statusCode, 200)
  const charge = { id: 'ch_test_owned', object: 'charge', payment_intent: paymentIntent, amount: 6000, amount_refunded: 6000, refunded: true }
  t.equal((await deliver(stripeEvent('charge.refunded', charge))).statusCode, 200)
  t.same(await ids(tab), { programIds: [ONE_TIME, MONTHLY].sort(), ownedIds: [] }, 'still saved, owned no more')
  t.same((await ownedView(tab)).total, 0)
})
