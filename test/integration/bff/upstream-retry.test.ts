import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { buildStack } from '../../helpers.ts'

// A load and fault test saw 502 BFF_UPSTREAM_BAD_RESPONSE while the API restarted: a
// request went out on a keep-alive connection the old API was closing. A safe request (GET, HEAD)
// is sent once more on a fresh connection; a write is never repeated, since it may have been applied.

t.test('a GET whose connection is cut before any answer is sent once more; a write is not', async (t) => {
  const seen: string[] = []
  let cutNext = 0
  const upstream = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    if (cutNext > 0) {
      cutNext--
      req.socket.destroy()
      return
    }
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ ok: true }))
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => upstream.close(() => resolve())))
  const { bff } = await buildStack(t, { upstreamApiUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })

  cutNext = 1
  const read = await bff.inject({ method: 'GET', url: '/api/thing?x=1' })
  t.equal(read.statusCode, 200, 'the GET is answered')
  t.same(read.json(), { ok: true })
  t.same(seen, ['GET /api/thing?x=1', 'GET /api/thing?x=1'], 'sent twice: cut, then answered')

  seen.length = 0
  cutNext = 2
  const twice = await bff.inject({ method: 'GET', url: '/api/thing?x=2' })
  t.equal(twice.statusCode, 502, 'cut twice: the second failure is answered')
  t.match(twice.json(), { code: 'BFF_UPSTREAM_BAD_RESPONSE' })
  t.equal(seen.length, 2, 'no third try')

  seen.length = 0
  cutNext = 1
  const write = await bff.inject({
    method: 'POST',
    url: '/api/user/program/blender',
    headers: { rid: 'anti-csrf', origin: 'http://localhost:3000', 'content-type': 'application/json' },
    payload: {},
  })
  t.equal(write.statusCode, 502, 'a write cut before its answer is not repeated')
  t.same(seen, ['POST /api/user/program/blender'])
})
