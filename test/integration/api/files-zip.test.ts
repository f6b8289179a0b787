import { Readable } from 'node:stream'
import t from 'tap'
import type { FileItem } from '../../../server/api/files/repository.ts'
import { LogCapture, buildStack, within, signedInPerson, type Tab } from '../../helpers.ts'
import { readZip } from '../../zip-reader.ts'

// Folder downloads as a streamed zip, "download selected", and the owner's inline previews
// (decision 016), through the BFF's streaming proxy as the browser gets them.

const apiLog = new LogCapture()
const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'warn' }, apiLogStream: apiLog })
const files = stack.api.files

const person = () => signedInPerson(stack, 'zipper')
function call(tab: Tab, method: 'GET' | 'POST' | 'DELETE' | 'HEAD', url: string, body?: unknown) {
  return stack.bff.inject({
    method,
    url,
    headers: { cookie: tab.jar.header(url), rid: 'anti-csrf', origin: 'http://localhost:3000', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  })
}
const folder = async (tab: Tab, name: string, parentId?: string) => (await call(tab, 'POST', '/api/files/folders', { name, ...(parentId ? { parentId } : {}) })).json() as FileItem
const add = (userId: string, parentId: string | null, name: string, content: string | Buffer) => files.addFile(userId, parentId, name, Readable.from([Buffer.from(content)]))
const storageKey = async (id: string) => (await stack.db.query<{ storage_key: string }>('SELECT storage_key FROM api.file_items WHERE id = $1', [id])).rows[0]!.storage_key

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex')

t.test('a folder downloads as a zip of its live contents at any depth, empty folders and names as stored', async (t) => {
  const { tab, userId } = await person()
  const root = await folder(tab, 'Projekt Übersicht')
  const src = await folder(tab, 'src', root.id)
  const deep = await folder(tab, 'deep', src.id)
  await folder(tab, 'empty', root.id)
  await folder(tab, 'Cafe\u0301', root.id)
  const text = 'hello '.repeat(500)
  await add(userId, src.id, 'main.ts', text)
  await add(userId, deep.id, 'image.png', PNG)
  await add(userId, root.id, 'Résumé.txt', 'é')
  const gone = await add(userId, src.id, 'deleted.txt', 'in the trash')
  await call(tab, 'DELETE', `/api/files/${gone.id}`)
  const trashedFolder = await folder(tab, 'old', root.id)
  await add(userId, trashedFolder.id, 'old.txt', 'old')
  await call(tab, 'DELETE', `/api/files/${trashedFolder.id}`)

  const zip = await call(tab, 'GET', `/api/files/${root.id}/content`)
  t.equal(zip.statusCode, 200)
  t.equal(zip.headers['content-type'], 'application/zip')
  t.equal(zip.headers['content-disposition'], `attachment; filename="Projekt Ubersicht.zip"; filename*=UTF-8''Projekt%20%C3%9Cbersicht.zip`, 'RFC 6266, "<folder>.zip"')
  t.equal(zip.headers['x-content-type-options'], 'nosniff')
  t.match(zip.headers['content-security-policy'], /^default-src 'none'.*; sandbox$/)
  t.equal(zip.headers['cache-control'], 'no-store')
  t.notOk(zip.headers['content-length'], 'streamed: its length is not known ahead')
  const entries = readZip(zip.rawPayload)
  t.same(
    entries.map((entry) => entry.name),
    ['Café/', 'Résumé.txt', 'empty/', 'src/', 'src/deep/', 'src/deep/image.png', 'src/main.ts'],
    'relative to the folder, "/" between folders, empty folders kept, nothing from the trash',
  )
  t.ok(entries.every((entry) => entry.utf8), 'names flagged UTF-8')
  t.equal(entries[0]!.name, 'Caf\u00e9/', 'NFC, as stored')
  const byName = new Map(entries.map((entry) => [entry.name, entry]))
  t.equal(byName.get('src/main.ts')!.data.toString(), text)
  t.equal(byName.get('src/main.ts')!.method, 8, 'text is deflated')
  t.same(byName.get('src/deep/image.png')!.data, PNG)
  t.equal(byName.get('src/deep/image.png')!.method, 0, 'an already compressed type is stored')
  t.equal(byName.get('Résumé.txt')!.data.toString(), 'é')

  const empty = await folder(tab, 'Nothing')
  const none = await call(tab, 'GET', `/api/files/${empty.id}/content`)
  t.same(readZip(none.rawPayload), [], 'an empty folder is an empty zip')
  const other = await person()
  const theirs = await call(other.tab, 'GET', `/api/files/${root.id}/content`)
  t.equal(theirs.statusCode, 404, 'another user\'s folder')
  t.equal(theirs.json().code, 'FILES_NOT_FOUND')
  t.equal((await call(tab, 'GET', `/api/files/${trashedFolder.id}/content`)).statusCode, 404, 'a folder in the trash')
})

t.test('a stored object missing half-way cuts the zip off with an error instead of hanging', async (t) => {
  const { tab, userId } = await person()
  const box = await folder(tab, 'Box')
  await add(userId, box.id, 'a.bin', Buffer.alloc(64 * 1024, 1))
  const broken = await add(userId, box.id, 'b.bin', Buffer.alloc(1024, 2))
  await files.storage.delete(await storageKey(broken.id))

  const direct = await within(fetch(`${stack.apiUrl}/api/files/${box.id}/content`, { headers: { authorization: `Bearer ${tab.jar.get('sAccessToken')}` } }))
  const whole = await within(direct.arrayBuffer().then((body) => ({ body: Buffer.from(body) }), (error: unknown) => ({ error })))
  t.ok('error' in whole || direct.status >= 500, 'the API\'s answer fails rather than ending as if whole')
  if ('body' in whole) t.throws(() => readZip(whole.body), 'and is no complete zip')
  const viaBff = await within(call(tab, 'GET', `/api/files/${box.id}/content`).then((answer) => answer.rawPayload, () => Buffer.alloc(0)))
  t.throws(() => readZip(viaBff), 'nor through the BFF')
  t.match(apiLog.text, /files-zip-failed/, 'logged')
})

t.test('download selected: several items as one zip; any item not the user\'s live one is not found', async (t) => {
  const { tab, userId } = await person()
  const a = await folder(tab, 'A')
  const b = await folder(tab, 'B')
  const inA = await add(userId, a.id, 'same.txt', 'from A')
  const inB = await add(userId, b.id, 'same.txt', 'from B')
  const sub = await folder(tab, 'Sub', a.id)
  await add(userId, sub.id, 'x.txt', 'x')
  const zip = await call(tab, 'GET', `/api/files/archive?items=${inA.id},${inB.id},${sub.id}`)
  t.equal(zip.statusCode, 200)
  t.equal(zip.headers['content-disposition'], `attachment; filename="files.zip"; filename*=UTF-8''files.zip`)
  t.same(
    readZip(zip.rawPayload).map((entry) => `${entry.name}=${entry.data.toString()}`),
    ['same.txt=from A', 'same (2).txt=from B', 'Sub/=', 'Sub/x.txt=x'],
    'each at the root; a name that comes twice is made unique',
  )
  const other = await person()
  t.equal((await call(other.tab, 'GET', `/api/files/archive?items=${inA.id}`)).json().code, 'FILES_NOT_FOUND')
  t.equal((await call(tab, 'GET', `/api/files/archive?items=${inA.id},nope`)).json().code, 'FILES_NOT_FOUND', 'all or nothing')
  t.equal((await call(tab, 'GET', '/api/files/archive?items=,')).json().code, 'API_VALIDATION_FAILED')
  const tooMany = Array.from({ length: 101 }, (_, i) => `id${i}`).join(',')
  t.equal((await call(tab, 'GET', `/api/files/archive?items=${tooMany}`)).json().code, 'API_VALIDATION_FAILED', 'at most 100')
})

t.test('the owner\'s inline previews: only the types we render; the sandbox and nosniff stay', async (t) => {
  const { tab, userId } = await person()
  const png = await add(userId, null, 'dot.png', PNG)
  const pdf = await add(userId, null, 'doc.pdf', '%PDF-1.7')
  const svg = await add(userId, null, 'evil.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
  const html = await add(userId, null, 'page.html', '<script>alert(1)</script>')
  for (const [item, kind] of [
    [png, 'inline'],
    [pdf, 'inline'],
    [svg, 'attachment'],
    [html, 'attachment'],
  ] as const) {
    const answer = await call(tab, 'GET', `/api/files/${item.id}/content?disposition=inline`)
    t.equal(answer.statusCode, 200)
    t.match(answer.headers['content-disposition'], new RegExp(`^${kind}; filename="${item.name}"`), `${item.name}: ${kind}`)
    t.equal(answer.headers['x-content-type-options'], 'nosniff')
    t.match(answer.headers['content-security-policy'], /sandbox/)
  }
  t.match((await call(tab, 'GET', `/api/files/${png.id}/content`)).headers['content-disposition'], /^attachment;/, 'an attachment unless asked')
  t.equal((await call(tab, 'GET', `/api/files/${png.id}/content?disposition=embed`)).statusCode, 400)
})
