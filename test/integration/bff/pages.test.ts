import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { buildStack, root } from '../../helpers.ts'

/** A page's built chunk: chunks are named by their hash alone (vite.config.ts). */
function chunkOf(page: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'client', '.vite', 'manifest.json'), 'utf8')) as Record<string, { file: string }>
  return `/${manifest[page]!.file}`
}

t.test('server-rendered pages', async (t) => {
  const { bff } = await buildStack(t)

  t.test('the home page has its content, title and description in the HTML before any script runs', async (t) => {
    const response = await bff.inject('/')
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    t.match(response.body, /<html lang="en">/)
    t.match(response.body, /<title>Softshelf — all must-have programs in one place<\/title>/)
    t.match(response.body, /<meta name="description" content="All must-have programs in one place: [^"]+">/)
    t.match(response.body, /<h1>All must-have programs in one place<\/h1>/)
    t.match(response.body, /Architecture &amp; Engineering/)
    t.match(response.body, /Version 1\.0\.716\+test/, 'the footer shows the version from the API')
    t.match(response.headers.vary, /Cookie/)
    t.match(response.headers.vary, /Accept-Language/)
  })

  t.test('the language comes from Accept-Language, a valid lang cookie overrides it, the title stays English', async (t) => {
    const german = await bff.inject({ url: '/', headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } })
    t.match(german.body, /<html lang="de">/)
    t.equal(german.headers['content-language'], 'de')
    t.match(german.body, /<title>Softshelf — all must-have programs in one place<\/title>/)
    t.notMatch(german.body, /<h1>All must-have programs in one place<\/h1>/, 'the page itself is German')
    const cookie = await bff.inject({ url: '/', headers: { 'accept-language': 'de', cookie: 'lang=sk' } })
    t.match(cookie.body, /<html lang="sk">/)
    const invalid = await bff.inject({ url: '/', headers: { 'accept-language': 'pl', cookie: 'lang=<script>' } })
    t.match(invalid.body, /<html lang="pl">/)
  })

  t.test('only the namespaces the page uses are embedded', async (t) => {
    const home = await bff.inject('/')
    t.match(home.body, /"namespaces":\["common","home","catalogue"\]/)
    t.notMatch(home.body, /"legal":\{/)
    const terms = await bff.inject('/terms')
    t.match(terms.body, /"namespaces":\["common","legal"\]/)
  })

  t.test('an unknown path answers 404 with the error page and the path in the message', async (t) => {
    const response = await bff.inject('/no/such/page')
    t.equal(response.statusCode, 404)
    t.match(response.body, /<h1>Page not found<\/h1>/)
    t.match(response.body, /The page you are trying to access does not exist/)
    t.match(response.body, /Page Not Found: \/no\/such\/page/)
    t.match(response.body, /href="\/">Back to home</)
  })

  t.test('a path that looks like another host stays a path on ours', async (t) => {
    const response = await bff.inject('//evil.example/login')
    t.equal(response.statusCode, 404)
    t.match(response.body, /<link rel="canonical" href="http:\/\/localhost:3000\/\/evil\.example\/login">/)
    t.notMatch(response.body, /href="http:\/\/evil\.example/)
  })

  t.test('/404 is the not-found page with status 404', async (t) => {
    const response = await bff.inject('/404')
    t.equal(response.statusCode, 404)
    t.match(response.body, /<h1>Page not found<\/h1>/)
  })

  t.test('the legal pages are complete documents in the visitor\'s language', async (t) => {
    for (const [path, title] of [
      ['/terms', 'Terms of Service'],
      ['/privacy', 'Privacy Policy'],
      ['/cookie', 'Cookie Policy'],
    ] as const) {
      const response = await bff.inject(path)
      t.equal(response.statusCode, 200, path)
      t.match(response.body, new RegExp(`<h1>${title}</h1>`), path)
      t.ok((response.body.match(/<section /g) ?? []).length >= 6, `${path} has its sections`)
      t.match(response.body, /support@softshelf\.app|Softshelf/, `${path} names the operator`)
      const visible = response.body.slice(0, response.body.indexOf('<script nonce'))
      t.notMatch(visible, /\{\{/, `${path} shows no unfilled placeholder`)
    }
    const cookie = await bff.inject('/cookie')
    t.match(cookie.body, /<code>sAccessToken<\/code>/)
    const czech = await bff.inject({ url: '/privacy', headers: { cookie: 'lang=cs' } })
    t.match(czech.body, /<html lang="cs">/)
    t.notMatch(czech.body, /<h1>Privacy Policy<\/h1>/)
  })

  t.test('page text that looks like a replacement pattern stays literal', async (t) => {
    const response = await bff.inject('/$&$\'')
    t.equal(response.statusCode, 404)
    t.match(response.body, /Page Not Found: \/\$&amp;\$&#x27;|Page Not Found: \/%24&amp;%24&#x27;|Page Not Found: \/\$&amp;\$'/)
  })

  t.test('locale files are served from a hashed path with a 24 h cache', async (t) => {
    const page = await bff.inject('/')
    const hash = /"localesHash":"([0-9a-f]+)"/.exec(page.body)?.[1]
    t.ok(hash)
    const file = await bff.inject(`/locales/${hash}/de/legal.json`)
    t.equal(file.statusCode, 200)
    t.equal(file.headers['cache-control'], 'public, max-age=86400, immutable')
    t.ok(file.json().terms.title)
    const stale = await bff.inject('/locales/0000000000000000/de/legal.json')
    t.equal(stale.headers['cache-control'], 'no-cache')
    const unknown = await bff.inject(`/locales/${hash}/xx/common.json`)
    t.equal(unknown.statusCode, 404)
    t.equal(unknown.json().code, 'BFF_NOT_FOUND')
  })

  t.test('the matched page chunk is preloaded, so hydration does not wait a round trip', async (t) => {
    const home = await bff.inject('/')
    t.match(home.body, `<link rel="modulepreload" crossorigin href="${chunkOf('client/pages/home.tsx')}">`)
    t.notMatch(home.body, `href="${chunkOf('client/pages/legal.tsx')}"`)
    const terms = await bff.inject('/terms')
    t.match(terms.body, `<link rel="modulepreload" crossorigin href="${chunkOf('client/pages/legal.tsx')}">`)
    const entry = /src="(\/assets\/[^"]+\.js)"/.exec(terms.body)?.[1]
    t.equal(terms.body.split(`"${entry}"`).length - 1, 1, 'the entry script is not preloaded twice')
  })

  t.test('a public page’s first JS leaves out what only the server reads and what loads after hydration (the 110 kB budget)', async (t) => {
    for (const url of ['/', '/library', '/programs/blender']) {
      const page = await bff.inject(url)
      t.equal(page.statusCode, 200, url)
      const files = [...page.body.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1]!)
      t.ok(files.length >= 3, `${url}: the entry, the libraries and the page's chunk`)
      const code = (await Promise.all(files.map((file) => bff.inject(file)))).map((response) => response.body).join('\n')
      t.notMatch(code, 'client/pages/', `${url}: no page's source path (the server's preload list)`)
      t.notMatch(code, 'SoftwareApplication', `${url}: no head builder (the server wrote the head)`)
      t.notMatch(code, 'toast-close', `${url}: no toaster`)
      t.notMatch(code, 'consent-banner-actions', `${url}: no consent banner`)
      // The browser translates with its own runtime (client/lib/i18n/browser.ts).
      t.notMatch(code, 'backendConnector', `${url}: no i18next`)
      t.notMatch(code, 'NO_I18NEXT_INSTANCE', `${url}: no react-i18next`)
      t.notMatch(code, 'HydratedRouter', `${url}: none of React Router's framework mode (prefetch links)`)
      t.notMatch(code, 'Unexpected Application Error', `${url}: no React Router error page (the root's boundary shows ours)`)
      t.notMatch(code, 'error-actions', `${url}: no error page (it loads when shown)`)
    }
  })

  t.test('hashed assets are immutable for a year', async (t) => {
    const page = await bff.inject('/')
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)?.[1]
    t.ok(asset)
    const response = await bff.inject(asset!)
    t.equal(response.statusCode, 200)
    t.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.match(response.headers['content-type'], /javascript/)
  })
})

t.test('a page many ask for at once, not yet in the page cache, is rendered once and each gets its own nonce', async (t) => {
  const { bff } = await buildStack(t)
  const outcomes = async () => Object.fromEntries((await bff.metrics.pageCache.get()).values.map((value) => [value.labels.outcome, value.value]))
  const before = await outcomes()
  const answers = await Promise.all(Array.from({ length: 6 }, () => bff.inject('/library?sort=nameDesc')))
  const after = await outcomes()
  t.equal((after.rendered ?? 0) - (before.rendered ?? 0), 1, 'rendered once')
  t.equal((after.waited ?? 0) - (before.waited ?? 0), 5, 'the other five waited for it')
  const nonces = answers.map((answer) => /<script nonce="([0-9a-f]+)">window\.__SOFTSHELF_BOOT__/.exec(answer.body)?.[1])
  t.ok(answers.every((answer) => answer.statusCode === 200), 'all answered 200')
  t.equal(new Set(nonces).size, 6, 'six nonces')
  t.ok(answers.every((answer, i) => answer.body.replaceAll(nonces[i]!, 'N') === answers[0]!.body.replaceAll(nonces[0]!, 'N')), 'the same page')
})

t.test('an anonymous page may be served again for a second, always with its own nonce', async (t) => {
  const { bff } = await buildStack(t)
  const nonceOf = (body: string) => /<script nonce="([0-9a-f]+)">window\.__SOFTSHELF_BOOT__/.exec(body)?.[1]
  const first = await bff.inject('/library?sort=nameAsc')
  const second = await bff.inject('/library?sort=nameAsc')
  const [a, b] = [nonceOf(first.body), nonceOf(second.body)]
  t.ok(a && b && a !== b, 'a fresh nonce per response')
  t.match(second.headers['content-security-policy'], `'nonce-${b}'`, 'the header names the page\'s nonce')
  t.equal(second.body.replaceAll(b!, 'N'), first.body.replaceAll(a!, 'N'), 'the same page otherwise')
  t.notOk(second.body.includes(a!), 'no trace of the first nonce')
  // The page has non-ASCII text (its title's dash): its length is counted in bytes, not characters.
  t.ok(Buffer.byteLength(second.body) > second.body.length, 'a page with non-ASCII text')
  t.equal(Number(second.headers['content-length']), Buffer.byteLength(second.body), 'its length in bytes')
  t.equal(second.headers['content-length'], first.headers['content-length'], 'the length of the page first served')
  const german = await bff.inject({ url: '/library?sort=nameAsc', headers: { cookie: 'lang=de' } })
  t.match(german.body, /<html lang="de">/, 'one page per language')
  const withSession = await bff.inject({ url: '/library?sort=nameAsc', headers: { cookie: 'sAccessToken=abc' } })
  t.match(withSession.headers['content-security-policy'], `'nonce-${nonceOf(withSession.body)}'`)
})
