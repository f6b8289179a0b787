import http from 'node:http'
import type net from 'node:net'
import zlib from 'node:zlib'
import sharp from 'sharp'
import t from 'tap'
import { AVATAR_MAX_BYTES } from '../../../shared/constants.ts'
import { LogCapture, browser, buildStack, signedInTab } from '../../helpers.ts'

// The avatar: PUT /api/user/avatar through the BFF, which enforces the limits before
// the product API sees a byte (size from Content-Length and while streaming, type by content);
// the API decodes and re-encodes, so what is served is ours: WebP, square, without metadata.

const apiLog = new LogCapture()
const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', LOG_LEVEL: 'info' }, apiLogStream: apiLog })
const apiSawAvatar = () => apiLog.lines.filter((line) => line.includes('/api/user/avatar') && line.includes('"PUT"')).length

type Tab = Awaited<ReturnType<typeof signedInTab>>
const upload = (tab: Tab, body: Buffer | string, headers: Record<string, string> = {}) =>
  stack.bff.inject({ method: 'PUT', url: '/api/user/avatar', headers: { cookie: tab.jar.header('/api/user'), rid: 'anti-csrf', 'content-type': 'application/octet-stream', ...headers }, payload: body })

/** A PNG chunk: length, type, data, CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(zlib.crc32(typed))
  return Buffer.concat([length, typed, crc])
}

/** A real PNG padded with a private ancillary chunk (decoders skip it) to exactly `size` bytes. */
async function pngOfSize(size: number): Promise<Buffer> {
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } }).png().toBuffer()
  const head = png.subarray(0, 33) // signature and IHDR
  const padding = size - png.length - 12
  return Buffer.concat([head, chunk('prVt', Buffer.alloc(padding, 0x41)), png.subarray(33)])
}

const red = () => sharp({ create: { width: 300, height: 200, channels: 3, background: '#cc2200' } })

t.test('a PNG, JPEG or WebP becomes a 256 px square WebP at a content-hash URL; the header shows it', async (t) => {
  const tab = await signedInTab(stack, 'avatar@example.com')
  for (const [type, bytes] of [
    ['png', await red().png().toBuffer()],
    ['jpeg', await red().jpeg().toBuffer()],
    ['webp', await red().webp().toBuffer()],
  ] as const) {
    const answer = await upload(tab, bytes)
    t.equal(answer.statusCode, 200, type)
    const { avatarUrl } = answer.json() as { avatarUrl: string }
    t.match(avatarUrl, /^\/api\/avatars\/[0-9a-f]{32}\.webp$/)
    t.equal((await tab.get('/api/user')).json().avatarUrl, avatarUrl, 'GET /api/user says so at once')
    const served = await tab.get(avatarUrl)
    t.equal(served.statusCode, 200)
    t.equal(served.headers['content-type'], 'image/webp')
    t.equal(served.headers['x-content-type-options'], 'nosniff')
    t.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable')
    const metadata = await sharp(served.rawPayload).metadata()
    t.match(metadata, { format: 'webp', width: 256, height: 256 }, `${type} re-encoded as a square`)
  }
  const page = await tab.get('/@/library', { accept: 'text/html' })
  t.match(page.body, new RegExp(`<img[^>]+src="${(await tab.get('/api/user')).json().avatarUrl}"`), 'the header of every signed-in page shows it')
})

t.test('the type is decided by the bytes; a declared type may only refuse it', async (t) => {
  const tab = await signedInTab(stack, 'types@example.com')
  const png = await red().png().toBuffer()
  t.equal((await upload(tab, png, { 'content-type': 'image/jpeg' })).statusCode, 200, 'a PNG declared as a JPEG is a PNG: the bytes decide among the three')
  t.equal((await upload(tab, png, { 'content-type': 'IMAGE/WEBP; q=1' })).statusCode, 200, 'any case, parameters aside')
  t.equal((await upload(tab, png, { 'content-type': 'application/octet-stream' })).statusCode, 200, 'bytes of no declared type, as the profile page sends them')
  const before = (await tab.get('/api/user')).json().avatarUrl
  const seen = apiSawAvatar()
  t.ok(seen >= 3, 'the accepted uploads reached the API (its log names them)')
  const refused: Array<[string, Buffer | string]> = [
    ['HTML', '<!doctype html><script>alert(1)</script>'],
    ['SVG', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>'],
    ['GIF', await red().gif().toBuffer()],
    ['a GIF/JavaScript polyglot', Buffer.from('GIF89a/*\x01\x00\x01\x00\x00\x00\x00*/=alert(1);//;')],
    ['a PNG signature glued to HTML', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('<html><script>alert(1)</script></html>')])],
    ['TIFF', await red().tiff().toBuffer()],
    ['nothing', ''],
  ]
  for (const [name, bytes] of refused) {
    const answer = await upload(tab, bytes, { 'content-type': 'image/png' })
    t.equal(answer.statusCode, 415, name)
    t.match(answer.json(), { code: 'AVATAR_UNSUPPORTED_TYPE', message: 'The picture must be a PNG, JPEG or WebP image.' })
  }
  t.equal(apiSawAvatar(), seen, 'the product API saw none of them')
  t.equal((await tab.get('/api/user')).json().avatarUrl, before, 'a refused upload leaves the old avatar')
})

// SECURITY.md says a declared type outside PNG, JPEG and WebP is 415. A real PNG
// declared as SVG, HTML or GIF used to be stored (the bytes alone decided); the declaration is
// now refused before the body is read, whatever the bytes.
t.test('a declared type outside PNG, JPEG and WebP is 415, even with a real PNG body', async (t) => {
  const tab = await signedInTab(stack, 'declared@example.com')
  const png = await red().png().toBuffer()
  t.equal((await upload(tab, png)).statusCode, 200, 'the PNG itself is fine')
  const before = (await tab.get('/api/user')).json().avatarUrl
  const seen = apiSawAvatar()
  // (text/plain and form types are a simple form's, refused earlier by the anti-forgery rule: 403.)
  const declared = ['image/svg+xml', 'text/html', 'text/html; charset=utf-8', 'image/gif', 'image/GIF', 'text/css', 'application/xml', 'application/json', 'multipart/form-data; boundary=x', 'image/png, text/html', 'image/pngx', 'image/*', 'IMAGE/SVG+XML']
  for (const type of declared) {
    const answer = await upload(tab, png, { 'content-type': type })
    t.equal(answer.statusCode, 415, type)
    t.match(answer.json(), { statusCode: 415, code: 'AVATAR_UNSUPPORTED_TYPE', message: 'The picture must be a PNG, JPEG or WebP image.', requestId: String }, type)
  }
  t.equal(apiSawAvatar(), seen, 'the product API saw none of them')
  t.equal((await tab.get('/api/user')).json().avatarUrl, before, 'the old avatar stays')
})

t.test('exactly 5 MiB is accepted, one byte more is 413, from Content-Length before the body is read', async (t) => {
  const tab = await signedInTab(stack, 'sizes@example.com')
  const exact = await pngOfSize(AVATAR_MAX_BYTES)
  t.equal(exact.length, 5 * 1024 * 1024)
  t.equal((await upload(tab, exact)).statusCode, 200, '5 × 1024 × 1024 bytes')
  const before = (await tab.get('/api/user')).json().avatarUrl
  const over = await upload(tab, await pngOfSize(AVATAR_MAX_BYTES + 1))
  t.equal(over.statusCode, 413)
  t.match(over.json(), { code: 'AVATAR_TOO_LARGE', message: 'The picture is larger than 5 MB. Choose a smaller one.' })
  t.equal((await tab.get('/api/user')).json().avatarUrl, before, 'the old avatar stays')

  // Over a real socket: a Content-Length over the limit is answered before any body is sent, and a
  // chunked body is cut off once it passes the limit, while the client is still sending.
  await stack.bff.listen({ host: '127.0.0.1', port: 0 })
  const port = (stack.bff.server.address() as net.AddressInfo).port
  const request = (headers: Record<string, string | number>) =>
    http.request({ host: '127.0.0.1', port, method: 'PUT', path: '/api/user/avatar', headers: { cookie: tab.jar.header('/api/user'), rid: 'anti-csrf', 'content-type': 'image/png', ...headers } })
  const answerOf = (req: http.ClientRequest) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('error', reject)
      req.on('response', (response) => {
        let body = ''
        response.on('data', (part: Buffer) => (body += part.toString()))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      })
    })

  const declared = request({ 'content-length': 50 * 1024 * 1024 })
  const declaredAnswer = answerOf(declared)
  declared.write(exact.subarray(0, 1024))
  const first = await declaredAnswer
  t.equal(first.status, 413, 'refused with 1 KiB of a declared 50 MiB sent')
  t.equal(JSON.parse(first.body).code, 'AVATAR_TOO_LARGE')
  declared.destroy()

  const streamed = request({ 'transfer-encoding': 'chunked' })
  const streamedAnswer = answerOf(streamed)
  let sent = 0
  let answered = false
  void streamedAnswer.then(() => (answered = true))
  // Keep sending 64 KiB pieces until the server answers, with a bound far above the limit.
  while (!answered && sent < 64 * 1024 * 1024) {
    const piece = Buffer.alloc(64 * 1024, 0x42)
    if (!streamed.write(piece)) await Promise.race([new Promise((resolve) => streamed.once('drain', resolve)), streamedAnswer])
    sent += piece.length
  }
  const second = await streamedAnswer
  t.equal(second.status, 413, 'a chunked body without a length is cut off')
  t.ok(sent < 64 * 1024 * 1024, `answered while the client was still sending (${(sent / 1048576).toFixed(1)} MiB sent)`)
  streamed.destroy()
})

t.test('decoded and re-encoded: EXIF GPS gone, a decompression bomb refused, a broken image refused', async (t) => {
  const tab = await signedInTab(stack, 'exif@example.com')
  const tagged = await red()
    .jpeg()
    .withExif({ IFD0: { Make: 'SpyCam', Copyright: 'Secret Person' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 8/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '17/1 6/1 0/1' } })
    .toBuffer()
  t.ok((await sharp(tagged).metadata()).exif, 'the upload carries EXIF')
  t.ok(tagged.includes(Buffer.from('SpyCam')), 'and its camera name in the bytes')
  const answer = await upload(tab, tagged)
  t.equal(answer.statusCode, 200)
  const served = (await tab.get(answer.json().avatarUrl)).rawPayload
  const metadata = await sharp(served).metadata()
  t.equal(metadata.exif, undefined, 'no EXIF in the served bytes')
  t.equal(metadata.icc, undefined)
  t.equal(metadata.xmp, undefined)
  t.notOk(served.includes(Buffer.from('SpyCam')) || served.includes(Buffer.from('Secret Person')) || served.includes(Buffer.from('GPS')), 'nothing of it left')

  const before = answer.json().avatarUrl
  // 50 000 × 50 000 pixels declared in the header, with a few bytes of image data: refused from the header.
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(50_000, 0)
  ihdr.writeUInt32BE(50_000, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const bomb = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(150_001))), chunk('IEND', Buffer.alloc(0))])
  const refused = await upload(tab, bomb)
  t.equal(refused.statusCode, 400)
  t.match(refused.json(), { code: 'AVATAR_TOO_MANY_PIXELS', message: /at most 50 megapixels/ })

  const broken = (await red().png().toBuffer()).subarray(0, 60)
  const unreadable = await upload(tab, broken)
  t.equal(unreadable.statusCode, 400)
  t.match(unreadable.json(), { code: 'AVATAR_UNREADABLE' })
  t.equal((await tab.get('/api/user')).json().avatarUrl, before, 'the old avatar stays')
})

t.test('a new avatar is a new URL; the old one and a removed one are gone; others cannot touch it', async (t) => {
  const tab = await signedInTab(stack, 'replace@example.com')
  const first = (await upload(tab, await red().png().toBuffer())).json().avatarUrl as string
  const second = (await upload(tab, await sharp({ create: { width: 50, height: 50, channels: 3, background: '#00aa00' } }).png().toBuffer())).json().avatarUrl as string
  t.not(second, first)
  t.equal((await tab.get(first)).statusCode, 404, 'the replaced one is not served')
  t.equal((await tab.get(first)).json().code, 'API_AVATAR_NOT_FOUND')
  t.equal((await browser(stack.bff).get(second)).statusCode, 200, 'served without a session: the URL is the secret')

  const forged = await stack.bff.inject({ method: 'DELETE', url: '/api/user/avatar', headers: { cookie: tab.jar.header('/api/user') } })
  t.equal(forged.statusCode, 403, 'a delete without the anti-forgery header is refused')
  t.equal((await tab.get(second)).statusCode, 200)
  const removed = await tab.delete('/api/user/avatar')
  t.equal(removed.statusCode, 204)
  t.equal((await tab.get('/api/user')).json().avatarUrl, null)
  t.equal((await tab.get(second)).statusCode, 404)

  const same = await red().png().toBuffer()
  const other = await signedInTab(stack, 'other@example.com')
  const mine = (await upload(tab, same)).json().avatarUrl
  const theirs = (await upload(other, same)).json().avatarUrl
  t.not(mine, theirs, 'the same picture is a different URL for another account')
  t.equal((await other.get('/api/user/export')).json().avatar.url, theirs, 'the export names the avatar')
})

t.test('an upload needs a full session and the anti-forgery header, checked before the body', async (t) => {
  const png = await red().png().toBuffer()
  const visitor = await stack.bff.inject({ method: 'PUT', url: '/api/user/avatar', headers: { rid: 'anti-csrf', 'content-type': 'image/png' }, payload: png })
  t.equal(visitor.statusCode, 401)
  const tab = await signedInTab(stack, 'forged@example.com')
  const forged = await stack.bff.inject({ method: 'PUT', url: '/api/user/avatar', headers: { cookie: tab.jar.header('/api/user'), 'content-type': 'image/png' }, payload: png })
  t.equal(forged.statusCode, 403)
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')
  const unverified = browser(stack.bff)
  await unverified.post('/auth/signup', { formFields: [{ id: 'email', value: 'early@example.com' }, { id: 'password', value: 'correct horse battery' }] })
  const early = await upload(unverified as unknown as Tab, png)
  t.equal(early.statusCode, 403, 'an unverified email is the SDK\'s 403')
  t.equal((await tab.get('/api/user')).json().avatarUrl, null)
})
