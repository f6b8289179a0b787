import t from 'tap'
import { buildStack, signedInTab } from '../../helpers.ts'

// The server-rendered header is for who is there. A signed-in user's header (their name,
// or their email while they have none; "My profile", "Log out") on every page with a header, also
// the pages outside the protected group; "Streaming" only where clusters are configured.

const CLUSTERS = [{ id: 'fra-1', region: 'eu-central', url: 'http://127.0.0.1:9/play', capacity: 2 }]

/** The server-rendered header of a page, before any script runs. */
function headerOf(html: string): string {
  return /<header class="site-header[^"]*">([\s\S]*?)<\/header>/.exec(html)?.[1] ?? ''
}

t.test('without streaming clusters the signed-in header does not offer Streaming; its page still answers', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = await signedInTab(stack, 'no-streaming@example.com')
  for (const url of ['/@/library', '/@/my-profile', '/nope']) {
    const page = await tab.get(url, { accept: 'text/html' })
    const header = headerOf(page.body)
    t.match(header, /data-testid="signed-in-as"/, `${url}: the signed-in header`)
    t.notMatch(header, /href="\/streaming"/, `${url}: no Streaming`)
    t.match(page.body, /"streaming":false/, `${url}: the browser knows streaming is off`)
  }
  const streaming = await tab.get('/streaming', { accept: 'text/html' })
  t.equal(streaming.statusCode, 200, 'a direct visit to /streaming still answers')
  t.match(streaming.body, /Streaming is not available/)
})

t.test('the signed-in header, with the account\'s name, on every page with a header', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { STREAMING_CLUSTERS: JSON.stringify(CLUSTERS) } })
  const tab = await signedInTab(stack, 'header@example.com')
  const before = headerOf((await tab.get('/@/library', { accept: 'text/html' })).body)
  t.match(before, /<span class="signed-in-name" data-testid="signed-in-as">header@example.com<\/span>/, 'no name yet: the email')
  t.match(before, /href="\/streaming"/, 'clusters configured: Streaming is offered')

  t.equal((await tab.send('PATCH', '/api/user', { name: 'Ada <Lovelace>' })).statusCode, 200)
  for (const url of ['/@/library', '/streaming', '/mfa', '/sentry-test', '/stripe/cancel', '/nope', '/@/nope']) {
    const page = await tab.get(url, { accept: 'text/html' })
    t.equal(page.statusCode, url.endsWith('/nope') ? 404 : 200, url)
    const header = headerOf(page.body)
    t.match(header, /<span class="signed-in-name" data-testid="signed-in-as">Ada &lt;Lovelace&gt;<\/span>/, `${url}: the name, escaped`)
    t.match(header, /href="\/@\/my-profile"/, `${url}: My profile`)
    t.match(header, /href="\/@\/logout"/, `${url}: Log out`)
    t.notMatch(header, /href="\/login"/, `${url}: no Log in`)
  }
  // A visitor's 404 keeps the visitor's header.
  const visitor = await stack.bff.inject({ url: '/nope', headers: { accept: 'text/html' } })
  t.match(headerOf(visitor.body), /href="\/login"/)
  t.notMatch(headerOf(visitor.body), /signed-in-as/)
})
