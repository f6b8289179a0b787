import type net from 'node:net'
import { createLocalJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose'
import t from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { KEYBOARD_LAYOUTS } from '../../../shared/streaming.ts'
import { TEST_AUTH_CORE_API_KEY, buildStack, secondConnection, testBuildInfo, testConfig, signedInPerson, type Tab } from '../../helpers.ts'
import { signedDelivery, startStripeFake, stripeEvent } from '../../stripe-fake.ts'

// Streaming (decision 017) through the BFF as the page calls it, and on the API itself
// where a second instance is the point: the contract, least-loaded choice and fallback, the
// capacity under parallel requests from one and from two instances, expiry on an injected clock,
// grants verified with nothing but the published JWKS, and every STREAMING_* code.

const CLUSTERS = [
  { id: 'fra-1', region: 'eu-central', url: 'https://fra-1.stream.example.com/play', capacity: 2 },
  { id: 'fra-2', region: 'eu-central', url: 'https://fra-2.stream.example.com/play', capacity: 1 },
  { id: 'nyc-1', region: 'us-east', url: 'http://127.0.0.1:9/play', capacity: 1 },
]
const CAPACITY = CLUSTERS.reduce((sum, cluster) => sum + cluster.capacity, 0)
const MINUTE = 60_000
let clockOffset = 0
const now = () => Date.now() + clockOffset
// Paid programs are bought through the real checkout, against the local Stripe fake.
const STRIPE_SECRET_KEY = 'sk_test_streaming0123456789'
const STRIPE_WEBHOOK_SECRET = 'whsec_streaming0123456789abcdef'
const stripe = await startStripeFake(t, { secretKey: STRIPE_SECRET_KEY })
const stack = await buildStack(t, {
  auth: true,
  env: {
    AUTH_RATE_LIMIT_MAX: '1000',
    RATE_LIMIT_MAX: '100000',
    STREAMING_CLUSTERS: JSON.stringify(CLUSTERS),
    STREAMING_ASSIGNMENT_MINUTES: '10',
    STRIPE_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET,
    STRIPE_API_URL: stripe.url,
  },
  now,
})
const coreUrl = `http://127.0.0.1:${(stack.authCore!.server.address() as net.AddressInfo).port}`

interface Person {
  tab: Tab
  userId: string
  token: () => string
}

/** A fully signed-in user with Blender (desktop) and Penpot (web only) in the library. */
async function person(): Promise<Person> {
  const { tab, userId } = await signedInPerson(stack, 'streamer')
  for (const program of ['blender', 'penpot']) {
    const added = await tab.post(`/api/user/program/${program}`)
    if (added.statusCode !== 200) throw new Error(`adding ${program}: ${added.body}`)
  }
  return { tab, userId, token: () => tab.jar.get('sAccessToken')! }
}

function call(who: Person, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) {
  return stack.bff.inject({
    method,
    url,
    headers: {
      cookie: who.tab.jar.header(url),
      rid: 'anti-csrf',
      origin: 'http://localhost:3000',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  })
}

const assign = (who: Person, body: Record<string, unknown>) => call(who, 'POST', '/api/user/assign-cluster', body)
const stop = (who: Person) => call(who, 'DELETE', '/api/user/assign-cluster')

/** The API itself (as the BFF calls it), at `base`: another instance in the two-instance test. */
function direct(who: Person, base: string, method: 'POST' | 'GET', url: string, body?: unknown) {
  return fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${who.token()}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
}

const liveCount = async () =>
  Number((await stack.db.query<{ n: string | number }>('SELECT count(*) AS n FROM api.streaming_assignments WHERE expires_at > $1', [new Date(now())])).rows[0]!.n)

/** Every assignment made so far ends: the next test starts with all places free. */
function endAll(): void {
  clockOffset += 24 * 60 * MINUTE
}

async function jwks() {
  const answer = await stack.bff.inject({ method: 'GET', url: '/api/streaming/jwks' })
  t.equal(answer.statusCode, 200)
  return createLocalJWKSet(answer.json())
}

const [alice, bob, carol, dave, erin] = [await person(), await person(), await person(), await person(), await person()]

t.test('the keyboard layouts: about 23 languages with names, one list for page and API', async (t) => {
  const answer = await stack.bff.inject({ method: 'GET', url: '/api/streaming/keyboard-layouts' })
  t.equal(answer.statusCode, 200)
  const layouts = answer.json() as Array<{ id: string; language: string; name: string }>
  t.same(layouts, KEYBOARD_LAYOUTS)
  t.ok(layouts.length >= 23)
  t.equal(new Set(layouts.map((layout) => layout.language)).size, 22, 'English twice (US, UK), every other language once')
  for (const name of ['English (US)', 'English (UK)', 'German (QWERTZ)', 'French (AZERTY)', 'Czech (QWERTZ)', 'Polish (Programmer)', 'Romanian (Standard)']) {
    t.ok(layouts.some((layout) => layout.name === name), name)
  }
})

t.test('a visitor gets nothing: the page state and the assignment need a session', async (t) => {
  const visitor = await stack.bff.inject({ method: 'GET', url: '/api/user/streaming' })
  t.equal(visitor.statusCode, 401)
  const post = await stack.bff.inject({
    method: 'POST',
    url: '/api/user/assign-cluster',
    headers: { rid: 'anti-csrf', origin: 'http://localhost:3000', 'content-type': 'application/json' },
    payload: JSON.stringify({ programId: 'blender', keyboardLayout: 'en-US' }),
  })
  t.equal(post.statusCode, 401)
})

t.test('assign: the least-loaded cluster of the region, a grant a cluster verifies with the JWKS alone, the same assignment when asked again', async (t) => {
  const state = await call(alice, 'GET', '/api/user/streaming')
  t.equal(state.statusCode, 200)
  t.equal(state.headers['cache-control'], 'no-store')
  t.same(state.json(), {
    available: true,
    regions: [
      { id: 'eu-central', free: 3 },
      { id: 'us-east', free: 1 },
    ],
    keyboardLayout: 'en-US',
    programs: [{ id: 'blender', name: 'Blender', entitled: true }],
    assignment: null,
  }, 'the default layout is the one of the account\'s language; a web-only program is not offered')

  const first = await assign(alice, { programId: 'blender', region: 'eu-central', keyboardLayout: 'de-DE' })
  t.equal(first.statusCode, 201, first.body)
  t.equal(first.headers['cache-control'], 'no-store')
  const body = first.json()
  // All empty: the one with the most free places.
  t.match(body, { clusterId: 'fra-1', region: 'eu-central', url: 'https://fra-1.stream.example.com/play', programId: 'blender', keyboardLayout: 'de-DE', fallback: false })
  t.equal(Date.parse(body.expiresAt) - Math.floor(now() / 1000) * 1000 <= 10 * MINUTE, true)
  t.ok(Date.parse(body.expiresAt) > now() + 9 * MINUTE, 'STREAMING_ASSIGNMENT_MINUTES long')

  // A cluster knows the JWKS and its own id, nothing else.
  const { payload, protectedHeader } = await jwtVerify(body.token, await jwks(), { audience: 'fra-1', issuer: 'http://localhost:3000', algorithms: ['ES256'], currentDate: new Date(now()) })
  t.equal(protectedHeader.typ, 'softshelf-stream+jwt')
  t.match(payload, { sub: alice.userId, aud: 'fra-1', program: 'blender', cluster: 'fra-1', region: 'eu-central', layout: 'de-DE' })
  t.equal(payload.exp! * 1000, Date.parse(body.expiresAt), 'exp is expiresAt')
  await t.rejects(jwtVerify(body.token, await jwks(), { audience: 'fra-2', currentDate: new Date(now()) }), joseErrors.JWTClaimValidationFailed, 'another cluster refuses it')

  const again = await assign(alice, { programId: 'blender', region: 'us-east', keyboardLayout: 'fr-FR' })
  t.equal(again.statusCode, 200)
  t.match(again.json(), { clusterId: 'fra-1', region: 'eu-central', expiresAt: body.expiresAt, keyboardLayout: 'de-DE' }, 'the live one, as it is')
  t.equal(await liveCount(), 1, 'counted once')

  const remembered = (await call(alice, 'GET', '/api/user/streaming')).json()
  t.equal(remembered.keyboardLayout, 'de-DE', 'the layout is remembered on the account')
  t.match(remembered.assignment, { clusterId: 'fra-1', expiresAt: body.expiresAt })
  t.same(remembered.regions, [{ id: 'eu-central', free: 2 }, { id: 'us-east', free: 1 }])

  const other = await assign(alice, { programId: 'gimp', keyboardLayout: 'de-DE' })
  t.equal(other.statusCode, 400, 'gimp is not in the library')
  await alice.tab.post('/api/user/program/gimp')
  const conflict = await assign(alice, { programId: 'gimp', keyboardLayout: 'de-DE' })
  t.equal(conflict.statusCode, 409)
  t.match(conflict.json(), { code: 'STREAMING_ALREADY_ASSIGNED', message: /already streaming "Blender"/ })

  // Least loaded by share of capacity: fra-2 (0/1) before fra-1 (1/2), then fra-1 (1/2) before a full fra-2.
  t.equal((await assign(bob, { programId: 'blender', region: 'eu-central', keyboardLayout: 'en-GB' })).json().clusterId, 'fra-2')
  t.equal((await assign(carol, { programId: 'blender', region: 'eu-central', keyboardLayout: 'en-GB' })).json().clusterId, 'fra-1')
  const fallback = await assign(dave, { programId: 'blender', region: 'eu-central', keyboardLayout: 'cs-CZ' })
  t.equal(fallback.statusCode, 201)
  t.match(fallback.json(), { clusterId: 'nyc-1', region: 'us-east', fallback: true }, 'the region is full: another region, and the answer says so')

  const full = await assign(erin, { programId: 'blender', keyboardLayout: 'en-US' })
  t.equal(full.statusCode, 503, 'the BFF passes the deliberate 503 through')
  t.match(full.json(), { code: 'STREAMING_CLUSTERS_FULL', message: /full right now/ })
  const retryAfter = Number(full.headers['retry-after'])
  t.ok(retryAfter > 9 * 60 && retryAfter <= 10 * 60, `Retry-After until the first assignment ends (${retryAfter} s)`)

  const stopped = await stop(bob)
  t.equal(stopped.statusCode, 204)
  t.equal((await stop(bob)).statusCode, 204, 'ending none is fine')
  t.match((await assign(erin, { programId: 'blender', keyboardLayout: 'en-US' })).json(), { clusterId: 'fra-2' }, 'the place Bob left is taken')
  t.equal(await liveCount(), CAPACITY)
  endAll()
})

t.test('expiry: an assignment ends at expiresAt, its place is free again and its grant refused', async (t) => {
  const first = (await assign(alice, { programId: 'blender', region: 'us-east', keyboardLayout: 'en-US' })).json()
  t.equal(first.clusterId, 'nyc-1')
  const end = Date.parse(first.expiresAt)
  const keys = await jwks()

  clockOffset += end - now() - 1000
  t.match((await call(alice, 'GET', '/api/user/streaming')).json().assignment, { clusterId: 'nyc-1' }, 'a second before the end: live')
  t.match((await assign(bob, { programId: 'blender', region: 'us-east', keyboardLayout: 'en-US' })).json(), { clusterId: 'fra-1', fallback: true }, 'its place is still taken')

  clockOffset += 1000
  t.equal((await call(alice, 'GET', '/api/user/streaming')).json().assignment, null, 'at expiresAt: ended')
  await t.rejects(jwtVerify(first.token, keys, { audience: 'nyc-1', currentDate: new Date(now()) }), joseErrors.JWTExpired)
  const next = await assign(carol, { programId: 'blender', region: 'us-east', keyboardLayout: 'en-US' })
  t.match(next.json(), { clusterId: 'nyc-1', fallback: false }, 'the place is free again')
  const renewed = await assign(alice, { programId: 'blender', region: 'eu-central', keyboardLayout: 'en-US' })
  t.equal(renewed.statusCode, 201, 'asking again after the end makes a new assignment')
  t.not(renewed.json().expiresAt, first.expiresAt)
  endAll()
})

t.test('errors: each with its stable code and a sentence a person understands', async (t) => {
  const cases: Array<[Record<string, unknown>, number, string]> = [
    [{ programId: 'no-such-program', keyboardLayout: 'en-US' }, 404, 'STREAMING_PROGRAM_NOT_FOUND'],
    [{ programId: 'houdini', keyboardLayout: 'en-US' }, 400, 'STREAMING_NOT_IN_LIBRARY'],
    [{ programId: 'penpot', keyboardLayout: 'en-US' }, 400, 'STREAMING_NOT_STREAMABLE'],
    [{ programId: 'blender', keyboardLayout: 'xx-QWERTY' }, 400, 'STREAMING_UNKNOWN_LAYOUT'],
    [{ programId: 'blender', region: 'mars-north', keyboardLayout: 'en-US' }, 400, 'STREAMING_UNKNOWN_REGION'],
  ]
  for (const [body, status, code] of cases) {
    const answer = await assign(alice, body)
    t.equal(answer.statusCode, status, code)
    t.equal(answer.json().code, code)
    t.match(answer.json().message, /^[A-Z].+\.$/, 'a full sentence')
  }
  t.equal(await liveCount(), 0, 'nothing was assigned')
})

/** Buys a paid program through the real checkout: Stripe's page paid, the success page read. */
async function buy(who: Person, programId: string): Promise<{ sessionId: string; paymentIntent: string | null; subscription: string | null }> {
  const started = await call(who, 'POST', '/api/user/checkout', { programId })
  if (started.statusCode !== 200) throw new Error(`checkout ${programId}: ${started.body}`)
  const session = stripe.complete(/\/pay\/([^/?]+)$/.exec(started.json().url as string)![1]!)
  const back = await call(who, 'GET', `/api/user/checkout/${session.id}`)
  if (back.json().status !== 'paid') throw new Error(`success page: ${back.body}`)
  return { sessionId: session.id, paymentIntent: session.payment_intent, subscription: session.subscription }
}

/** Stripe delivering a signed event, stamped with the API's (moved) clock. */
function deliver(event: object) {
  const { payload, signature } = signedDelivery(event, STRIPE_WEBHOOK_SECRET, Math.floor(now() / 1000))
  return stack.bff.inject({ method: 'POST', url: '/api/stripe/webhook', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature }, payload })
}

const streamingPrograms = async (who: Person) => (await call(who, 'GET', '/api/user/streaming')).json().programs as Array<{ id: string; name: string; entitled: boolean }>

t.test('a paid program in the library but not bought: not offered, and assigning it is 403 STREAMING_NOT_OWNED (issue 26)', async (t) => {
  const buyer = await person()
  // Adding to the library is free, whatever the price.
  for (const program of ['autocad', 'houdini']) t.equal((await buyer.tab.post(`/api/user/program/${program}`)).statusCode, 200, `${program} added to the library`)
  t.same(await streamingPrograms(buyer), [
    { id: 'autocad', name: 'AutoCAD', entitled: false },
    { id: 'blender', name: 'Blender', entitled: true },
    { id: 'houdini', name: 'Houdini', entitled: false },
  ], 'the page learns which it may offer')

  for (const programId of ['autocad', 'houdini']) {
    const refused = await assign(buyer, { programId, keyboardLayout: 'en-US' })
    t.equal(refused.statusCode, 403, programId)
    t.equal(refused.json().code, 'STREAMING_NOT_OWNED')
    t.match(refused.json().message, /^".+" is a paid program: buy it/)
    t.match(refused.json(), { statusCode: 403, error: 'Forbidden', requestId: /./ })
  }
  // Every spelling the router accepts reaches the same check; other ids are other (unknown) programs.
  const spellings: Array<[string, Record<string, unknown>]> = [
    ['/api/user/assign-cluster?programId=blender', { programId: 'autocad', keyboardLayout: 'en-US' }],
    ['/api/user/assign-cluster/', { programId: 'autocad', keyboardLayout: 'en-US' }],
    ['/api/user/assign-cluster', { programId: 'autocad', region: 'eu-central', keyboardLayout: 'en-US' }],
    ['/api/user/assign-cluster', { programId: 'AutoCAD', keyboardLayout: 'en-US' }],
    ['/api/user/assign-cluster', { programId: 'autocad ', keyboardLayout: 'en-US' }],
  ]
  for (const [url, body] of spellings) {
    const answer = await call(buyer, 'POST', url, body)
    t.ok(answer.statusCode >= 400 && answer.statusCode < 500, `${url} ${JSON.stringify(body)} → ${answer.statusCode}`)
  }
  t.equal(await liveCount(), 0, 'no grant was handed out')
  t.equal((await assign(buyer, { programId: 'blender', keyboardLayout: 'en-US' })).statusCode, 201, 'a free program streams as before')
  t.equal((await stop(buyer)).statusCode, 204)

  t.test('bought once: it streams; refunded in full: it no longer does', async (t) => {
    const { paymentIntent } = await buy(buyer, 'houdini')
    t.same((await streamingPrograms(buyer)).find((program) => program.id === 'houdini'), { id: 'houdini', name: 'Houdini', entitled: true })
    const started = await assign(buyer, { programId: 'houdini', keyboardLayout: 'en-US' })
    t.equal(started.statusCode, 201, started.body)
    t.equal((await stop(buyer)).statusCode, 204)
    const charge = { id: 'ch_test_streaming', object: 'charge', payment_intent: paymentIntent, amount: 449_500, amount_refunded: 449_500, refunded: true }
    t.equal((await deliver(stripeEvent('charge.refunded', charge))).statusCode, 200)
    t.equal((await assign(buyer, { programId: 'houdini', keyboardLayout: 'en-US' })).json().code, 'STREAMING_NOT_OWNED', 'refunded: refused')
    t.equal((await streamingPrograms(buyer)).find((program) => program.id === 'houdini')!.entitled, false)
  })

  t.test('a subscription streams until its paid period ends, on the API\'s clock, whatever the webhook says', async (t) => {
    const { subscription } = await buy(buyer, 'autocad')
    const end = stripe.subscriptions.get(subscription!)!.items.data[0]!.current_period_end * 1000
    clockOffset += end - now() - 60_000
    const before = await assign(buyer, { programId: 'autocad', keyboardLayout: 'en-US' })
    t.equal(before.statusCode, 201, 'a minute before the period ends')
    t.equal((await stop(buyer)).statusCode, 204)
    t.equal((await streamingPrograms(buyer)).find((program) => program.id === 'autocad')!.entitled, true)

    clockOffset += end - now()
    const atEnd = await assign(buyer, { programId: 'autocad', keyboardLayout: 'en-US' })
    t.equal(atEnd.statusCode, 403, 'at the period end (no deletion event has come): refused')
    t.equal(atEnd.json().code, 'STREAMING_NOT_OWNED')
    t.equal((await streamingPrograms(buyer)).find((program) => program.id === 'autocad')!.entitled, false)
    clockOffset += 3_600_000
    t.equal((await assign(buyer, { programId: 'autocad', keyboardLayout: 'en-US' })).statusCode, 403, 'and after it')

    // Stripe renewed it: its update moves the period end, and it streams again.
    const renewed = stripe.subscriptions.get(subscription!)!
    renewed.items.data[0]!.current_period_end = Math.floor(now() / 1000) + 30 * 86_400
    t.equal((await deliver(stripeEvent('customer.subscription.updated', renewed))).statusCode, 200)
    t.equal((await assign(buyer, { programId: 'autocad', keyboardLayout: 'en-US' })).statusCode, 201, 'renewed: streams again')
    t.equal((await stop(buyer)).statusCode, 204)
    endAll()
  })
})

t.test('the anti-forgery rule: a write without the custom header, from another origin or as a form changes nothing', async (t) => {
  const attempts: Array<Record<string, string>> = [
    { rid: '' },
    { origin: 'https://evil.example' },
    { 'content-type': 'application/x-www-form-urlencoded' },
  ]
  for (const headers of attempts) {
    const answer = await call(alice, 'POST', '/api/user/assign-cluster', { programId: 'blender', keyboardLayout: 'en-US' }, headers)
    t.ok([401, 403].includes(answer.statusCode), `${JSON.stringify(headers)} → ${answer.statusCode}`)
  }
  t.equal(await liveCount(), 0)
  t.equal((await assign(alice, { programId: 'blender', keyboardLayout: 'en-US' })).statusCode, 201)
  for (const headers of attempts) {
    const answer = await call(alice, 'DELETE', '/api/user/assign-cluster', undefined, headers)
    t.ok([401, 403].includes(answer.statusCode), `DELETE ${JSON.stringify(headers)} → ${answer.statusCode}`)
  }
  t.equal(await liveCount(), 1, 'the assignment is still there')
  endAll()
})

t.test('parallel requests never take more places than there are', async (t) => {
  const crowd = [alice, bob, carol, dave, erin, await person(), await person()]
  const answers = await Promise.all(crowd.map((who) => assign(who, { programId: 'blender', region: 'eu-central', keyboardLayout: 'en-US' })))
  const statuses = answers.map((answer) => answer.statusCode).sort()
  t.same(statuses, [201, 201, 201, 201, 503, 503, 503], `${CAPACITY} assigned, the rest told the clusters are full`)
  const perCluster = new Map<string, number>()
  for (const answer of answers.filter((a) => a.statusCode === 201)) perCluster.set(answer.json().clusterId, (perCluster.get(answer.json().clusterId) ?? 0) + 1)
  for (const cluster of CLUSTERS) t.equal(perCluster.get(cluster.id), cluster.capacity, `${cluster.id} filled to its capacity, not beyond`)
  t.equal(await liveCount(), CAPACITY)
  // Asked twice at once by the same user: one assignment.
  endAll()
  const twice = await Promise.all([assign(alice, { programId: 'blender', keyboardLayout: 'en-US' }), assign(alice, { programId: 'blender', keyboardLayout: 'en-US' })])
  t.same(twice.map((answer) => answer.statusCode).sort(), [200, 201])
  t.equal(twice[0]!.json().clusterId, twice[1]!.json().clusterId)
  t.equal(await liveCount(), 1)
  endAll()
})

t.test('two API instances on one database count the same places', async (t) => {
  const other = await buildApi({ config: stack.config, db: await secondConnection(t, stack.db), buildInfo: testBuildInfo, authCoreUrl: coreUrl, authCoreApiKey: TEST_AUTH_CORE_API_KEY, now })
  await other.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => other.close())
  const otherUrl = `http://127.0.0.1:${(other.server.address() as net.AddressInfo).port}`
  const crowd = [alice, bob, carol, dave, erin, await person()]
  const answers = await Promise.all(
    crowd.map((who, index) => direct(who, index % 2 === 0 ? stack.apiUrl : otherUrl, 'POST', '/api/user/assign-cluster', { programId: 'blender', keyboardLayout: 'en-US' })),
  )
  t.same(answers.map((answer) => answer.status).sort(), [201, 201, 201, 201, 503, 503])
  t.equal(await liveCount(), CAPACITY, 'never counted twice')

  // Both sign with the one stored key: a grant from either verifies against either JWKS.
  const tokens = await Promise.all(answers.filter((answer) => answer.status === 201).map(async (answer) => (await answer.json()) as { token: string; clusterId: string }))
  const otherJwks = createLocalJWKSet((await (await fetch(`${otherUrl}/api/streaming/jwks`)).json()) as { keys: [] })
  const kids = new Set<string>()
  for (const grant of tokens) {
    kids.add(decodeProtectedHeader(grant.token).kid!)
    await jwtVerify(grant.token, otherJwks, { audience: grant.clusterId, currentDate: new Date(now()) })
  }
  t.equal(kids.size, 1, 'one key')
  t.equal((await (await fetch(`${stack.apiUrl}/api/streaming/jwks`)).json()).keys.length, 1)
  endAll()
})

t.test('no clusters configured: the page state says so and assigning answers 503 STREAMING_NOT_CONFIGURED', async (t) => {
  const config = testConfig(t, { STREAMING_CLUSTERS: '[]' })
  const off = await buildApi({ config, db: await secondConnection(t, stack.db), buildInfo: testBuildInfo, authCoreUrl: coreUrl, authCoreApiKey: TEST_AUTH_CORE_API_KEY, now })
  await off.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => off.close())
  const offUrl = `http://127.0.0.1:${(off.server.address() as net.AddressInfo).port}`
  const state = (await (await direct(alice, offUrl, 'GET', '/api/user/streaming')).json()) as { available: boolean; regions: unknown[]; assignment: unknown }
  t.match(state, { available: false, regions: [], assignment: null })
  const answer = await direct(alice, offUrl, 'POST', '/api/user/assign-cluster', { programId: 'blender', keyboardLayout: 'en-US' })
  t.equal(answer.status, 503)
  t.match(await answer.json(), { code: 'STREAMING_NOT_CONFIGURED', message: /Streaming is not available/ })
  t.equal(await liveCount(), 0)
})
