import net from 'node:net'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { bodyDeadline } from '../../../server/http/body-deadline.ts'

// The per-route body deadline: an ordinary request whose body stalls gets 408 and its
// connection closed; a route that says `longBody` (a tus PATCH) may take longer; a slow handler
// with its body all in is never cut.

const DEADLINE_MS = 150

async function server(t: Test) {
  const app = Fastify({ logger: false, requestTimeout: 0 })
  await app.register(bodyDeadline, { prefix: 'API', ms: DEADLINE_MS })
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
  app.post('/ordinary', async (request) => ({ bytes: (request.body as Buffer).length }))
  app.post('/long', { config: { longBody: true } }, async (request) => ({ bytes: (request.body as Buffer).length }))
  let releaseSlow: () => void = () => {}
  const slowStarted = new Promise<void>((started) => {
    app.post('/slow-handler', async () => {
      started()
      await new Promise<void>((resolve) => (releaseSlow = resolve))
      return { done: true }
    })
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  return { port: (app.server.address() as net.AddressInfo).port, slowStarted, releaseSlow: () => releaseSlow() }
}

/** A raw connection: sends the head and the first bytes of a 10-byte body (or a first chunk); collects what comes back. */
function partialPost(port: number, path: string, chunked = false) {
  const socket = net.connect(port, '127.0.0.1')
  let received = ''
  socket.on('data', (chunk) => (received += chunk.toString()))
  const framing = chunked ? 'transfer-encoding: chunked\r\n\r\n5\r\n12345\r\n' : 'content-length: 10\r\n\r\n12345'
  socket.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/octet-stream\r\n${framing}`)
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)))
  const answered = new Promise<string>((resolve) => socket.on('data', () => received.includes('\r\n\r\n{') && received.endsWith('}') && resolve(received)))
  return { socket, closed, answered }
}

t.test('a stalled body on an ordinary route gets 408 with our error and the connection closes', async (t) => {
  const { port } = await server(t)
  const answer = await partialPost(port, '/ordinary').closed
  t.match(answer, /^HTTP\/1\.1 408 /, 'answered 408')
  t.match(answer, /connection: close/i)
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { code: string; message: string }
  t.equal(body.code, 'API_REQUEST_TIMEOUT')
  t.match(body.message, /took too long/)
})

t.test('a stalled chunked body (no length announced) gets 408 too', async (t) => {
  const { port } = await server(t)
  const answer = await partialPost(port, '/ordinary', true).closed
  t.match(answer, /^HTTP\/1\.1 408 /, 'answered 408')
  t.equal((JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { code: string }).code, 'API_REQUEST_TIMEOUT')
})

t.test('a longBody route may take longer than the deadline, and finishes', async (t) => {
  const { port } = await server(t)
  const long = partialPost(port, '/long')
  // Proof that the deadline has passed: an ordinary request started after this one was cut.
  await partialPost(port, '/ordinary').closed
  t.notOk(long.socket.destroyed, 'the long upload is still open')
  long.socket.write('67890')
  const answer = await long.answered
  t.match(answer, /^HTTP\/1\.1 200 /)
  t.match(answer, /\{"bytes":10\}$/)
  long.socket.destroy()
})

t.test('a handler slower than the deadline is not cut once its body is in', async (t) => {
  const { port, slowStarted, releaseSlow } = await server(t)
  const pending = fetch(`http://127.0.0.1:${port}/slow-handler`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: 'x' })
  await slowStarted
  await partialPost(port, '/ordinary').closed
  releaseSlow()
  const response = await pending
  t.equal(response.status, 200)
  t.same(await response.json(), { done: true })
})
