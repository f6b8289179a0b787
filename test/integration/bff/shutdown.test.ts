import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { buildStack } from '../../helpers.ts'

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
  for (let look = 0; look < 500 && bff.server.listening; look++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.notOk(bff.server.listening, 'the listener closes with a request still in flight')
  await t.rejects(fetch(`${url}/healthz`), 'new connections are refused once it has')
  release?.()
  t.same(await inFlight, { status: 200, body: { done: true } }, 'the in-flight request completed')
  await closing
})
