import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import t from 'tap'
import { request } from 'undici'
import { loadShedding } from '../../../server/http/load-shedding.ts'
import { busyEventLoop, waitUntil } from '../../helpers.ts'

// The one place a real event-loop lag is made: the integration tests (bff/ and api/overload) set
// the lag as a signal, so what they assert cannot slip between two measurements on a busy machine.
// This proves the signal they stand in for: EventLoopDelay measures a lagging loop, new
// requests get 503 while it lags, and they are answered again once it keeps up.

t.test('a real event-loop lag is measured and sheds new requests; they are answered again once it is gone', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  let refusals = 0
  await app.register(loadShedding, {
    prefix: 'API',
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
    if (answer.statusCode === 503) t.match(await answer.body.json(), { code: 'API_OVERLOADED', requestId: 'req-test' })
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

t.test('a request whose body may take minutes (longBody) stops counting as it arrives; any other holds its place until answered', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  await app.register(loadShedding, { prefix: 'API', maxEventLoopDelayMs: 0, maxInFlight: 1, requestId: () => 'req-test' })
  const shedding = app.loadShedding
  const arrived = new Set<string>()
  app.addHook('onRequest', (request, _reply, done) => {
    arrived.add(request.url)
    done()
  })
  app.post('/upload', { config: { longBody: true } }, async (request) => ({ bytes: (request.body as string).length }))
  app.post('/form', async (request) => ({ bytes: (request.body as string).length }))
  app.get('/ping', async () => ({ pong: true }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as AddressInfo).port
  const ping = async () => (await request(`http://127.0.0.1:${port}/ping`)).statusCode

  /** Sends the headers and half the body; the rest when `finish` is called. */
  const halfSent = (path: string) => {
    const sent = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'text/plain', 'content-length': '10' } })
    const answered = new Promise<number>((resolve, reject) => {
      sent.on('response', (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      })
      sent.on('error', reject)
    })
    sent.write('12345')
    return { finish: () => sent.end('67890'), answered }
  }

  const upload = halfSent('/upload')
  await waitUntil(() => arrived.has('/upload'))
  t.equal(shedding.inFlight(), 0, 'the upload under way holds no place')
  t.equal(await ping(), 200, 'so another request is let in')
  upload.finish()
  t.equal(await upload.answered, 200)

  const form = halfSent('/form')
  await waitUntil(() => arrived.has('/form'))
  t.equal(shedding.inFlight(), 1, 'a form whose body is still coming holds the one place')
  t.equal(await ping(), 503, 'so the next request is refused')
  form.finish()
  t.equal(await form.answered, 200)
  await waitUntil(() => shedding.inFlight() === 0)
  t.equal(await ping(), 200, 'answered again once the form was')
})
