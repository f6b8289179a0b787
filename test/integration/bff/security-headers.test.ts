import t from 'tap'
import { buildStack } from '../../helpers.ts'

t.test('security headers on pages and API answers', async (t) => {
  const { bff } = await buildStack(t)
  const response = await bff.inject('/')
  const csp = response.headers['content-security-policy'] as string

  t.test('an enforced CSP: nonce scripts, no unsafe-inline/eval, no objects, no base, no framing', async (t) => {
    t.ok(csp, 'enforced, not report-only')
    t.notOk(response.headers['content-security-policy-report-only'])
    const scriptSrc = /script-src ([^;]+)/.exec(csp)?.[1] ?? ''
    t.notMatch(scriptSrc, /unsafe-inline|unsafe-eval/)
    const nonce = /'nonce-([A-Za-z0-9+/=_-]+)'/.exec(scriptSrc)?.[1]
    t.ok(nonce, 'script-src carries a nonce')
    t.match(csp, /object-src 'none'/)
    t.match(csp, /base-uri 'none'/)
    t.match(csp, /frame-ancestors 'none'/)
    const inline = [...response.body.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)]
    t.ok(inline.length > 0, 'the page has inline hydration data')
    for (const [, attrs] of inline) t.match(attrs, new RegExp(`nonce="${nonce}"`), 'every inline script carries the nonce')
  })

  t.test('the nonce differs per request', async (t) => {
    const again = await bff.inject('/')
    t.not(again.headers['content-security-policy'], csp)
  })

  t.test('nosniff, a referrer policy, no X-Powered-By, no HSTS over http', async (t) => {
    t.equal(response.headers['x-content-type-options'], 'nosniff')
    t.equal(response.headers['referrer-policy'], 'strict-origin-when-cross-origin')
    t.notOk(response.headers['x-powered-by'])
    t.notOk(response.headers['strict-transport-security'])
  })

  t.test('every body has a content type with a charset', async (t) => {
    for (const url of ['/', '/api/version', '/nope', '/healthz']) {
      const r = await bff.inject(url)
      t.match(r.headers['content-type'], /charset=utf-8/, url)
    }
  })
})

t.test('HSTS when served over https', async (t) => {
  const { bff } = await buildStack(t, { env: { APP_URL: 'https://softshelf.test' } })
  const response = await bff.inject('/')
  t.match(response.headers['strict-transport-security'], /max-age=31536000/)
})

/** The page CSP's directives by name. */
function directives(csp: string): Map<string, string> {
  return new Map(csp.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name!, values.join(' ')]))
}

t.test('issue 11: without outside scripts configured the page CSP names no other origin', async (t) => {
  const { bff } = await buildStack(t)
  const csp = directives((await bff.inject('/')).headers['content-security-policy'] as string)
  t.match(csp.get('script-src'), /^'self' 'nonce-[0-9a-f]+'$/)
  t.equal(csp.get('connect-src'), "'self'")
  t.equal(csp.get('img-src'), "'self' data:")
  t.notOk(csp.has('frame-src'), 'frames fall back to default-src \'self\'')
})

t.test('issue 11: the chat widget and tag manager origins, exactly, where each needs them', async (t) => {
  const { bff } = await buildStack(t, {
    env: { CHAT_WIDGET_SCRIPT_URL: 'https://chat.example.com/loader.js?key=abc', TAG_MANAGER_SCRIPT_URL: 'https://tags.example.net/gtm.js?id=GTM-1' },
  })
  const response = await bff.inject('/')
  const csp = directives(response.headers['content-security-policy'] as string)
  t.match(csp.get('script-src'), /^'self' https:\/\/chat\.example\.com https:\/\/tags\.example\.net 'nonce-[0-9a-f]+'$/, 'both origins, no path, no wildcard')
  t.equal(csp.get('connect-src'), "'self' https://chat.example.com", 'the widget may talk to its origin; the tag manager may not')
  t.equal(csp.get('img-src'), "'self' data: https://chat.example.com")
  t.equal(csp.get('frame-src'), "'self' https://chat.example.com")
  t.notMatch(response.headers['content-security-policy'] as string, /\*|unsafe-inline|unsafe-eval|https: |http:(?!\/\/)/, 'no wildcard, no scheme source, nothing unsafe')
  t.equal(csp.get('object-src'), "'none'")
  t.equal(csp.get('frame-ancestors'), "'none'")
  const api = await bff.inject('/api/version')
  t.equal(api.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'; base-uri 'none'", 'answers other than pages keep the strict CSP')
})

t.test('issue 11: one origin configured, only that one appears', async (t) => {
  const { bff } = await buildStack(t, { env: { TAG_MANAGER_SCRIPT_URL: 'https://www.googletagmanager.com/gtm.js?id=GTM-1' } })
  const csp = directives((await bff.inject('/')).headers['content-security-policy'] as string)
  t.match(csp.get('script-src'), /^'self' https:\/\/www\.googletagmanager\.com 'nonce-[0-9a-f]+'$/)
  t.equal(csp.get('connect-src'), "'self'")
  t.notOk(csp.has('frame-src'))
})

t.test('issue 12: share-link pages send one referrer policy and one robots tag, in any letter case of the path', async (t) => {
  const { bff } = await buildStack(t)
  for (const url of ['/sharing/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '/Sharing/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA?folder=x']) {
    const response = await bff.inject(url)
    t.equal(response.statusCode, 404, url)
    t.equal(response.headers['referrer-policy'], 'no-referrer', url)
    t.equal(response.headers['x-robots-tag'], 'noindex, nofollow', url)
    t.match(response.headers['cache-control'], /no-store/, url)
  }
  const other = await bff.inject('/files')
  t.equal(other.headers['referrer-policy'], 'strict-origin-when-cross-origin')
  t.notOk(other.headers['x-robots-tag'])
})
