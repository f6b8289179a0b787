import t from 'tap'
import { buildBff } from '../../../server/bff/app.ts'
import { openTestDatabase, testBuildInfo, testConfig } from '../../helpers.ts'

// `npm run dev`: Vite in middleware mode inside the BFF, through the same server-rendering path.
t.test('development mode renders pages through Vite with hot reload wired in', async (t) => {
  const db = await openTestDatabase(t)
  const bff = await buildBff({ config: testConfig(t), db, buildInfo: testBuildInfo, upstreamApiUrl: 'http://127.0.0.1:9', dev: true })
  t.teardown(() => bff.close())
  await bff.ready()
  const page = await bff.inject('/privacy')
  // The API is not running here: the page is the 503 error page, rendered by the dev renderer.
  t.equal(page.statusCode, 503)
  t.match(page.body, /<script type="module" src="\/@vite\/client" nonce="[0-9a-f]{32}">/, 'Vite client with the page nonce')
  t.match(page.body, /Service unavailable/)
  const nonce = /'nonce-([0-9a-f]{32})'/.exec(String(page.headers['content-security-policy']))?.[1]
  t.ok(nonce && page.body.includes(`nonce="${nonce}"`), 'the CSP nonce and the page agree')
  const module = await bff.inject('/client/entry-client.tsx')
  t.equal(module.statusCode, 200)
  t.match(module.headers['content-type'], /javascript/)
})
