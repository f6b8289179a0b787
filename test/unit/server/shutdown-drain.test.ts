import net from 'node:net'
import Fastify from 'fastify'
import t from 'tap'
import { shutdown } from '../../../server/http/shutdown.ts'

// The listener's last moments ("Shutdown"; found by the shutdown-under-load test in CI).
// Closing a listening socket makes the kernel reset every connection it had already completed for
// the service and Node had not yet accepted: a client whose last answer said Connection: close
// opens its next connection at once, writes its request, and met ECONNRESET. The service now keeps
// its listener open, refusing, until it has been quiet for a moment.

async function service(drain?: { quietMs: number; maxMs: number }) {
  const app = Fastify()
  app.post('/write', async () => ({ written: true }))
  await app.register(shutdown, { prefix: 'API', requestId: () => 'req-1', ...(drain ? { drain } : {}) })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, port: (app.server.address() as net.AddressInfo).port }
}

/** One request on a new connection: its status line, or how the connection failed. */
function writeOnce(port: number): Promise<{ statusLine?: string; body?: string; connection?: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let received = ''
    socket.on('connect', () => socket.write('POST /write HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n'))
    socket.on('data', (chunk) => (received += chunk.toString('latin1')))
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
    socket.on('close', () => {
      if (!received) return resolve({})
      const [head, body] = received.split('\r\n\r\n')
      resolve({ statusLine: head!.split('\r\n')[0], body, connection: /\r\nconnection: ([^\r]*)/i.exec(head!)?.[1] })
    })
  })
}

t.test('a connection the kernel accepted as the service began closing is answered 503, never reset', async (t) => {
  for (let round = 0; round < 20; round++) {
    const { app, port } = await service()
    // The handshake completes in the kernel at once; the close begins before Node accepts it.
    const answer = writeOnce(port)
    const closed = app.close()
    const result = await answer
    await closed
    t.equal(result.error, undefined, `round ${round}: no reset`)
    t.equal(result.statusLine, 'HTTP/1.1 503 Service Unavailable', `round ${round}: refused in the service's way`)
    t.match(JSON.parse(result.body ?? '{}'), { code: 'API_SHUTTING_DOWN', requestId: 'req-1' })
    t.equal(result.connection, 'close')
  }
})

t.test('a client that never stops connecting does not hold the listener open past the drain', async (t) => {
  const { app, port } = await service({ quietMs: 50, maxMs: 200 })
  let stop = false
  const outcomes = new Map<string, number>()
  const hammer = (async () => {
    // Bounded: the listener closes after at most 200 ms; a failure ends the loop.
    for (let n = 0; n < 100_000 && !stop; n++) {
      const result = await writeOnce(port)
      const outcome = result.error ?? result.statusLine ?? 'closed without an answer'
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
      if (result.error) return
    }
  })()
  await app.close()
  stop = true
  await hammer
  t.ok((outcomes.get('HTTP/1.1 503 Service Unavailable') ?? 0) > 0, 'requests during the drain are refused 503')
  t.notOk(outcomes.has('ECONNRESET'), `none is reset (${JSON.stringify(Object.fromEntries(outcomes))})`)
  t.same(await writeOnce(port), { error: 'ECONNREFUSED' }, 'once closed, a new connection is refused')
})
