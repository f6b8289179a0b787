import net from 'node:net'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { buildStack, within } from '../../helpers.ts'
import { HEADERS_TIMEOUT_MS } from '../../../server/http/server-options.ts'

// Slow clients: a client that trickles its headers is cut at the headers timeout
// (10 s), not at Node's 30-second check interval (up to ~40 s before); one whose body stops
// flowing is cut at IDLE_TIMEOUT_MS, whatever the body deadline.

interface Outcome {
  answer: string
  closedAfterMs: number
}

/** Opens a raw connection, runs `talk` on it, and reports what came back and when it closed. */
function rawClient(port: number, talk: (socket: net.Socket) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1')
    let answer = ''
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
    socket.on('error', () => {})
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }))
    socket.on('connect', () => talk(socket))
  })
}

t.test('a client trickling its headers is cut at the headers timeout with 408', async (t) => {
  const { bff } = await buildStack(t)
  await bff.listen({ host: '127.0.0.1', port: 0 })
  let timer: NodeJS.Timeout | undefined
  const outcome = await within(
    rawClient((bff.server.address() as AddressInfo).port, (socket) => {
      socket.write('GET /library HTTP/1.1\r\nHost: localhost\r\n')
      // One header byte every 500 ms: never idle, never done.
      let n = 0
      timer = setInterval(() => socket.writable && socket.write(n++ % 2 === 0 ? 'X' : '-'), 500)
    }),
    30_000,
  )
  clearInterval(timer)
  t.match(outcome.answer, /^HTTP\/1\.1 408 /, 'answered 408 Request Timeout')
  t.ok(outcome.closedAfterMs >= HEADERS_TIMEOUT_MS - 500, `not before the headers timeout (${outcome.closedAfterMs} ms)`)
  t.ok(outcome.closedAfterMs < HEADERS_TIMEOUT_MS + 5_000, `cut near the headers timeout, not at Node's 30-second check (${outcome.closedAfterMs} ms)`)
})

t.test('a body that stops flowing is cut at IDLE_TIMEOUT_MS, long before the body deadline', async (t) => {
  const { bff } = await buildStack(t, { env: { IDLE_TIMEOUT_MS: '1500' } })
  await bff.listen({ host: '127.0.0.1', port: 0 })
  const outcome = await within(
    rawClient((bff.server.address() as AddressInfo).port, (socket) => {
      // Half of a declared body, then nothing.
      socket.write('POST /auth/signin HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:3000\r\nrid: anti-csrf\r\nfdi-version: 4.2\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"formFields":')
    }),
    20_000,
  )
  t.equal(outcome.answer, '', 'nothing answered: the body never came')
  t.ok(outcome.closedAfterMs >= 1_400, `kept open while the idle time runs (${outcome.closedAfterMs} ms)`)
  t.ok(outcome.closedAfterMs < 15_000, `closed by the idle timeout, not the 30-second body deadline (${outcome.closedAfterMs} ms)`)
})
