import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { stopServices } from '../../../server/http/shutdown.ts'
import { buildStack, waitUntil, within } from '../../helpers.ts'

t.test('closing the BFF lets an in-flight request finish and refuses new work', async (t) => {
  let release: (() => void) | undefined
  let arrived: (() => void) | undefined
  const reached = new Promise<void>((resolve) => (arrived = resolve))
  // An upstream that holds the request until the test releases it: the request is in flight.
  const upstream = http.createServer((_req, res) => {
    arrived?.()
    release = () => {
      res.setHeader('content-type', 'application/json')
      res.end('{"done":true}')
    }
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => upstream.close(() => resolve())))
  const { bff } = await buildStack(t, { upstreamApiUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })
  await bff.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(bff.server.address() as AddressInfo).port}`

  const inFlight = fetch(`${url}/api/slow`).then(async (response) => ({ status: response.status, body: await response.json() }))
  await reached
  const closing = bff.close()
  // The listener stays open until the BFF has been quiet for a moment (server/http/shutdown.ts):
  // a request arriving meanwhile is refused in the BFF's error shape, and nothing of it is done.
  const refused = await fetch(`${url}/healthz`)
  t.equal(refused.status, 503, 'a request arriving while it closes is refused')
  t.equal(refused.headers.get('connection'), 'close')
  t.match(await refused.json(), { code: 'BFF_SHUTTING_DOWN' })
  // Then the listener closes, the request in flight still running: a new connection is refused.
  await waitUntil(() => !bff.server.listening, 5_000, { every: 10, what: 'the listener closes' })
  t.notOk(bff.server.listening, 'the listener closes with a request still in flight')
  await t.rejects(fetch(`${url}/healthz`), 'new connections are refused once it has')
  release?.()
  t.same(await inFlight, { status: 200, body: { done: true } }, 'the in-flight request completed')
  await closing
})

t.test('a planned stop: /readyz fails first while every other request is still served, then the drain (issue 26)', async (t) => {
  const { bff, api, authCore } = await buildStack(t, { auth: true })
  await bff.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(bff.server.address() as AddressInfo).port}`
  t.equal((await fetch(`${url}/readyz`)).status, 200, 'ready before')

  // The delay's timer is the test's: the stop waits until the test lets it go on.
  let delayed: number | undefined
  let goOn: (() => void) | undefined
  const stopped = stopServices([bff, api, authCore!], {
    readinessDelayMs: 4_000,
    wait: (ms) => {
      delayed = ms
      return new Promise<void>((resolve) => (goOn = resolve))
    },
  })
  await waitUntil(() => goOn !== undefined)
  t.equal(delayed, 4_000, 'the configured delay')
  const ready = await fetch(`${url}/readyz`)
  t.equal(ready.status, 503, '/readyz fails at once, so the balancer sends elsewhere')
  t.match(await ready.json(), { code: 'BFF_NOT_READY', message: 'The app is not ready: it is stopping.' })
  t.equal(ready.headers.get('retry-after'), '2')
  const apiReady = await api.inject('/readyz')
  t.equal(apiReady.statusCode, 503, 'the API\'s too')
  t.equal(apiReady.json().code, 'API_NOT_READY')
  const coreReady = await authCore!.inject('/readyz')
  t.equal(coreReady.statusCode, 503, 'and the auth core\'s')
  t.equal(coreReady.json().code, 'AUTHCORE_NOT_READY')
  t.equal(coreReady.headers['retry-after'], '2')
  for (let i = 0; i < 3; i++) {
    const served = await fetch(`${url}/api/version`)
    t.equal(served.status, 200, 'what the balancer still sends is served normally')
    t.equal(served.headers.get('connection'), 'keep-alive', 'on a connection kept open')
  }
  t.equal((await fetch(`${url}/healthz`)).status, 200, 'the process is alive')
  t.ok(bff.server.listening, 'nothing is closed during the delay')

  goOn!()
  await waitUntil(async () => {
    const answer = await fetch(`${url}/api/version`).catch(() => undefined)
    return answer === undefined || answer.status === 503
  })
  await within(stopped)
  t.notOk(bff.server.listening, 'then it drains and closes')
  await t.rejects(fetch(`${url}/healthz`), 'new connections are refused once it has')
})
