import { Readable } from 'node:stream'
import type { LightMyRequestResponse } from 'fastify'
import t from 'tap'
import type { FileItem } from '../../../server/api/files/repository.ts'
import { shareCookieName } from '../../../server/bff/share-access.ts'
import { SHARE_PREVIEW_MAX_BYTES } from '../../../shared/constants.ts'
import { CookieJar, LogCapture, buildStack, signedInPerson, type Tab } from '../../helpers.ts'
import { readZip } from '../../zip-reader.ts'

// Share links (decision 016), driven through the BFF as the browser does: the owner's
// routes with a session, the visitor's without one, the unlock token kept in the link's httpOnly
// cookie. Time moves by the services' injected clock, never by waiting.

const MINUTE = 60_000
let clockOffset = 0
/** Set: the clock stands still there (plus the offset), so counted seconds are exact. */
let frozenAt: number | undefined
const apiLog = new LogCapture()
const bffLog = new LogCapture()
const stack = await buildStack(t, {
  auth: true,
  env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'info' },
  apiLogStream: apiLog,
  bffLogStream: bffLog,
  now: () => (frozenAt ?? Date.now()) + clockOffset,
})
const files = stack.api.files
const clock = () => (frozenAt ?? Date.now()) + clockOffset
t.afterEach(() => {
  clockOffset = 0
  frozenAt = undefined
})

type Created = { id: string; link: string; url: string }

const person = () => signedInPerson(stack, 'sharer')

/** A request through the BFF with this jar's cookies (a signed-in tab's, or a visitor's own). */
async function call(jar: CookieJar, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') {
  const response = await stack.bff.inject({
    method,
    url,
    remoteAddress,
    headers: {
      cookie: jar.header(url),
      rid: 'anti-csrf',
      origin: 'http://localhost:3000',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  })
  jar.store(response)
  return response
}
const owner = (tab: Tab, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) => call(tab.jar, method, url, body)
const visitor = () => new CookieJar()

const folder = async (tab: Tab, name: string, parentId?: string) => {
  const answer = await owner(tab, 'POST', '/api/files/folders', { name, ...(parentId ? { parentId } : {}) })
  if (answer.statusCode !== 201) throw new Error(`folder ${name}: ${answer.body}`)
  return answer.json() as FileItem
}
const add = (userId: string, parentId: string | null, name: string, content: string | Buffer) => files.addFile(userId, parentId, name, Readable.from([Buffer.from(content)]))
async function share(tab: Tab, itemId: string, options: Record<string, unknown> = {}): Promise<Created> {
  const answer = await owner(tab, 'POST', `/api/files/${itemId}/shares`, options)
  if (answer.statusCode !== 201) throw new Error(`share: ${answer.body}`)
  return answer.json() as Created
}
const listShares = async (tab: Tab) => (await owner(tab, 'GET', '/api/files/shares')).json().items as Array<Record<string, unknown>>
const codeOf = (answer: LightMyRequestResponse) => (answer.json() as { code: string }).code
/** The API itself, as the BFF calls it. */
const direct = (url: string, headers: Record<string, string> = {}) => fetch(`${stack.apiUrl}${url}`, { headers })

// A 1×1 PNG.
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex')

t.test('create, list and revoke; validation; another user\'s item or share is not found', async (t) => {
  const { tab, userId } = await person()
  const other = await person()
  const docs = await folder(tab, 'Docs')
  const report = await add(userId, docs.id, 'report.pdf', '%PDF-1.7 report')

  const created = await owner(tab, 'POST', `/api/files/${report.id}/shares`, {})
  t.equal(created.statusCode, 201)
  const first = created.json() as Created
  t.same(Object.keys(first).sort(), ['id', 'link', 'url'])
  t.match(first.link, /^[A-Za-z0-9_-]{32}$/, '192 random bits, base64url')
  t.equal(first.url, `http://localhost:3000/sharing/${first.link}`)
  t.equal(created.headers['cache-control'], 'no-store')
  const expiresAt = new Date(clock() + 7 * 24 * 60 * MINUTE).toISOString()
  const second = await share(tab, docs.id, { password: 'open sesame', expiresAt, allowDownload: false })
  t.not(second.link, first.link)

  const items = await listShares(tab)
  t.same(
    items.map((item) => [item.id, item.itemName, item.itemType, item.hasPassword, item.allowDownload, item.expiresAt, item.views, item.state]),
    [
      [second.id, 'Docs', 'folder', true, false, expiresAt, 0, 'active'],
      [first.id, 'report.pdf', 'file', false, true, null, 0, 'active'],
    ],
    'newest first, every field',
  )
  t.same(Object.keys(items[0]!).sort(), ['allowDownload', 'createdAt', 'expiresAt', 'hasPassword', 'id', 'itemId', 'itemName', 'itemType', 'link', 'state', 'url', 'views'])
  t.match(items[1], { itemId: report.id, link: first.link, url: first.url, createdAt: String })
  t.same(await listShares(other.tab), [], 'nobody else sees them')

  const refusals: Array<[string, unknown, number, string]> = [
    ['expiry in the past', { expiresAt: new Date(clock() - 1000).toISOString() }, 400, 'SHARE_EXPIRY_INVALID'],
    ['expiry now', { expiresAt: new Date(clock()).toISOString() }, 400, 'SHARE_EXPIRY_INVALID'],
    ['expiry not a date', { expiresAt: 'next tuesday' }, 400, 'SHARE_EXPIRY_INVALID'],
    ['password too short', { password: 'short' }, 400, 'SHARE_PASSWORD_INVALID'],
    ['password too long', { password: 'x'.repeat(257) }, 400, 'SHARE_PASSWORD_INVALID'],
  ]
  for (const [what, body, status, code] of refusals) {
    const answer = await owner(tab, 'POST', `/api/files/${report.id}/shares`, body)
    t.equal(answer.statusCode, status, what)
    t.equal(codeOf(answer), code, what)
  }
  t.equal((await listShares(tab)).length, 2, 'a refusal makes no link')
  const blank = await share(tab, report.id, { password: '', expiresAt: null })
  t.match(await listShares(tab), [{ id: blank.id, hasPassword: false, expiresAt: null }], 'an empty password is none (a form left blank)')
  await owner(tab, 'DELETE', `/api/files/shares/${blank.id}`)

  const theirs = await owner(other.tab, 'POST', `/api/files/${report.id}/shares`, {})
  t.equal(theirs.statusCode, 404, 'another user\'s item')
  t.equal(codeOf(theirs), 'FILES_NOT_FOUND')
  t.equal(codeOf(await owner(tab, 'POST', '/api/files/no-such-item/shares', {})), 'FILES_NOT_FOUND')
  const revokeTheirs = await owner(other.tab, 'DELETE', `/api/files/shares/${first.id}`)
  t.equal(revokeTheirs.statusCode, 404, 'another user\'s share')
  t.equal(codeOf(revokeTheirs), 'SHARE_NOT_FOUND')
  const anonymous = await call(visitor(), 'POST', `/api/files/${report.id}/shares`, {})
  t.equal(anonymous.statusCode, 401, 'the owner\'s routes need a session')
  t.equal((await call(tab.jar, 'POST', `/api/files/${report.id}/shares`, {}, { rid: '' })).statusCode, 403, 'and the anti-forgery header')

  const revoked = await owner(tab, 'DELETE', `/api/files/shares/${first.id}`)
  t.equal(revoked.statusCode, 204)
  t.same((await listShares(tab)).map((item) => item.id), [second.id], 'a revoked link is not listed')
  t.equal(codeOf(await owner(tab, 'DELETE', `/api/files/shares/${first.id}`)), 'SHARE_NOT_FOUND', 'nor revoked twice')
  const gone = await call(visitor(), 'GET', `/api/sharing/${first.link}`)
  t.equal(gone.statusCode, 410, 'the link answers 410')
  t.equal(codeOf(gone), 'SHARE_REVOKED')
  t.equal(codeOf(await call(visitor(), 'GET', `/api/sharing/${first.link}/content`)), 'SHARE_REVOKED', 'its content too')

  // $RECYCLE.BIN is never an item (the database refuses one), so there is nothing to share.
  await t.rejects(
    stack.db.query(`INSERT INTO api.file_items (id, user_id, type, name, created_at, updated_at) VALUES ('bin-folder', $1, 'folder', '$Recycle.Bin', now(), now())`, [userId]),
    'no $RECYCLE.BIN item can exist',
  )
  t.equal(codeOf(await owner(tab, 'POST', '/api/files/bin-folder/shares', {})), 'FILES_NOT_FOUND')
})

t.test('a visitor without a session sees a shared file; unknown links are 404; the view counter counts openings', async (t) => {
  const { tab, userId } = await person()
  const file = await add(userId, null, 'notes.txt', 'shared notes')
  const link = await share(tab, file.id)
  const guest = visitor()
  const seen = await call(guest, 'GET', `/api/sharing/${link.link}`)
  t.equal(seen.statusCode, 200)
  t.same(seen.json(), {
    share: { name: 'notes.txt', type: 'file', allowDownload: true, expiresAt: null, hasPassword: false },
    item: { id: file.id, type: 'file', name: 'notes.txt', size: 12, mimeType: 'text/plain', updatedAt: file.updatedAt },
  })
  t.equal(seen.headers['referrer-policy'], 'no-referrer', 'through the BFF')
  t.equal(seen.headers['x-robots-tag'], 'noindex, nofollow')
  t.equal(seen.headers['cache-control'], 'no-store')
  await call(guest, 'GET', `/api/sharing/${link.link}`)
  const download = await call(guest, 'GET', `/api/sharing/${link.link}/content`)
  t.equal(download.statusCode, 200)
  t.equal(download.body, 'shared notes')
  t.equal(download.headers['referrer-policy'], 'no-referrer', 'a download too')
  t.equal(download.headers['x-robots-tag'], 'noindex, nofollow')
  t.match(download.headers['content-disposition'], /^attachment; filename="notes.txt"/)
  t.equal((await listShares(tab))[0]!.views, 2, 'two openings; the download does not count')

  for (const unknown of ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'x', 'not a link']) {
    const answer = await call(visitor(), 'GET', `/api/sharing/${encodeURIComponent(unknown)}`)
    t.equal(answer.statusCode, 404, unknown)
    t.equal(codeOf(answer), 'SHARE_NOT_FOUND')
    t.equal(answer.headers['referrer-policy'], 'no-referrer', 'errors carry the headers too')
  }
  const page = await stack.bff.inject({ method: 'GET', url: `/sharing/${link.link}` })
  t.equal(page.headers['referrer-policy'], 'no-referrer', 'the share page itself')
  t.equal(page.headers['x-robots-tag'], 'noindex, nofollow')

  // The item in the trash: the link finds nothing; restored: it works again; deleted for good: gone.
  await owner(tab, 'DELETE', `/api/files/${file.id}`)
  t.equal(codeOf(await call(visitor(), 'GET', `/api/sharing/${link.link}`)), 'SHARE_NOT_FOUND', 'in the trash')
  t.same(await listShares(tab), [], 'nor listed while in the trash')
  await owner(tab, 'POST', `/api/files/${file.id}/restore`)
  t.equal((await call(visitor(), 'GET', `/api/sharing/${link.link}`)).statusCode, 200, 'restored')
  await owner(tab, 'DELETE', `/api/files/${file.id}`)
  await owner(tab, 'DELETE', '/api/files/trash')
  t.equal(codeOf(await call(visitor(), 'GET', `/api/sharing/${link.link}`)), 'SHARE_NOT_FOUND', 'deleted for good')
  t.equal(Number((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api.file_shares WHERE id = $1', [link.id])).rows[0]!.n), 0, 'the link went with it')
})

t.test('expiry: valid one second before, 410 from the moment it expires', async (t) => {
  const { tab, userId } = await person()
  const file = await add(userId, null, 'soon.txt', 'soon gone')
  const expiresAt = Math.floor((clock() + 60 * MINUTE) / 1000) * 1000
  const link = await share(tab, file.id, { expiresAt: new Date(expiresAt).toISOString() })
  clockOffset = expiresAt - 1000 - Date.now()
  t.equal((await call(visitor(), 'GET', `/api/sharing/${link.link}`)).statusCode, 200, 'at expiry − 1 s')
  t.equal((await call(visitor(), 'GET', `/api/sharing/${link.link}/content`)).statusCode, 200)
  t.equal((await listShares(tab))[0]!.state, 'active')
  clockOffset = expiresAt - Date.now()
  const expired = await call(visitor(), 'GET', `/api/sharing/${link.link}`)
  t.equal(expired.statusCode, 410, 'at expiry')
  t.equal(codeOf(expired), 'SHARE_EXPIRED')
  t.match(expired.json().message, /expired/)
  t.equal(codeOf(await call(visitor(), 'GET', `/api/sharing/${link.link}/content`)), 'SHARE_EXPIRED')
  t.equal(codeOf(await call(visitor(), 'POST', `/api/sharing/${link.link}/unlock`, { password: 'whatever1' })), 'SHARE_EXPIRED')
  t.match(await listShares(tab), [{ id: link.id, state: 'expired' }], 'listed as expired for its owner')
})

t.test('passwords: required, wrong, unlocked through the BFF\'s httpOnly cookie; tokens open only their own link', async (t) => {
  const { tab, userId } = await person()
  const secret = await add(userId, null, 'secret.txt', 'the secret')
  const other = await add(userId, null, 'other.txt', 'another secret')
  const password = 'Correct-Horse-Canary-7731'
  const a = await share(tab, secret.id, { password })
  const b = await share(tab, other.id, { password })
  const guest = visitor()

  const locked = await call(guest, 'GET', `/api/sharing/${a.link}`)
  t.equal(locked.statusCode, 401)
  t.equal(codeOf(locked), 'SHARE_PASSWORD_REQUIRED')
  t.notMatch(locked.body, /secret\.txt/, 'nothing about the item before the password')
  t.equal(codeOf(await call(guest, 'GET', `/api/sharing/${a.link}/content`)), 'SHARE_PASSWORD_REQUIRED', 'nor its bytes')

  const form = await call(guest, 'POST', `/api/sharing/${a.link}/unlock`, undefined, { 'content-type': 'application/x-www-form-urlencoded' })
  t.equal(form.statusCode, 403, 'unlock follows the anti-forgery rule of every write')
  t.equal((await call(guest, 'POST', `/api/sharing/${a.link}/unlock`, { password }, { rid: '' })).statusCode, 403, 'without rid')
  const wrong = await call(guest, 'POST', `/api/sharing/${a.link}/unlock`, { password: 'not the password' })
  t.equal(wrong.statusCode, 401)
  t.equal(codeOf(wrong), 'SHARE_PASSWORD_WRONG')
  t.equal(guest.get(shareCookieName(a.link)), undefined, 'no cookie for a wrong password')

  const unlocked = await call(guest, 'POST', `/api/sharing/${a.link}/unlock`, { password })
  t.equal(unlocked.statusCode, 200, 'a visitor without a session passes the anti-forgery rule with rid')
  const answer = unlocked.json() as { ok: boolean; expiresAt: string; token?: string }
  t.same(Object.keys(answer).sort(), ['expiresAt', 'ok'], 'the token is not in what the page sees')
  t.equal(answer.ok, true)
  t.ok(Math.abs(Date.parse(answer.expiresAt) - (clock() + 12 * 60 * MINUTE)) < 5000, 'valid 12 hours')
  const cookie = (unlocked.cookies as Array<{ name: string; value: string; httpOnly?: boolean; sameSite?: string; path?: string; secure?: boolean; expires?: Date }>).find(
    (c) => c.name === shareCookieName(a.link),
  )
  t.ok(cookie, 'the link\'s cookie is set')
  t.match(cookie, { httpOnly: true, sameSite: 'Lax', path: '/' })
  t.notOk(cookie!.secure, 'not Secure over http (it is under https)')
  t.equal(unlocked.headers['referrer-policy'], 'no-referrer')

  const opened = await call(guest, 'GET', `/api/sharing/${a.link}`)
  t.equal(opened.statusCode, 200, 'the cookie opens the link')
  t.match(opened.json(), { share: { name: 'secret.txt', hasPassword: true }, item: { id: secret.id } })
  t.equal((await call(guest, 'GET', `/api/sharing/${a.link}/content`)).body, 'the secret')
  t.equal(codeOf(await call(guest, 'GET', `/api/sharing/${b.link}`)), 'SHARE_PASSWORD_REQUIRED', 'not another link of the same owner')

  // The token itself, as the API knows it: on another link, forged, or expired, it opens nothing.
  const token = cookie!.value
  t.equal((await direct(`/api/sharing/${a.link}`, { 'x-share-token': token })).status, 200)
  const onB = await direct(`/api/sharing/${b.link}`, { 'x-share-token': token })
  t.equal(onB.status, 401, 'link A\'s token on link B')
  t.equal(((await onB.json()) as { code: string }).code, 'SHARE_PASSWORD_REQUIRED')
  const [version, expiry, mac] = token.split('.')
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  // The last character carries 4 bits of the MAC and 2 that decoding drops: this spelling decodes
  // to the same MAC, and is still not the token that was issued.
  const respelled = `${mac!.slice(0, -1)}${alphabet[alphabet.indexOf(mac!.at(-1)!) ^ 1]}`
  const forgeries = {
    'a later expiry': `${version}.${Number(expiry) + 1000}.${mac}`,
    'a MAC changed': `${version}.${expiry}.${mac![0] === 'A' ? 'B' : 'A'}${mac!.slice(1)}`,
    'the same MAC spelled otherwise': `${version}.${expiry}.${respelled}`,
    'a MAC of zeros': `${version}.${expiry}.${'A'.repeat(43)}`,
    'a short MAC': 'v1.99999999999999.xyz',
    'nothing': '',
  }
  for (const [what, forged] of Object.entries(forgeries)) t.equal((await direct(`/api/sharing/${a.link}`, { 'x-share-token': forged })).status, 401, `forged: ${what}`)
  const smuggled = await call(visitor(), 'GET', `/api/sharing/${b.link}`, undefined, { cookie: `${shareCookieName(b.link)}=${token}` })
  t.equal(smuggled.statusCode, 401, 'link A\'s token in link B\'s cookie')
  const headerFromBrowser = await call(visitor(), 'GET', `/api/sharing/${a.link}`, undefined, { 'x-share-token': token })
  t.equal(headerFromBrowser.statusCode, 401, 'the BFF never forwards an x-share-token the browser sends itself')

  clockOffset = 12 * 60 * MINUTE + 1000
  t.equal(codeOf(await call(guest, 'GET', `/api/sharing/${a.link}`)), 'SHARE_PASSWORD_REQUIRED', 'an unlock lasts 12 hours')

  // A token never outlives its link: one that expires in 10 minutes unlocks for 10 minutes.
  clockOffset = 0
  const shortLived = await share(tab, secret.id, { password, expiresAt: new Date(clock() + 10 * MINUTE).toISOString() })
  const short = await call(visitor(), 'POST', `/api/sharing/${shortLived.link}/unlock`, { password })
  t.ok(Math.abs(Date.parse(short.json().expiresAt) - (clock() + 10 * MINUTE)) < 5000)
  // Revoking ends an unlock at once.
  await owner(tab, 'DELETE', `/api/files/shares/${a.id}`)
  t.equal(codeOf(await call(guest, 'GET', `/api/sharing/${a.link}`)), 'SHARE_REVOKED')
})

t.test('guessing is limited per link and per IP, counted in the database; the window passes by the clock', async (t) => {
  const { tab, userId } = await person()
  const file = await add(userId, null, 'vault.txt', 'vault')
  const password = 'the right password'
  const link = await share(tab, file.id, { password })
  frozenAt = Date.now()
  const guess = (candidate: string, ip = '203.0.113.7', jar = visitor()) => call(jar, 'POST', `/api/sharing/${link.link}/unlock`, { password: candidate }, {}, ip)

  for (let i = 1; i <= 10; i += 1) {
    clockOffset = i * 1000
    t.equal(codeOf(await guess(`wrong guess ${i}`, `203.0.113.${i}`)), 'SHARE_PASSWORD_WRONG', `wrong ${i}, from several IPs`)
  }
  clockOffset = 11_000
  const blocked = await guess('wrong guess 11', '198.51.100.1')
  t.equal(blocked.statusCode, 429, 'the 11th in 15 minutes, from any IP')
  t.equal(codeOf(blocked), 'SHARE_TOO_MANY_ATTEMPTS')
  t.equal(blocked.headers['retry-after'], String(15 * 60 - 10), 'until the oldest attempt leaves the window')
  t.match(blocked.json().message, /wait 15 minutes/)
  const rightButBlocked = await guess(password, '198.51.100.2')
  t.equal(rightButBlocked.statusCode, 429, 'the right password is refused too while blocked')

  clockOffset = 1000 + 15 * MINUTE
  const after = await guess(password, '198.51.100.3')
  t.equal(after.statusCode, 200, 'the first attempt has left the window')

  // Per IP, over several links: 30 wrong passwords from one address, fewer than 10 on each link.
  clockOffset = 0
  const links = [] as Created[]
  for (let i = 0; i < 4; i += 1) links.push(await share(tab, file.id, { password }))
  const ip = '192.0.2.50'
  let wrong = 0
  for (let i = 0; i < 30; i += 1) {
    const target = links[i % 4]!
    const answer = await call(visitor(), 'POST', `/api/sharing/${target.link}/unlock`, { password: `nope ${i}` }, {}, ip)
    if (codeOf(answer) === 'SHARE_PASSWORD_WRONG') wrong += 1
  }
  t.equal(wrong, 30, '30 wrong passwords answered as such')
  const ipBlocked = await call(visitor(), 'POST', `/api/sharing/${links[0]!.link}/unlock`, { password }, {}, ip)
  t.equal(ipBlocked.statusCode, 429, 'the 31st from that IP, right password or not')
  t.equal(codeOf(ipBlocked), 'SHARE_TOO_MANY_ATTEMPTS')
  const elsewhere = await call(visitor(), 'POST', `/api/sharing/${links[0]!.link}/unlock`, { password }, {}, '192.0.2.51')
  t.equal(elsewhere.statusCode, 200, 'another IP is not blocked on that link')
  clockOffset = 15 * MINUTE + 1000
  t.equal((await call(visitor(), 'POST', `/api/sharing/${links[0]!.link}/unlock`, { password }, {}, ip)).statusCode, 200, 'the window passes')
})

t.test('a shared folder: browsing inside it, nothing outside it, files with Range, the whole folder as a zip', async (t) => {
  const { tab, userId } = await person()
  const root = await folder(tab, 'Holiday')
  const day1 = await folder(tab, 'Day 1', root.id)
  await folder(tab, 'Empty', root.id)
  const beach = await add(userId, day1.id, 'beach.png', PNG)
  const diary = await add(userId, root.id, 'Diary é.txt', '0123456789')
  const outside = await add(userId, null, 'private.txt', 'private')
  const sibling = await folder(tab, 'Sibling')
  const link = await share(tab, root.id)
  const guest = visitor()

  const top = await call(guest, 'GET', `/api/sharing/${link.link}`)
  t.equal(top.statusCode, 200)
  const body = top.json()
  t.same(body.share, { name: 'Holiday', type: 'folder', allowDownload: true, expiresAt: null, hasPassword: false })
  t.same(body.folder, { id: root.id, name: 'Holiday', path: [{ id: root.id, name: 'Holiday' }] })
  t.same(body.items.map((item: FileItem) => `${item.type}:${item.name}`), ['folder:Day 1', 'folder:Empty', 'file:Diary é.txt'])
  t.same(Object.keys(body.items[0]).sort(), ['id', 'mimeType', 'name', 'size', 'type', 'updatedAt'], 'the listing\'s item shape')

  const inner = await call(guest, 'GET', `/api/sharing/${link.link}?folder=${day1.id}`)
  t.equal(inner.statusCode, 200)
  t.same(inner.json().folder, { id: day1.id, name: 'Day 1', path: [{ id: root.id, name: 'Holiday' }, { id: day1.id, name: 'Day 1' }] }, 'the path starts at the shared folder')
  t.same(inner.json().items.map((item: FileItem) => item.name), ['beach.png'])
  for (const [what, id] of [['a folder outside', sibling.id], ['a file outside', outside.id], ['a file inside, as a folder', diary.id], ['unknown', 'nope']] as const) {
    const answer = await call(guest, 'GET', `/api/sharing/${link.link}?folder=${id}`)
    t.equal(answer.statusCode, 404, what)
    t.equal(codeOf(answer), 'SHARE_NOT_FOUND', what)
  }
  t.equal(codeOf(await call(guest, 'GET', `/api/sharing/${link.link}/content?item=${outside.id}`)), 'SHARE_NOT_FOUND', 'no download outside the share')
  t.equal((await listShares(tab))[0]!.views, 1, 'browsing a subfolder is not another view')

  const ranged = await call(guest, 'GET', `/api/sharing/${link.link}/content?item=${diary.id}`, undefined, { range: 'bytes=2-5' })
  t.equal(ranged.statusCode, 206)
  t.equal(ranged.body, '2345')
  t.equal(ranged.headers['content-range'], 'bytes 2-5/10')
  t.match(ranged.headers.etag, /^"[0-9a-f]{32}"$/)
  t.equal((await call(guest, 'GET', `/api/sharing/${link.link}/content?item=${diary.id}`, undefined, { 'if-none-match': ranged.headers.etag as string })).statusCode, 304)
  t.match(ranged.headers['content-security-policy'], /sandbox/)
  t.equal(ranged.headers['x-content-type-options'], 'nosniff')

  const zip = await call(guest, 'GET', `/api/sharing/${link.link}/content`)
  t.equal(zip.statusCode, 200)
  t.equal(zip.headers['content-type'], 'application/zip')
  t.equal(zip.headers['content-disposition'], `attachment; filename="Holiday.zip"; filename*=UTF-8''Holiday.zip`)
  const entries = readZip(zip.rawPayload)
  t.same(entries.map((entry) => entry.name), ['Day 1/', 'Day 1/beach.png', 'Diary é.txt', 'Empty/'])
  t.same(entries.find((entry) => entry.name === 'Day 1/beach.png')!.data, PNG)
  t.equal(entries.find((entry) => entry.name === 'Diary é.txt')!.data.toString(), '0123456789')
  const subZip = await call(guest, 'GET', `/api/sharing/${link.link}/content?item=${day1.id}`)
  t.same(readZip(subZip.rawPayload).map((entry) => entry.name), ['beach.png'], 'a subfolder as its own zip')
  t.equal(subZip.headers['content-disposition'], `attachment; filename="Day 1.zip"; filename*=UTF-8''Day%201.zip`)

  // Inline previews, for the types we render.
  const preview = await call(guest, 'GET', `/api/sharing/${link.link}/content?item=${beach.id}&disposition=inline`)
  t.equal(preview.statusCode, 200)
  t.match(preview.headers['content-disposition'], /^inline; filename="beach.png"/)
  t.equal(preview.headers['content-type'], 'image/png')
  const textInline = await call(guest, 'GET', `/api/sharing/${link.link}/content?item=${diary.id}&disposition=inline`)
  t.match(textInline.headers['content-disposition'], /^inline;/, 'plain text is previewed as text (issue 27)')
  t.equal(textInline.headers['content-type'], 'text/plain; charset=utf-8')
})

t.test('without downloads: attachments and zips are refused, previews of the types we render are served', async (t) => {
  const { tab, userId } = await person()
  const box = await folder(tab, 'Box')
  const picture = await add(userId, box.id, 'picture.png', PNG)
  const page = await add(userId, box.id, 'page.html', '<script>alert(1)</script>')
  const link = await share(tab, box.id, { allowDownload: false })
  const guest = visitor()
  t.match((await call(guest, 'GET', `/api/sharing/${link.link}`)).json(), { share: { allowDownload: false } })
  for (const [what, url] of [
    ['the folder\'s zip', `/api/sharing/${link.link}/content`],
    ['a file as an attachment', `/api/sharing/${link.link}/content?item=${picture.id}`],
    ['an HTML file asked inline', `/api/sharing/${link.link}/content?item=${page.id}&disposition=inline`],
  ] as const) {
    const answer = await call(guest, 'GET', url)
    t.equal(answer.statusCode, 403, what)
    t.equal(codeOf(answer), 'SHARE_DOWNLOAD_NOT_ALLOWED', what)
  }
  const preview = await call(guest, 'GET', `/api/sharing/${link.link}/content?item=${picture.id}&disposition=inline`)
  t.equal(preview.statusCode, 200, 'a PNG preview is still shown')
  t.same(preview.rawPayload, PNG)
  t.match(preview.headers['content-disposition'], /^inline;/)
})

// A view-only folder link showed names and sizes only. It previews what a browser shows
// — PNG, JPEG, GIF, WebP, PDF, and plain text as text — inline, sandboxed, never sniffed, up to a
// size, for items inside the shared folder only; never HTML, SVG or anything else, never a download.
t.test('a view-only link previews images, PDFs and text inline inside the share, and nothing else (issue 27)', async (t) => {
  const { tab, userId } = await person()
  const stranger = await person()
  const box = await folder(tab, 'Box')
  const inner = await folder(tab, 'Inner', box.id)
  const elsewhere = await folder(tab, 'Elsewhere')
  const PDF = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'
  const picture = await add(userId, box.id, 'picture.png', PNG)
  const notes = await add(userId, inner.id, 'notes.txt', 'Hello <b>viewer</b>\n')
  const pdf = await add(userId, box.id, 'report.pdf', PDF)
  const html = await add(userId, box.id, 'page.html', '<script>alert(1)</script>')
  const svg = await add(userId, box.id, 'drawing.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
  const markdown = await add(userId, box.id, 'README.md', '# not plain text')
  const archive = await add(userId, box.id, 'tools.zip', 'PK')
  const big = await add(userId, box.id, 'big.txt', Buffer.alloc(SHARE_PREVIEW_MAX_BYTES.text + 1, 'a'))
  const edge = await add(userId, box.id, 'edge.txt', Buffer.alloc(SHARE_PREVIEW_MAX_BYTES.text, 'b'))
  const outside = await add(userId, elsewhere.id, 'secret.png', PNG)
  const theirs = await add(stranger.userId, null, 'theirs.png', PNG)
  const binned = await add(userId, box.id, 'binned.png', PNG)
  t.equal((await owner(tab, 'DELETE', `/api/files/${binned.id}`)).statusCode, 204)
  const link = await share(tab, box.id, { allowDownload: false })
  const guest = visitor()
  const base = `/api/sharing/${link.link}/content`
  const inline = (id: string, extra = '') => call(guest, 'GET', `${base}?item=${encodeURIComponent(id)}&disposition=inline${extra}`)

  for (const [file, type, body] of [
    [picture, 'image/png', PNG],
    [notes, 'text/plain; charset=utf-8', Buffer.from('Hello <b>viewer</b>\n')],
    [pdf, 'application/pdf', Buffer.from(PDF)],
    [edge, 'text/plain; charset=utf-8', Buffer.alloc(SHARE_PREVIEW_MAX_BYTES.text, 'b')],
  ] as const) {
    const answer = await inline(file.id)
    t.equal(answer.statusCode, 200, `${file.name} is previewed`)
    t.equal(answer.headers['content-type'], type, `${file.name}: its own type`)
    t.equal(answer.headers['content-disposition'], `inline; filename="${file.name}"; filename*=UTF-8''${file.name}`, `${file.name}: inline, never an attachment`)
    t.equal(answer.headers['x-content-type-options'], 'nosniff', `${file.name}: never sniffed`)
    t.match(answer.headers['content-security-policy'], /^default-src 'none';.*(^|;\s*)sandbox(;|$)/, `${file.name}: sandboxed like the drive's own previews`)
    t.match(answer.headers['cache-control'], /no-store/, `${file.name}: not kept by a cache past a revoke`)
    t.equal(answer.headers['referrer-policy'], 'no-referrer')
    t.equal(answer.headers['x-robots-tag'], 'noindex, nofollow')
    t.same(answer.rawPayload, body, `${file.name}: the stored bytes`)
  }
  // The browser's PDF viewer reads by ranges: a range of a preview is still inline.
  const part = await call(guest, 'GET', `${base}?item=${pdf.id}&disposition=inline`, undefined, { range: 'bytes=0-7' })
  t.equal(part.statusCode, 206)
  t.equal(part.body, '%PDF-1.4')
  t.match(part.headers['content-disposition'], /^inline;/)

  // What a browser would run, or only download, is not shown: HTML, SVG, Markdown, a zip, a folder.
  for (const file of [html, svg, markdown, archive]) {
    const answer = await inline(file.id)
    t.equal(answer.statusCode, 403, `${file.name} is not previewed`)
    t.equal(codeOf(answer), 'SHARE_DOWNLOAD_NOT_ALLOWED', file.name)
  }
  t.equal(codeOf(await inline(inner.id)), 'SHARE_DOWNLOAD_NOT_ALLOWED', 'a folder is a zip: a download')
  // Over the limit a preview would be a download in disguise.
  const tooBig = await inline(big.id)
  t.equal(tooBig.statusCode, 403)
  t.equal(codeOf(tooBig), 'SHARE_PREVIEW_TOO_LARGE')
  t.equal(codeOf(await call(guest, 'GET', `${base}?item=${big.id}&disposition=inline`, undefined, { range: 'bytes=0-9' })), 'SHARE_PREVIEW_TOO_LARGE', 'a range does not step around the limit')
  // Nothing outside the shared folder, of another user, in the trash, or made up.
  for (const [what, id] of [
    ['a file of the owner outside the shared folder', outside.id],
    ["another user's file", theirs.id],
    ['a file in the trash', binned.id],
    ['an id that does not exist', '00000000-0000-4000-8000-000000000000'],
    ['a path instead of an id', `../${outside.id}`],
    ['an encoded path', `${inner.id}/../${outside.id}`],
  ] as const) {
    const answer = await inline(id)
    t.equal(answer.statusCode, 404, what)
    t.equal(codeOf(answer), 'SHARE_NOT_FOUND', what)
  }

  // Every spelling of the route answers as the route does, or not at all: the HTML file is never
  // served, and whatever serves the picture serves it inline and sandboxed.
  const spellings = (id: string) => [
    `${base}?item=${id}&disposition=inline`,
    `${base}/?item=${id}&disposition=inline`,
    `${base}?item=${id}&disposition=inline&disposition=attachment`,
    `${base}?disposition=inline&item=${id}&item=${picture.id}`,
    `${base}?item=${id}&disposition=INLINE`,
    `${base}?item=${id}&disposition=%20inline`,
    `${base}?item=${id}&disposition=inline%00`,
    `/api/sharing/${link.link}/%63ontent?item=${id}&disposition=inline`,
    `/api/sharing/${link.link}/./content?item=${id}&disposition=inline`,
    `/api/sharing/${link.link}/x/../content?item=${id}&disposition=inline`,
    `/api//sharing/${link.link}/content?item=${id}&disposition=inline`,
    `/API/sharing/${link.link}/content?item=${id}&disposition=inline`,
    `/api/sharing/${link.link.toLowerCase()}/content?item=${id}&disposition=inline`,
    `/api/sharing/${link.link}%2fcontent?item=${id}&disposition=inline`,
    `/api/sharing/${link.link}/content?item=${id}&disposition=inline#x`,
  ]
  for (const url of spellings(html.id)) {
    const answer = await call(guest, 'GET', url)
    t.not(answer.statusCode, 200, `HTML never served: ${url}`)
    t.notOk(answer.body.includes('<script>'), `no script leaves: ${url}`)
  }
  for (const url of [...spellings(picture.id), ...spellings(big.id)]) {
    const answer = await call(guest, 'GET', url)
    if (answer.statusCode >= 200 && answer.statusCode < 300) {
      t.match(answer.headers['content-disposition'], /^inline;/, `inline when served: ${url}`)
      t.match(answer.headers['content-security-policy'], /^default-src 'none';.*(^|;\s*)sandbox(;|$)/, `sandboxed when served: ${url}`)
      t.equal(answer.headers['x-content-type-options'], 'nosniff', `never sniffed: ${url}`)
      t.same(answer.rawPayload, PNG, `only the picture: ${url}`)
    } else {
      t.ok(answer.statusCode >= 400 && answer.statusCode < 500, `refused: ${url} (${answer.statusCode})`)
    }
  }
  // Without `disposition=inline` a view-only link refuses, whatever is asked.
  t.equal(codeOf(await call(guest, 'GET', `${base}?item=${picture.id}`)), 'SHARE_DOWNLOAD_NOT_ALLOWED')
  t.equal(codeOf(await call(guest, 'GET', `${base}?item=${picture.id}&disposition=attachment`)), 'SHARE_DOWNLOAD_NOT_ALLOWED')

  // A password-protected view-only link previews only once unlocked, and only its own items.
  const locked = await share(tab, inner.id, { allowDownload: false, password: 'open sesame' })
  const lockedPreview = (jar: CookieJar) => call(jar, 'GET', `/api/sharing/${locked.link}/content?item=${notes.id}&disposition=inline`)
  t.equal(codeOf(await lockedPreview(guest)), 'SHARE_PASSWORD_REQUIRED', 'not before the password')
  t.equal((await call(guest, 'POST', `/api/sharing/${locked.link}/unlock`, { password: 'open sesame' })).statusCode, 200)
  t.equal((await lockedPreview(guest)).statusCode, 200, 'after it')
  t.equal(codeOf(await call(guest, 'GET', `/api/sharing/${locked.link}/content?item=${picture.id}&disposition=inline`)), 'SHARE_NOT_FOUND', 'a file of the outer folder is outside this link')

  // A revoked link previews nothing; nor does an expired one.
  t.equal((await owner(tab, 'DELETE', `/api/files/shares/${link.id}`)).statusCode, 204)
  const revoked = await inline(picture.id)
  t.equal(revoked.statusCode, 410)
  t.equal(codeOf(revoked), 'SHARE_REVOKED')
  const expiresAt = clock() + 10 * MINUTE
  const brief = await share(tab, box.id, { allowDownload: false, expiresAt: new Date(expiresAt).toISOString() })
  t.equal((await call(guest, 'GET', `/api/sharing/${brief.link}/content?item=${picture.id}&disposition=inline`)).statusCode, 200)
  clockOffset += 10 * MINUTE
  const expired = await call(guest, 'GET', `/api/sharing/${brief.link}/content?item=${picture.id}&disposition=inline`)
  t.equal(expired.statusCode, 410)
  t.equal(codeOf(expired), 'SHARE_EXPIRED')
})

t.test('the password is never logged nor stored in clear; deleting the account deletes its links', async (t) => {
  const { tab, userId, email } = await person()
  const file = await add(userId, null, 'canary.txt', 'canary')
  const password = 'Canary-Password-90210-zz'
  const link = await share(tab, file.id, { password })
  await call(visitor(), 'POST', `/api/sharing/${link.link}/unlock`, { password: `${password}-wrong` })
  const unlocked = await call(visitor(), 'POST', `/api/sharing/${link.link}/unlock`, { password })
  t.equal(unlocked.statusCode, 200)
  const token = (unlocked.cookies as Array<{ name: string; value: string }>).find((c) => c.name === shareCookieName(link.link))!.value
  await call(visitor(), 'GET', `/api/sharing/${link.link}`, undefined, { cookie: `${shareCookieName(link.link)}=${token}` })
  t.ok(apiLog.lines.length > 0 && bffLog.lines.length > 0, 'both services logged')
  for (const [service, log] of [['api', apiLog], ['bff', bffLog]] as const) {
    t.notMatch(log.text, password, `${service}: no password in the logs`)
    t.notMatch(log.text, token.split('.')[2]!, `${service}: no unlock token in the logs`)
  }
  const { rows } = await stack.db.query<{ password_hash: string }>('SELECT password_hash FROM api.file_shares WHERE id = $1', [link.id])
  t.match(rows[0]!.password_hash, /^\$argon2id\$/, 'an argon2id hash')
  const dump = JSON.stringify((await stack.db.query('SELECT * FROM api.file_shares')).rows)
  t.notMatch(dump, password, 'no password in the table')

  const deleted = await owner(tab, 'POST', '/api/user/delete', { reason: 'too-expensive', confirmEmail: email })
  t.equal(deleted.statusCode, 204)
  t.equal((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api.file_shares WHERE user_id = $1', [userId])).rows[0]!.n, 0, 'no link left')
  t.equal(codeOf(await call(visitor(), 'GET', `/api/sharing/${link.link}`)), 'SHARE_NOT_FOUND')
})
