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
  await t.rejects(fetch(`${url}/healthz`), 'new connections are refused while closing')
  release?.()
  t.same(await inFlight, { status: 200, body: { done: true } }, 'the in-flight request completed')
  await closing
})
