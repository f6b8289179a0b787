import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { buildStack, root, signedInTab } from '../../helpers.ts'

t.test('per-IP rate limit answers 429 JSON with retry-after; a forged X-Forwarded-For changes nothing', async (t) => {
  const { bff } = await buildStack(t, { env: { RATE_LIMIT_MAX: '3' } })
  for (let i = 0; i < 3; i++) {
    const ok = await bff.inject({ url: '/api/version', headers: { 'x-forwarded-for': `10.0.0.${i}` } })
    t.equal(ok.statusCode, 200)
  }
  const limited = await bff.inject({ url: '/api/version', headers: { 'x-forwarded-for': '10.9.9.9' } })
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().code, 'BFF_RATE_LIMITED')
  t.match(limited.json().message, /Too many requests/)
  t.ok(Number(limited.headers['retry-after']) > 0)
  const page = await bff.inject('/')
  t.equal(page.statusCode, 429, 'pages count too')
  const asset = await bff.inject('/healthz')
  t.equal(asset.statusCode, 200, 'probes are exempt')
})

t.test('behind a trusted proxy the client address decides', async (t) => {
  const { bff } = await buildStack(t, { env: { RATE_LIMIT_MAX: '2', TRUST_PROXY: '127.0.0.1' } })
  const from = (ip: string) => bff.inject({ url: '/api/version', headers: { 'x-forwarded-for': ip } })
  t.equal((await from('203.0.113.1')).statusCode, 200)
  t.equal((await from('203.0.113.1')).statusCode, 200)
  t.equal((await from('203.0.113.1')).statusCode, 429)
  t.equal((await from('203.0.113.2')).statusCode, 200, 'another client has its own budget')
})

// What a person browsing sends is not what costs. Static answers are not counted; a
// signed-in person has a budget of their own; a browser's page gets a page, an API caller JSON.

const assetFile = fs.readdirSync(path.join(root, 'dist', 'client', 'assets')).find((name) => name.endsWith('.js'))!

t.test('logos, link-preview cards, hashed assets, locale files and the favicon do not use up the budget of pages and API calls', async (t) => {
  const { bff } = await buildStack(t, { env: { RATE_LIMIT_MAX: '2' } })
  // A listing page's worth of static answers, and more, in every spelling their routes answer.
  const statics = [
    '/logos/blender.svg',
    '/logos/blender.svg?v=anything',
    '/logos/blender.svg/',
    '/logos/%62lender.svg',
    '/logos/unknown-program.svg',
    '/og/programs/blender.png',
    `/assets/${assetFile}`,
    `/assets/${assetFile}?x=1`,
    '/assets/missing.js',
    '/locales/0123456789abcdef/de/common.json',
    '/locales/0123456789abcdef/hu/library.json?v=2',
    '/favicon.svg',
  ]
  for (let round = 0; round < 3; round++) {
    for (const url of statics) {
      const answer = await bff.inject({ url, headers: { accept: '*/*' } })
      t.not(answer.statusCode, 429, `${url} is not counted`)
    }
  }
  t.equal((await bff.inject('/logos/blender.svg')).headers['content-type'], 'image/svg+xml; charset=utf-8', 'the logo is served')
  t.equal((await bff.inject('/api/version')).statusCode, 200, 'the first counted request')
  t.equal((await bff.inject({ url: '/library', headers: { accept: 'text/html' } })).statusCode, 200, 'the second: a page')
  const limited = await bff.inject('/api/version')
  t.equal(limited.statusCode, 429, 'the third counted request is over the budget of 2')
  t.equal(limited.json().code, 'BFF_RATE_LIMITED')
})

t.test('no spelling of an API path escapes the count: whatever the API answers was counted', async (t) => {
  const { bff } = await buildStack(t, { env: { RATE_LIMIT_MAX: '1' } })
  const spellings = [
    '/api/version',
    '/api/version/',
    '/api/version?x=/assets/a.js',
    '/api/version?/logos/blender.svg',
    '/API/version',
    '/Api/Version',
    '/%61pi/version',
    '/api/%76ersion',
    '//api/version',
    '/api//version',
    '/assets/../api/version',
    '/assets/%2E%2E/api/version',
    '/logos/../api/version',
    '/locales/x/../../api/version',
    '/favicon.svg/../api/version',
    '/healthz/../api/version',
    '/api/version#/assets/a.js',
  ]
  let reachedApi = 0
  for (const [i, url] of spellings.entries()) {
    // Each spelling from an address of its own, with a budget of one.
    const remoteAddress = `10.27.0.${i + 1}`
    const first = await bff.inject({ url, remoteAddress })
    const answeredByApi = first.statusCode === 200 && /application\/json/.test(String(first.headers['content-type'])) && typeof first.json().version === 'string'
    if (!answeredByApi) continue
    reachedApi++
    const next = await bff.inject({ url: '/api/version', remoteAddress })
    t.equal(next.statusCode, 429, `${url} reached the API and was counted`)
  }
  t.ok(reachedApi >= 3, `several spellings reach the API (${reachedApi})`)
})

t.test('a signed-in person is counted by account as well as by address; a forged session cookie is only the address', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { RATE_LIMIT_MAX: '14', RATE_LIMIT_ACCOUNT_MAX: '4', AUTH_RATE_LIMIT_MAX: '100' } })
  // Two people behind one address (inject's 127.0.0.1); signing up costs each one counted call.
  const ana = await signedInTab(stack, 'ana@example.com')
  const ben = await signedInTab(stack, 'ben@example.com')
  for (let i = 0; i < 3; i++) t.equal((await ana.get('/api/version')).statusCode, 200, `Ana's call ${i + 2} of 4`)
  const anaLimited = await ana.get('/api/version')
  t.equal(anaLimited.statusCode, 429, 'Ana has used up her own budget')
  t.equal(anaLimited.json().code, 'BFF_RATE_LIMITED')
  t.ok(Number(anaLimited.headers['retry-after']) > 0)
  t.equal((await ana.get('/library', { accept: 'text/html' })).statusCode, 429, 'her pages count against it too')
  t.equal((await ben.get('/api/version')).statusCode, 200, 'Ben behind the same address still has his')
  t.not((await ben.get('/library', { accept: 'text/html' })).statusCode, 429)
  t.equal((await stack.bff.inject('/api/version')).statusCode, 200, 'so has a visitor without an account')
  // So far the address counted 2 + 3 + 2 + 1 = 8 of 14 (Ana's refused calls did not reach it).
  const token = ana.jar.get('sAccessToken')!
  const [head, payload, signature] = token.split('.')
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>
  const forgedPayload = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')
  const forgeries = [
    'garbage',
    `${head}.${forgedPayload}.${signature}`,
    `${head}.${payload}.${signature!.slice(0, -4)}AAAA`,
    `${head}.${payload}.`,
    'a.b.c',
    randomBytes(40).toString('base64url'),
  ]
  for (const forged of forgeries) {
    const answer = await stack.bff.inject({ url: '/api/version', headers: { cookie: `sAccessToken=${forged}` } })
    t.equal(answer.statusCode, 200, 'a forged cookie is counted against the address')
  }
  const spent = await stack.bff.inject({ url: '/api/version', headers: { cookie: `sAccessToken=${randomBytes(40).toString('base64url')}` } })
  t.equal(spent.statusCode, 429, 'a fresh forged cookie buys no fresh budget: the address has spent its 14')
  t.equal((await ben.get('/api/version')).statusCode, 429, 'the address bounds its signed-in people too')
})

t.test('a browser over the limit gets a page in its language that retries by itself; API callers keep the JSON error', async (t) => {
  const { bff } = await buildStack(t, { env: { RATE_LIMIT_MAX: '1' } })
  const page = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }
  t.equal((await bff.inject({ url: '/library', headers: { ...page, cookie: 'lang=de' } })).statusCode, 200)

  const german = await bff.inject({ url: '/library?sort=nameDesc', headers: { ...page, cookie: 'lang=de', 'accept-language': 'en' } })
  t.equal(german.statusCode, 429)
  t.match(german.headers['content-type'], /^text\/html/)
  const seconds = Number(german.headers['retry-after'])
  t.ok(seconds > 0 && seconds <= 60, 'Retry-After in seconds')
  t.match(german.body, '<html lang="de">')
  t.match(german.body, 'Bitte einen Moment Geduld')
  t.match(german.body, `versucht es in ${seconds} s von selbst erneut`)
  t.match(german.body, `<meta http-equiv="refresh" content="${seconds}">`, 'reloads itself once Retry-After has passed')
  t.match(german.body, '<a href="/library?sort=nameDesc">Jetzt erneut versuchen</a>')
  t.notMatch(german.body, /<script|style=/, 'no script, no style attribute')
  // The strict CSP of every answer; its one <style> is allowed by its hash, nothing else.
  const style = /<style>([^<]*)<\/style>/.exec(german.body)?.[1] ?? ''
  const hash = createHash('sha256').update(style).digest('base64')
  t.equal(german.headers['content-security-policy'], `default-src 'none'; style-src 'sha256-${hash}'; frame-ancestors 'none'; base-uri 'none'`)
  t.equal(german.headers['cache-control'], 'no-store')

  const hungarian = await bff.inject({ url: '/programs/blender', headers: { ...page, 'accept-language': 'hu-HU,hu;q=0.9' } })
  t.equal(hungarian.statusCode, 429)
  t.match(hungarian.body, '<html lang="hu">')
  t.match(hungarian.body, 'Kérjük, várjon egy kicsit')

  const json = (answer: Awaited<ReturnType<typeof bff.inject>>, what: string) => {
    t.equal(answer.statusCode, 429, what)
    t.match(answer.headers['content-type'], /^application\/json/, what)
    t.match(answer.json(), { statusCode: 429, code: 'BFF_RATE_LIMITED', error: 'Too Many Requests', message: /Too many requests\. Please wait \d+ seconds/ }, what)
    t.ok(Number(answer.headers['retry-after']) > 0, what)
  }
  json(await bff.inject({ url: '/api/version', headers: page }), 'an /api call, even one asking for HTML')
  json(await bff.inject({ url: '/auth/emailpassword/email/exists?email=ana%40example.com', headers: page }), 'an /auth call, even one asking for HTML')
  json(await bff.inject({ url: '/library', headers: { accept: 'application/json' } }), 'a page asked for as JSON')
  json(await bff.inject({ url: '/api/user/accept-tos', method: 'POST', headers: { ...page, 'content-type': 'application/json', rid: 'anti-csrf', origin: 'http://localhost:3000' }, payload: '{}' }), 'a write')
})
