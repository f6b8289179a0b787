import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import t from 'tap'
import { readBody, UpstreamClient } from '../../../server/bff/upstream-client.ts'

// A streamed request body (a tus PATCH through the BFF) may take longer to send than the
// wait for an answer's head, which undici starts at the body's last byte; after it the API gets
// the longer wait an upload's finish needs (streamedAnswerMs) — and that wait still ends.

const HEADERS_TIMEOUT_MS = 100

t.test('a streamed body slower than the headers timeout passes; an upstream silent after it does not', async (t) => {
  const upstream = http.createServer((req, res) => {
    let bytes = 0
    req.on('data', (chunk: Buffer) => (bytes += chunk.length))
    req.on('end', () => {
      if (req.url === '/collect') res.end(String(bytes))
      // '/silent' and '/hang' never answer.
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    upstream.closeAllConnections()
    upstream.close()
  })
  const client = new UpstreamClient(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, {
    connectTimeoutMs: 1_000,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: 1_000,
    streamedAnswerMs: 200,
  })
  t.teardown(() => client.close())

  const body = new PassThrough()
  const upload = client.stream({ method: 'POST', path: '/collect', body })
  body.write('abc')
  // Proof that the headers timeout has passed three times over since the upload began.
  for (let i = 0; i < 3; i++) await t.rejects(client.stream({ method: 'GET', path: '/hang' }), { code: 'BFF_UPSTREAM_TIMEOUT' }, 'an ordinary call still times out')
  body.end('def')
  const answer = await upload
  t.equal(answer.status, 200, 'the slow upload was answered')
  t.equal((await readBody(answer.body)).toString(), '6', 'with every byte')

  const silentBody = new PassThrough()
  const silent = client.stream({ method: 'POST', path: '/silent', body: silentBody })
  silentBody.end('x')
  await t.rejects(silent, { code: 'BFF_UPSTREAM_TIMEOUT' }, 'an upstream that never answers after the body is a timeout, not a hang')
})
