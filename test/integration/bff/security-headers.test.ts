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
