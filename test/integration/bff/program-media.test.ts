import sharp from 'sharp'
import t from 'tap'
import { MAX_SCREENSHOTS } from '../../../shared/catalogue/media.ts'
import { browser, buildStack, operatorTab, signedInTab } from '../../helpers.ts'

// Logos and screenshots: an editor uploads a program's logo (SVG sanitised to a safe
// subset, PNG/WebP re-encoded) and up to 8 screenshots (re-encoded to WebP at the srcset widths),
// through the BFF (which checks the permission before proxying; the API checks again, test/integration/bff/operator-routes.test.ts covers every row straight at the API); the public logo route and the public program show them; each write is audited.

// The services' short caches run on this clock (the BFF asks for uploaded logos at most once a second).
let ahead = 0
const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '10000' }, now: () => Date.now() + ahead })
type Tab = Awaited<ReturnType<typeof signedInTab>>

const send = (tab: Tab | null, method: 'PUT' | 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, body?: Buffer | string | object, headers: Record<string, string> = {}) =>
  stack.bff.inject({
    method,
    url,
    headers: {
      ...(tab ? { cookie: tab.jar.header(url) } : {}),
      rid: 'anti-csrf',
      origin: 'http://localhost:3000',
      ...(body !== undefined && (Buffer.isBuffer(body) || typeof body === 'string') ? { 'content-type': 'application/octet-stream' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { payload: body as string } : {}),
  })

const png = (width: number, height: number, background = '#2a6acc') => sharp({ create: { width, height, channels: 3, background } }).png().toBuffer()
const auditFor = async (target: string) =>
  (await stack.db.query<{ actor_email: string; action: string; before: unknown; after: unknown }>("SELECT actor_email, action, before, after FROM api.audit_log WHERE target = $1 ORDER BY id", [target])).rows

const editor = await operatorTab(stack, 'editor@example.com', ['editor'])

t.test('only a signed-in editor (or admin) may write; support, a user and a signed-out caller are refused', async (t) => {
  const image = await png(400, 300)
  const support = await operatorTab(stack, 'support@example.com', ['support'])
  const user = await signedInTab(stack, 'plain@example.com')
  for (const [who, tab, status, code] of [
    ['support', support, 403, 'BFF_PERMISSION_DENIED'],
    ['a user with no role', user, 403, 'BFF_PERMISSION_DENIED'],
    ['a signed-out caller', null, 401, undefined],
  ] as const) {
    for (const [method, url, body, type] of [
      ['PUT', '/api/operator/programs/blender/logo', image, 'image/png'],
      ['POST', '/api/operator/programs/blender/screenshots', image, 'image/png'],
      ['DELETE', '/api/operator/programs/blender/logo', undefined, undefined],
      ['PATCH', '/api/operator/programs/blender/screenshots/x', JSON.stringify({ position: 0 }), 'application/json'],
      ['DELETE', '/api/operator/programs/blender/screenshots/x', undefined, undefined],
    ] as const) {
      const answer = await send(tab, method, url, body, type ? { 'content-type': type } : {})
      t.equal(answer.statusCode, status, `${who}: ${method} ${url}`)
      if (code) t.equal(answer.json().code, code)
    }
  }
  // Refused before the image is read: a body past the uploads' limit is a 403 (or 401), not a 413.
  const huge = Buffer.alloc(11 * 1024 * 1024)
  for (const url of ['/api/operator/programs/blender/logo', '/api/operator/programs/blender/screenshots']) {
    const method = url.endsWith('logo') ? 'PUT' : 'POST'
    t.equal((await send(user, method, url, huge, { 'content-type': 'image/png' })).statusCode, 403, `a user with no role, 11 MiB: ${url}`)
    t.equal((await send(null, method, url, huge, { 'content-type': 'image/png' })).statusCode, 401, `signed out, 11 MiB: ${url}`)
  }
  t.same(await auditFor('program:blender'), [], 'nothing was written')
  t.same((await send(editor, 'GET', '/api/operator/programs/blender/media')).json(), { logo: null, screenshots: [] }, 'and nothing changed')
})

t.test('an SVG logo comes out without script, event handlers, outside references or foreignObject, and is served at /logos/<id>.svg', async (t) => {
  const hostile = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" viewBox="0 0 64 64" width="64" height="64" onload="alert(1)" inkscape:version="1.0">
  <script>alert(document.cookie)</script>
  <script xlink:href="https://evil.example/x.js"/>
  <style>rect { fill: url(https://evil.example/track) }</style>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient></defs>
  <rect id="r" width="64" height="64" fill="url(#g)" onclick="alert(2)" style="stroke: #000; fill: url(https://evil.example/a); background-image: url(x)"/>
  <circle cx="32" cy="32" r="10" fill="url(https://evil.example/b)" stroke="javascript:alert(3)"/>
  <use xlink:href="#r"/><use href="https://evil.example/sprite.svg#a"/><use href="data:image/svg+xml;base64,PHN2Zz4="/>
  <image href="https://evil.example/pixel.png" width="1" height="1"/>
  <a href="javascript:alert(4)"><text x="4" y="60">Blender &amp; co</text></a>
  <foreignObject width="64" height="64"><div xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example"/></div></foreignObject>
  <animate attributeName="href" to="javascript:alert(5)"/>
  <set attributeName="onmouseover" to="alert(6)"/>
  <text x="2" y="12">Blend<![CDATA[<er>]]></text>
</svg>`
  const answer = await send(editor, 'PUT', '/api/operator/programs/blender/logo', hostile, { 'content-type': 'image/svg+xml' })
  t.equal(answer.statusCode, 200, answer.body)
  const { url, contentType } = answer.json() as { url: string; contentType: string }
  t.equal(contentType, 'image/svg+xml')
  t.match(url, /^\/api\/program-logos\/[0-9a-f]{32}\.svg$/)
  const stored = await send(null, 'GET', url)
  t.equal(stored.statusCode, 200)
  t.equal(stored.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.match(stored.headers['content-security-policy'], /default-src 'none'.*sandbox/)
  const svg = stored.body
  for (const gone of [/<script/i, /onload|onclick|onmouseover/i, /evil\.example/, /javascript:/i, /data:/i, /foreignObject/i, /<iframe/i, /<image/i, /<style/i, /<animate|<set/i, /<a[\s>]/, /inkscape/i, /background-image/]) {
    t.notMatch(svg, gone, `no ${gone}`)
  }
  t.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 64 64" width="64" height="64">/, 'the root, with its size')
  t.match(svg, /<rect id="r" width="64" height="64" fill="url\(#g\)" style="stroke:#000"><\/rect>/, 'local references and safe styles stay')
  t.match(svg, /<use href="#r"><\/use><use><\/use><use><\/use>/, 'a reference inside the document stays; outside ones go')
  t.match(svg, /<circle cx="32" cy="32" r="10"><\/circle>/)
  t.match(svg, /Blend&lt;er&gt;/, 'text is kept, escaped')
  t.notMatch(svg, /Blender &amp; co/, 'the link is dropped with its content')
  t.match(await sharp(Buffer.from(svg)).metadata(), { format: 'svg', width: 64, height: 64 }, 'still a picture')

  ahead += 1_001
  const served = await send(null, 'GET', '/logos/blender.svg')
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/svg+xml; charset=utf-8')
  t.equal(served.body, svg, 'the public logo route serves the uploaded logo')
  t.match(served.headers['content-security-policy'], /sandbox/)

  const audit = await auditFor('program:blender')
  t.match(audit.at(-1), { actor_email: 'editor@example.com', action: 'program.media', before: { logo: null }, after: { logo: { contentType: 'image/svg+xml', url } } }, 'audited')

  for (const [what, body, code, status] of [
    ['not XML', 'this is not xml', 'API_IMAGE_INVALID', 400],
    ['a DOCTYPE (entities)', '<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>', 'API_IMAGE_INVALID', 400],
    ['an external entity', '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>', 'API_IMAGE_INVALID', 400],
    ['an HTML root', '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>', 'API_IMAGE_INVALID', 400],
    ['an SVG without its namespace', '<svg><rect width="1" height="1"/></svg>', 'API_IMAGE_INVALID', 400],
  ] as const) {
    const refused = await send(editor, 'PUT', '/api/operator/programs/blender/logo', body, { 'content-type': 'image/svg+xml' })
    t.equal(refused.statusCode, status, what)
    t.equal(refused.json().code, code, what)
    t.notMatch(refused.body, /stack|\/work\//, 'no stack or path')
  }
  t.equal((await send(null, 'GET', '/logos/blender.svg')).body, svg, 'a refused upload leaves the logo as it was')
})

t.test('a PNG or WebP logo is re-encoded as WebP; DELETE brings back the generated one', async (t) => {
  const generated = (await send(null, 'GET', '/logos/zbrush.svg')).body
  t.match(generated, /^<svg/, 'the generated logo first')
  const original = await sharp({ create: { width: 900, height: 600, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.5 } } })
    .withMetadata({ exif: { IFD0: { Copyright: 'secret camera owner' } } })
    .png()
    .toBuffer()
  const answer = await send(editor, 'PUT', '/api/operator/programs/zbrush/logo', original, { 'content-type': 'image/png' })
  t.equal(answer.statusCode, 200, answer.body)
  t.equal(answer.json().contentType, 'image/webp')
  ahead += 1_001 // the second the BFF keeps what it read
  const served = await send(null, 'GET', '/logos/zbrush.svg')
  t.equal(served.headers['content-type'], 'image/webp')
  const metadata = await sharp(served.rawPayload).metadata()
  t.match(metadata, { format: 'webp', width: 512, height: 341, hasAlpha: true }, 'within 512 px a side, transparency kept')
  t.notOk(metadata.exif, 'no EXIF left')
  t.notOk(served.rawPayload.includes('secret camera owner'))

  t.equal((await send(editor, 'PUT', '/api/operator/programs/zbrush/logo', original, { 'content-type': 'image/webp' })).json().code, 'API_IMAGE_UNSUPPORTED_TYPE', 'the bytes must be what was declared')
  t.equal((await send(editor, 'PUT', '/api/operator/programs/zbrush/logo', original, { 'content-type': 'image/gif' })).statusCode, 415)
  t.equal((await send(editor, 'PUT', '/api/operator/programs/zbrush/logo', original, { 'content-type': 'image/svg+xml' })).statusCode, 415, 'a raster sent as SVG')
  const broken = Buffer.concat([original.subarray(0, 60), Buffer.alloc(200)])
  t.equal((await send(editor, 'PUT', '/api/operator/programs/zbrush/logo', broken, { 'content-type': 'image/png' })).json().code, 'API_IMAGE_INVALID', 'a damaged PNG')
  const big = await send(editor, 'PUT', '/api/operator/programs/zbrush/logo', Buffer.alloc(1024 * 1024 + 1, 1), { 'content-type': 'image/png' })
  t.equal(big.statusCode, 413)
  t.equal(big.json().code, 'API_IMAGE_TOO_LARGE')
  t.equal((await send(editor, 'PUT', '/api/operator/programs/no-such-program/logo', original, { 'content-type': 'image/png' })).json().code, 'API_CATALOGUE_NOT_FOUND')

  t.equal((await send(editor, 'DELETE', '/api/operator/programs/zbrush/logo')).statusCode, 204)
  ahead += 1_001
  t.equal((await send(null, 'GET', '/logos/zbrush.svg')).body, generated, 'the generated logo again')
  const again = await send(editor, 'DELETE', '/api/operator/programs/zbrush/logo')
  t.equal(again.statusCode, 404)
  t.equal(again.json().code, 'API_LOGO_NOT_FOUND')
  const audit = await auditFor('program:zbrush')
  t.equal(audit.length, 2, 'the upload and the removal, nothing for the refusals')
  t.match(audit[1], { action: 'program.media', before: { logo: { contentType: 'image/webp' } }, after: { logo: null } })
})

t.test('the logo URL version follows uploads, so an immutable URL never shows an old logo', async (t) => {
  const page = async (query = '') => /\/logos\/cinema-4d\.svg\?v=([0-9a-f]+)/.exec((await send(null, 'GET', `/programs/cinema-4d${query}`, undefined, { accept: 'text/html' })).body)?.[1]
  const before = await page()
  t.ok(before, 'the program page shows the logo with a version')
  const upload = await send(editor, 'PUT', '/api/operator/programs/cinema-4d/logo', await png(64, 64, '#00aa44'), { 'content-type': 'image/png' })
  t.equal(upload.statusCode, 200)
  ahead += 1_001 // the second the BFF keeps what it read
  const after = await page('?again')
  t.not(after, before, 'a new version within the second')
  const served = await send(null, 'GET', `/logos/cinema-4d.svg?v=${after}`)
  t.equal(served.headers['content-type'], 'image/webp')
  t.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.equal((await send(null, 'GET', `/logos/cinema-4d.svg?v=${before}`)).headers['cache-control'], 'public, no-cache', 'the old version is no longer immutable')
  t.equal((await send(editor, 'DELETE', '/api/operator/programs/cinema-4d/logo')).statusCode, 204)
})

t.test('screenshots: re-encoded at the srcset widths, shown on the public program, at most 8, reordered, described, removed', async (t) => {
  const first = await send(editor, 'POST', '/api/operator/programs/blender/screenshots?alt=The%20modelling%20workspace', await png(1000, 625), { 'content-type': 'image/png' })
  t.equal(first.statusCode, 201, first.body)
  const shot = first.json() as { id: string; width: number; height: number; alt: Record<string, string>; srcset: Array<{ url: string; width: number }>; position: number }
  t.match(shot, { position: 0, width: 840, height: 525, alt: { en: 'The modelling workspace' } })
  t.same(shot.srcset.map((file) => file.width), [280, 560, 840], 'no width wider than the original')
  for (const file of shot.srcset) {
    t.match(file.url, /^\/api\/screenshots\/[0-9a-f]{32}\.webp$/)
    const served = await send(null, 'GET', file.url)
    t.equal(served.statusCode, 200)
    t.equal(served.headers['content-type'], 'image/webp')
    t.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.match(await sharp(served.rawPayload).metadata(), { format: 'webp', width: file.width })
  }
  const wide = await send(editor, 'POST', '/api/operator/programs/blender/screenshots', await sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#111' } }).jpeg().toBuffer(), { 'content-type': 'image/jpeg' })
  t.same((wide.json().srcset as Array<{ width: number }>).map((file) => file.width), [280, 560, 840, 1120, 1400, 1680], 'all six widths for a wide one')
  t.match(wide.json(), { position: 1, width: 1680, height: 840, alt: {} })
  const narrow = await send(editor, 'POST', '/api/operator/programs/blender/screenshots', await png(200, 150))
  t.equal(narrow.statusCode, 201, 'no declared type: the bytes decide')
  t.same(narrow.json().srcset.map((file: { width: number }) => file.width), [200], 'narrower than every width: its own alone')

  const program = (await send(editor, 'GET', '/api/programs/blender', undefined, { 'accept-language': 'de' })).json()
  t.same(
    program.screenshots.map((s: { id: string; alt: string; width: number; height: number }) => [s.id, s.alt, s.width, s.height]),
    [
      [shot.id, 'The modelling workspace', 840, 525],
      [wide.json().id, '', 1680, 840],
      [narrow.json().id, '', 200, 150],
    ],
    'the public program lists them in order, English alt where German is missing',
  )
  t.same(program.screenshots[0].srcset, shot.srcset)

  // A German alt text and a move to the front.
  const patched = await send(editor, 'PATCH', `/api/operator/programs/blender/screenshots/${wide.json().id}`, { alt: { de: 'Die Zeitleiste', en: 'The timeline' }, position: 0 })
  t.equal(patched.statusCode, 200, patched.body)
  t.same(patched.json().screenshots.map((s: { id: string }) => s.id), [wide.json().id, shot.id, narrow.json().id])
  const german = (await send(editor, 'GET', '/api/programs/blender', undefined, { 'accept-language': 'de' })).json()
  t.equal(german.screenshots[0].alt, 'Die Zeitleiste')
  t.equal((await send(editor, 'PATCH', `/api/operator/programs/blender/screenshots/${wide.json().id}`, { alt: { xx: 'no' } })).json().code, 'API_VALIDATION_FAILED', 'an unknown language')
  t.equal((await send(editor, 'PATCH', `/api/operator/programs/blender/screenshots/${wide.json().id}`, { position: 8 })).json().code, 'API_VALIDATION_FAILED', 'a position past the last')
  t.equal((await send(editor, 'PATCH', '/api/operator/programs/blender/screenshots/nope', { position: 0 })).json().code, 'API_SCREENSHOT_NOT_FOUND')

  // Up to 8; the 9th is refused.
  for (let i = 3; i < MAX_SCREENSHOTS; i += 1) t.equal((await send(editor, 'POST', '/api/operator/programs/blender/screenshots', await png(300, 200, `#${i}0${i}0${i}0`), { 'content-type': 'image/png' })).statusCode, 201)
  const ninth = await send(editor, 'POST', '/api/operator/programs/blender/screenshots', await png(300, 200), { 'content-type': 'image/png' })
  t.equal(ninth.statusCode, 409)
  t.equal(ninth.json().code, 'API_TOO_MANY_SCREENSHOTS')
  t.equal((await send(editor, 'GET', '/api/programs/blender')).json().screenshots.length, MAX_SCREENSHOTS)

  // Bad images.
  t.equal((await send(editor, 'POST', '/api/operator/programs/zbrush/screenshots', '<svg xmlns="http://www.w3.org/2000/svg"/>', { 'content-type': 'image/svg+xml' })).statusCode, 415)
  t.equal((await send(editor, 'POST', '/api/operator/programs/zbrush/screenshots', await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).gif().toBuffer())).json().code, 'API_IMAGE_UNSUPPORTED_TYPE')
  t.equal((await send(editor, 'POST', '/api/operator/programs/zbrush/screenshots', Buffer.alloc(10 * 1024 * 1024 + 1, 1), { 'content-type': 'image/png' })).json().code, 'API_IMAGE_TOO_LARGE')
  t.equal((await send(editor, 'POST', '/api/operator/programs/zbrush/screenshots', Buffer.alloc(0), { 'content-type': 'image/png' })).json().code, 'API_IMAGE_INVALID')

  // Removing one: its files are gone, the others close the gap.
  const removed = await send(editor, 'DELETE', `/api/operator/programs/blender/screenshots/${shot.id}`)
  t.equal(removed.statusCode, 204)
  t.equal((await send(null, 'GET', shot.srcset[0]!.url)).statusCode, 404, 'its files are gone')
  const media = (await send(editor, 'GET', '/api/operator/programs/blender/media')).json()
  t.same(media.screenshots.map((s: { position: number }) => s.position), [0, 1, 2, 3, 4, 5, 6])
  t.notOk(media.screenshots.some((s: { id: string }) => s.id === shot.id))
  t.equal((await send(editor, 'DELETE', `/api/operator/programs/blender/screenshots/${shot.id}`)).json().code, 'API_SCREENSHOT_NOT_FOUND')

  const audit = (await auditFor('program:blender')).filter((entry) => JSON.stringify(entry.after ?? entry.before).includes('screenshot'))
  t.equal(audit.length, MAX_SCREENSHOTS + 1 + 1, 'every upload, the change and the removal; nothing for the refusals')
  t.match(audit.find((entry) => JSON.stringify(entry.after).includes('Die Zeitleiste')), { before: { screenshot: { position: 1, alt: {} } }, after: { screenshot: { position: 0, alt: { de: 'Die Zeitleiste', en: 'The timeline' } } } })
  t.match(audit.at(-1), { before: { screenshot: { id: shot.id } }, after: null })
})

t.test('two uploads at once for the last place: one is taken, the other refused (counted under a lock of the program)', async (t) => {
  const small = await png(300, 200)
  for (let i = 0; i < MAX_SCREENSHOTS - 1; i += 1) t.equal((await send(editor, 'POST', '/api/operator/programs/gimp/screenshots', small, { 'content-type': 'image/png' })).statusCode, 201)
  const racing = await Promise.all([0, 1].map(() => send(editor, 'POST', '/api/operator/programs/gimp/screenshots', small, { 'content-type': 'image/png' })))
  t.same(racing.map((answer) => answer.statusCode).sort(), [201, 409])
  t.equal((await send(editor, 'GET', '/api/operator/programs/gimp/media')).json().screenshots.length, MAX_SCREENSHOTS)
})

t.test('an anonymous tab sees the program page with no operator route reachable', async (t) => {
  const anonymous = browser(stack.bff)
  t.equal((await anonymous.get('/api/operator/programs/blender/media')).statusCode, 401)
})

t.test('a visitor without a session sees a new screenshot, and a removed one gone, within a second (the catalogue version moves with every media write)', async (t) => {
  const shots = async () => ((await send(null, 'GET', '/api/programs/krita', undefined, { 'accept-language': 'en' })).json() as { screenshots: Array<{ id: string }> }).screenshots
  t.same(await shots(), [], 'none yet — and the answer is now in the shared cache')
  const added = await send(editor, 'POST', '/api/operator/programs/krita/screenshots', await png(400, 300), { 'content-type': 'image/png' })
  t.equal(added.statusCode, 201)
  ahead += 1_001
  t.same((await shots()).map((shot) => shot.id), [added.json().id], 'shown past the second')
  t.equal((await send(editor, 'DELETE', `/api/operator/programs/krita/screenshots/${added.json().id}`)).statusCode, 204)
  ahead += 1_001
  t.same(await shots(), [], 'and gone')
})
