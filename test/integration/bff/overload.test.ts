import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { buildStack, waitUntil, within } from '../../helpers.ts'

// Overload: past the event-loop delay or the in-flight cap new requests get 503
// BFF_OVERLOADED with Retry-After at once, probes and metrics are still answered, and the service
// takes requests again by itself once the load is gone. Over real HTTP: the refusal is written in
// Node's own request listener, before Fastify. The event loop's lag is the test's signal
// (eventLoopLags) — CPU burned to make it let a request through now and then on a busy machine;
// that a real lag is measured and shed is test/unit/server/load-shedding.test.ts's.

/**
 * An upstream API that answers /api/quick at once, holds /api/slow until released, and streams
 * /api/stream: headers at once, the body when released (as a file download would).
 */
async function holdingUpstream(t: Test): Promise<{ url: string; held: Array<() => void>; arrivals: () => number }> {
  const held: Array<() => void> = []
  let arrivals = 0
  const upstream = http.createServer((req, res) => {
    arrivals++
    if (req.url?.startsWith('/api/stream')) {
      // A file download: streamed through (JSON answers are read whole first).
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      res.write('first half, ')
      held.push(() => res.end('second half'))
      return
    }
    res.setHeader('content-type', 'application/json')
    if (req.url?.startsWith('/api/slow')) {
      held.push(() => res.end('{"done":true}'))
      return
    }
    res.end('{"quick":true}')
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => upstream.close(() => resolve())))
  return { url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, held, arrivals: () => arrivals }
}

t.test('an event loop lagging past the threshold sheds new requests; probes stay answered; it recovers', async (t) => {
  // Every new request refused while the loop lags (the rule that admits a few is the next test's).
  let lagging = false
  const stack = await buildStack(t, { env: { OVERLOAD_EVENT_LOOP_DELAY_MS: '40', OVERLOAD_PRESSURE_IN_FLIGHT: '0' }, eventLoopLags: () => lagging })
  await stack.bff.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(stack.bff.server.address() as AddressInfo).port}`
  const calm = await request(`${base}/api/categories`)
  t.equal(calm.statusCode, 200, 'answered while the loop keeps up')
  await calm.body.dump()

  // The BFF's event loop lags, as under a burst of page renders.
  lagging = true

  const refused = await request(`${base}/api/categories`, { headers: { accept: 'application/json' } })
  t.equal(refused.statusCode, 503)
  t.equal(refused.headers['retry-after'], '2')
  t.equal(refused.headers['cache-control'], 'no-store')
  t.equal(refused.headers['x-content-type-options'], 'nosniff', 'the BFF security headers are on the refusal too')
  const body = (await refused.body.json()) as Record<string, unknown>
  t.match(body, { statusCode: 503, code: 'BFF_OVERLOADED', error: 'Service Unavailable', message: /busy.*try again in 2 seconds/ })
  t.equal(body.requestId, refused.headers['x-request-id'])

  // A person's browser gets a page in their language that tries again by itself, not JSON.
  const page = await request(`${base}/library`, { headers: { accept: 'text/html,application/xhtml+xml', cookie: 'consent=analytics:denied; lang=de' } })
  t.equal(page.statusCode, 503, 'pages are shed too')
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(page.headers['retry-after'], '2')
  t.equal(page.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'; base-uri 'none'")
  const html = await page.body.text()
  t.match(html, /<html lang="de">/)
  t.match(html, /<meta http-equiv="refresh" content="2">/, 'it reloads once Retry-After has passed')
  t.match(html, /<h1>Softshelf ist überlastet<\/h1>/)
  const slovak = await request(`${base}/`, { headers: { accept: 'text/html', 'accept-language': 'sk-SK,sk;q=0.9,en;q=0.5' } })
  t.match(await slovak.body.text(), /<h1>Softshelf je preťažený<\/h1>/, 'Accept-Language without a cookie')
  const fetchApi = await request(`${base}/api/categories`, { headers: { accept: 'application/json, text/plain, */*' } })
  t.match(await fetchApi.body.json(), { code: 'BFF_OVERLOADED' }, 'an API call still gets JSON')
  for (const probe of ['/healthz', '/readyz']) {
    const answer = await request(`${base}${probe}`)
    t.equal(answer.statusCode, 200, `${probe} is always answered`)
    await answer.body.dump()
  }
  const metrics = await request(`${base}/metrics`, { headers: { authorization: `Bearer ${stack.operatorToken}` } })
  t.equal(metrics.statusCode, 200, '/metrics is always answered')
  t.match(await metrics.body.text(), /softshelf_http_shed_total\{reason="event-loop",service="bff"\} [1-9]/)

  lagging = false
  const again = await request(`${base}/api/categories`)
  t.equal(again.statusCode, 200, 'requests are answered again once the load is gone')
  await again.body.dump()
})

t.test('past the in-flight cap new requests are refused at once; answered headers free a place; keep-alive survives a refusal', async (t) => {
  const upstream = await holdingUpstream(t)
  const { held } = upstream
  const stack = await buildStack(t, { env: { OVERLOAD_MAX_IN_FLIGHT: '2' }, upstreamApiUrl: upstream.url })
  await stack.bff.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(stack.bff.server.address() as AddressInfo).port}`
  const waitForArrivals = (count: number) => within(waitUntil(() => upstream.arrivals() >= count), 5_000)

  const slow = [request(`${base}/api/slow?1`), request(`${base}/api/slow?2`)]
  await waitForArrivals(2)
  // One connection, kept alive across the refusal.
  const single = new Agent({ connections: 1, pipelining: 1 })
  t.teardown(() => single.close())
  const refused = await request(`${base}/api/quick`, { dispatcher: single })
  t.equal(refused.statusCode, 503, 'the third request is refused while two wait')
  t.match(await refused.body.json(), { code: 'BFF_OVERLOADED' })
  t.equal(upstream.arrivals(), 2, 'the refused request never reached the upstream')
  const probe = await request(`${base}/healthz`, { dispatcher: single })
  t.equal(probe.statusCode, 200, 'a probe on the same connection is answered')
  await probe.body.dump()

  for (const release of held.splice(0)) release()
  for (const answer of await Promise.all(slow)) t.same(await answer.body.json(), { done: true })
  const again = await request(`${base}/api/quick`, { dispatcher: single })
  t.equal(again.statusCode, 200, 'answered again, on the connection that was refused')
  t.same(await again.body.json(), { quick: true })

  // Streamed answers whose headers have gone out do not hold a place.
  const streams = [await request(`${base}/api/stream?1`), await request(`${base}/api/stream?2`)]
  const meanwhile = await request(`${base}/api/quick`)
  t.equal(meanwhile.statusCode, 200, 'two long downloads do not shut everyone else out')
  await meanwhile.body.dump()
  for (const release of held.splice(0)) release()
  for (const stream of streams) t.equal(await stream.body.text(), 'first half, second half')
})

t.test('while the event loop lags, requests are admitted until OVERLOAD_PRESSURE_IN_FLIGHT are in flight: the CPU always has that much to do', async (t) => {
  const upstream = await holdingUpstream(t)
  const { held } = upstream
  const stack = await buildStack(t, {
    env: { OVERLOAD_EVENT_LOOP_DELAY_MS: '40', OVERLOAD_PRESSURE_IN_FLIGHT: '2' },
    upstreamApiUrl: upstream.url,
    eventLoopLags: () => true,
  })
  await stack.bff.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(stack.bff.server.address() as AddressInfo).port}`

  const first = await request(`${base}/api/quick`)
  t.equal(first.statusCode, 200, 'nothing in flight: admitted although the loop lags')
  t.same(await first.body.json(), { quick: true })
  const slow = [request(`${base}/api/slow?1`), request(`${base}/api/slow?2`)]
  await within(waitUntil(() => upstream.arrivals() >= 3), 10_000)
  const refused = await request(`${base}/api/quick`, { headers: { accept: 'application/json' } })
  t.equal(refused.statusCode, 503, 'two in flight and the loop lagging: refused')
  t.match(await refused.body.json(), { code: 'BFF_OVERLOADED' })
  t.equal(upstream.arrivals(), 3, 'the refused request never reached the upstream')

  for (const release of held.splice(0)) release()
  for (const answer of await Promise.all(slow)) t.same(await answer.body.json(), { done: true })
  const again = await request(`${base}/api/quick`)
  t.equal(again.statusCode, 200, 'admitted again once those in hand were answered, while the loop still lags')
  await again.body.dump()
})
