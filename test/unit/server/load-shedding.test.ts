import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import t from 'tap'
import { request } from 'undici'
import { installLoadShedding } from '../../../server/http/load-shedding.ts'
import { busyEventLoop, waitUntil } from '../../helpers.ts'

// The one place a real event-loop lag is made: the integration tests (bff/ and api/overload) set
// the lag as a signal, so what they assert cannot slip between two measurements on a busy machine.
// This proves the signal they stand in for: @fastify/under-pressure measures a lagging loop, new
// requests get 503 while it lags, and they are answered again once it keeps up.

t.test('a real event-loop lag is measured and sheds new requests; they are answered again once it is gone', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  let refusals = 0
  await installLoadShedding(app, {
    prefix: 'TEST',
    maxEventLoopDelayMs: 40,
    maxInFlight: 0,
    sampleIntervalMs: 100,
    requestId: () => 'req-test',
    onShed: (reason) => {
      if (reason === 'event-loop') refusals++
    },
  })
  app.get('/work', async () => ({ done: true }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/work`
  const statusOf = async (): Promise<number> => {
    const answer = await request(url, { headers: { accept: 'application/json' } })
    if (answer.statusCode === 503) t.match(await answer.body.json(), { code: 'TEST_OVERLOADED', requestId: 'req-test' })
    else await answer.body.dump()
    return answer.statusCode
  }

  // Whatever else this machine does, a calm loop is reached and answered.
  await waitUntil(async () => (await statusOf()) === 200, 30_000)

  // CPU-bound turns on this process's event loop, as a burst of renders would be: a refusal comes.
  const stopHog = busyEventLoop(t)
  await waitUntil(async () => (await statusOf()) === 503, 30_000)
  t.ok(refusals > 0, 'the refusal is counted as the event loop\'s')

  stopHog()
  await waitUntil(async () => (await statusOf()) === 200, 30_000)
  t.pass('answered again once the loop keeps up')
})
