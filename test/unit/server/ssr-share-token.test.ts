import type { FastifyRequest } from 'fastify'
import t from 'tap'
import { serverApiHeaders } from '../../../server/bff/plugins/ssr.ts'

// The /sharing/<link> page's server-side loaders reach the API with that link's unlock token
// (decision 016), as the proxy does for the browser's calls — and with nothing else of the cookies.

const LINK = 'lRpZUVcXU4MjdzDToMzOBapJRWnl8f8m'
const OTHER = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'

function request(cookies: Record<string, string>): FastifyRequest {
  return { id: 'req-1', cookies } as unknown as FastifyRequest
}

t.test("a share link's own path carries its token as x-share-token", async (t) => {
  const headers = serverApiHeaders(request({ [`sShare_${LINK}`]: 'v1.1.sig', [`sShare_${OTHER}`]: 'v1.2.other', sAccessToken: 'at' }), 'de', undefined, `/api/sharing/${LINK}?folder=f1`)
  t.same(headers, { accept: 'application/json', 'accept-language': 'de', 'x-request-id': 'req-1', 'x-share-token': 'v1.1.sig' })
})

t.test("no token without the link's cookie, for other paths, or for another link", async (t) => {
  t.notOk('x-share-token' in serverApiHeaders(request({}), 'en', undefined, `/api/sharing/${LINK}`))
  t.notOk('x-share-token' in serverApiHeaders(request({ [`sShare_${OTHER}`]: 'v1.2.other' }), 'en', undefined, `/api/sharing/${LINK}`))
  t.notOk('x-share-token' in serverApiHeaders(request({ [`sShare_${LINK}`]: 'v1.1.sig' }), 'en', 'at', '/api/files'))
})

t.test('the session goes as a bearer token; no cookie header ever', async (t) => {
  const headers = serverApiHeaders(request({ [`sShare_${LINK}`]: 'v1.1.sig', sAccessToken: 'at' }), 'en', 'at', `/api/sharing/${LINK}`)
  t.equal(headers.authorization, 'Bearer at')
  t.notOk('cookie' in headers)
})
