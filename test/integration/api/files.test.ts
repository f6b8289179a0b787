import type { FileItem } from '../../../server/api/files/repository.ts'
import fs from 'node:fs'
import type net from 'node:net'
import path from 'node:path'
import { Readable } from 'node:stream'
import t from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { FilesRepository, STALE_WRITE_MS } from '../../../server/api/files/repository.ts'
import { DiskStorage, type FileStorage } from '../../../server/api/files/storage.ts'
import { TEST_AUTH_CORE_API_KEY, buildStack, testBuildInfo, signedInPerson, type Tab } from '../../helpers.ts'

// The drive's first step: folders, names, the trash, quotas, downloads and the sweep,
// driven through the BFF as the browser does (uploads come next; files are made with the
// repository's addFile meanwhile). Downloads are checked through the BFF's streaming proxy and on
// the API itself, with the same session's token.

const QUOTA = 1000
const MAX_FILE = 600
const DAY_MS = 24 * 60 * 60_000
let clockOffset = 0
const stack = await buildStack(t, {
  auth: true,
  env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', FILES_QUOTA_BYTES: String(QUOTA), FILES_MAX_FILE_BYTES: String(MAX_FILE) },
  now: () => Date.now() + clockOffset,
})
const coreUrl = `http://127.0.0.1:${(stack.authCore!.server.address() as net.AddressInfo).port}`
const filesRoot = path.join(stack.config.dataDir, 'files')
const files = stack.api.files

type Item = FileItem

const person = () => signedInPerson(stack, 'drive')

function call(tab: Tab, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) {
  return stack.bff.inject({
    method,
    url,
    headers: {
      cookie: tab.jar.header(url),
      rid: 'anti-csrf',
      origin: 'http://localhost:3000',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  })
}

/** The API itself, with the session's access token (as the BFF forwards it). */
function direct(tab: Tab, url: string, headers: Record<string, string> = {}) {
  return fetch(`${stack.apiUrl}${url}`, { headers: { authorization: `Bearer ${tab.jar.get('sAccessToken')}`, ...headers } })
}

const folder = async (tab: Tab, name: string, parentId?: string | null) => {
  const answer = await call(tab, 'POST', '/api/files/folders', { name, ...(parentId !== undefined ? { parentId } : {}) })
  if (answer.statusCode !== 201) throw new Error(`folder ${name}: ${answer.body}`)
  return answer.json() as Item
}
const add = (userId: string, parentId: string | null, name: string, content: string | Buffer, size?: number, repository = files) =>
  repository.addFile(userId, parentId, name, Readable.from([Buffer.from(content)]), size)
const list = async (tab: Tab, folderId?: string) => (await call(tab, 'GET', `/api/files${folderId ? `?folder=${folderId}` : ''}`)).json() as { folder: unknown; items: Item[]; usage: { used: number; quota: number } }
const names = async (tab: Tab, folderId?: string) => (await list(tab, folderId)).items.map((item) => item.name)
const trashNames = async (tab: Tab) => ((await call(tab, 'GET', '/api/files/trash')).json().items as Item[]).map((item) => item.name)
const storageKey = async (id: string) => (await stack.db.query<{ storage_key: string }>('SELECT storage_key FROM api.file_items WHERE id = $1', [id])).rows[0]!.storage_key
const count = async (sql: string, params: unknown[] = []) => Number((await stack.db.query<{ n: string | number }>(sql, params)).rows[0]!.n)
const tempFiles = () => (fs.existsSync(path.join(filesRoot, 'tmp')) ? fs.readdirSync(path.join(filesRoot, 'tmp')) : [])

t.test('listing: the root, a folder with its path, folders first, sizes and usage; private to a signed-in session', async (t) => {
  const { tab, userId } = await person()
  const empty = await call(tab, 'GET', '/api/files')
  t.equal(empty.statusCode, 200)
  t.equal(empty.headers['cache-control'], 'no-store')
  t.same(empty.json(), { folder: { id: null, name: '', parentId: null, path: [] }, items: [], usage: { used: 0, quota: QUOTA } })
  const anonymous = await stack.bff.inject({ method: 'GET', url: '/api/files' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().code, 'API_SESSION_REQUIRED')

  const photos = await folder(tab, 'photos')
  const docs = await folder(tab, 'Docs')
  t.match(docs, { type: 'folder', name: 'Docs', size: 0, mimeType: null })
  t.match(docs.id, /^[A-Za-z0-9_-]{22}$/, 'an opaque random id')
  const drafts = await folder(tab, 'Drafts', docs.id)
  await add(userId, null, 'zebra.txt', 'stripes')
  await add(userId, null, 'Apple.pdf', '%PDF-1.7')
  await add(userId, docs.id, 'plan.md', '# plan')
  await add(userId, drafts.id, 'idea.txt', 'an idea')

  const root = await list(tab)
  t.same(root.items.map((item) => `${item.type}:${item.name}`), ['folder:Docs', 'folder:photos', 'file:Apple.pdf', 'file:zebra.txt'], 'folders first, then by name in any case')
  t.match(root.items.find((item) => item.name === 'Docs'), { size: 6 + 7 }, 'a folder\'s size counts the files at any depth')
  t.match(root.items.find((item) => item.name === 'Apple.pdf'), { type: 'file', size: 8, mimeType: 'application/pdf' })
  t.ok(root.items.every((item) => !Number.isNaN(Date.parse(item.updatedAt))))
  t.same(root.usage, { used: 7 + 8 + 6 + 7, quota: QUOTA })
  t.same(Object.keys(root.items[0]!).sort(), ['id', 'mimeType', 'name', 'size', 'type', 'updatedAt'])

  const inner = await list(tab, drafts.id)
  t.same(inner.folder, { id: drafts.id, name: 'Drafts', parentId: docs.id, path: [{ id: docs.id, name: 'Docs' }, { id: drafts.id, name: 'Drafts' }] })
  t.same(inner.items.map((item) => item.name), ['idea.txt'])
  t.same(await names(tab, photos.id), [])

  const file = root.items.find((item) => item.name === 'zebra.txt')!
  const notFolder = await call(tab, 'GET', `/api/files?folder=${file.id}`)
  t.equal(notFolder.statusCode, 400)
  t.equal(notFolder.json().code, 'FILES_NOT_A_FOLDER')
  const unknown = await call(tab, 'GET', '/api/files?folder=no-such-folder')
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().code, 'FILES_NOT_FOUND')
})

t.test('create, rename and move; a folder never goes into itself; writes need the anti-forgery header', async (t) => {
  const { tab, userId } = await person()
  const work = await folder(tab, 'Work')
  t.equal((await folder(tab, 'Work')).name, 'Work (2)', 'a name taken in the folder is made unique')
  t.equal((await folder(tab, 'work')).name, 'work (3)', 'in any letter case')
  const inside = await folder(tab, 'Inside', work.id)
  const deeper = await folder(tab, 'Deeper', inside.id)
  const notes = await add(userId, null, 'notes.txt', 'n')
  await add(userId, work.id, 'notes.txt', 'older notes')

  const forged = await call(tab, 'PATCH', `/api/files/${notes.id}`, { name: 'forged.txt' }, { rid: '' })
  t.equal(forged.statusCode, 403, 'without the rid header')
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')
  const form = await call(tab, 'POST', '/api/files/folders', undefined, { 'content-type': 'application/x-www-form-urlencoded' })
  t.equal(form.statusCode, 403, 'a simple form')
  t.same(await names(tab), ['Work', 'Work (2)', 'work (3)', 'notes.txt'], 'nothing changed')

  const renamed = await call(tab, 'PATCH', `/api/files/${notes.id}`, { name: 'Notes 2026.txt' })
  t.equal(renamed.statusCode, 200)
  t.match(renamed.json(), { id: notes.id, name: 'Notes 2026.txt', size: 1, mimeType: 'text/plain' })
  t.match((await call(tab, 'PATCH', `/api/files/${notes.id}`, { name: 'page.html' })).json(), { mimeType: 'text/html' }, 'the type follows the name')
  t.equal((await call(tab, 'PATCH', `/api/files/${notes.id}`, { name: 'Notes 2026.txt' })).statusCode, 200)
  t.equal((await call(tab, 'PATCH', `/api/files/${notes.id}`, { name: 'NOTES 2026.txt' })).json().name, 'NOTES 2026.txt', 'a change of letter case only')
  const taken = await call(tab, 'PATCH', `/api/files/${work.id}`, { name: 'WORK (2)' })
  t.equal(taken.statusCode, 409, 'a name typed for a rename must be free')
  t.equal(taken.json().code, 'FILES_NAME_TAKEN')

  const moved = await call(tab, 'PATCH', `/api/files/${notes.id}`, { parentId: work.id })
  t.equal(moved.statusCode, 200)
  t.same(await names(tab, work.id), ['Inside', 'NOTES 2026.txt', 'notes.txt'])
  const back = await call(tab, 'PATCH', `/api/files/${notes.id}`, { parentId: null, name: 'notes.txt' })
  t.equal(back.json().name, 'notes.txt', 'moved to the root and renamed at once')
  t.same(await names(tab), ['Work', 'Work (2)', 'work (3)', 'notes.txt'])
  const collision = await call(tab, 'PATCH', `/api/files/${notes.id}`, { parentId: work.id })
  t.equal(collision.json().name, 'notes (2).txt', 'a move into a folder with the same name keeps both')

  for (const target of [work.id, inside.id, deeper.id]) {
    const loop = await call(tab, 'PATCH', `/api/files/${work.id}`, { parentId: target })
    t.equal(loop.statusCode, 400, 'into itself or below itself')
    t.equal(loop.json().code, 'FILES_MOVE_INTO_ITSELF')
  }
  const ontoFile = await call(tab, 'PATCH', `/api/files/${inside.id}`, { parentId: notes.id })
  t.equal(ontoFile.statusCode, 400)
  t.equal(ontoFile.json().code, 'FILES_NOT_A_FOLDER')
  const up = await call(tab, 'PATCH', `/api/files/${deeper.id}`, { parentId: null })
  t.equal(up.statusCode, 200, 'a folder moves up to the root')
  t.same(await names(tab), ['Deeper', 'Work', 'Work (2)', 'work (3)'])
  const nothing = await call(tab, 'PATCH', `/api/files/${deeper.id}`, {})
  t.equal(nothing.statusCode, 400)
  t.equal(nothing.json().code, 'API_VALIDATION_FAILED')
  const unknown = await call(tab, 'PATCH', '/api/files/no-such-item', { name: 'x' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().code, 'FILES_NOT_FOUND')
})

t.test('names: NFC, forbidden characters, "." and "..", the length limit, collisions, and $RECYCLE.BIN in any case', async (t) => {
  const { tab, userId } = await person()
  const decomposed = await folder(tab, 'Cafe\u0301 ')
  t.equal(decomposed.name, 'Caf\u00e9', 'stored in NFC, surrounding spaces removed')
  t.equal((await folder(tab, 'Caf\u00e9')).name, 'Caf\u00e9 (2)', 'the composed spelling is the same name')

  const refused: Array<[string, RegExp]> = [
    ['a/b', /"\/"/],
    ['a\\b', /"\/"/],
    ['tab\there', /control/],
    ['line\nbreak', /control/],
    ['bell\u0007', /control/],
    ['invoice\u202Efdp.exe', /invisible/],
    ['zero\u200Bwidth', /invisible/],
    ['.', /"\."/],
    ['..', /"\.\."/],
    ['   ', /empty/],
    ['', /empty/],
    ['\u00e9'.repeat(127) + 'ab', /255 bytes/],
    ['$RECYCLE.BIN', /recycle bin/],
    ['$Recycle.Bin', /recycle bin/],
    ['$recycle.bin', /recycle bin/],
  ]
  for (const [name, message] of refused) {
    const answer = await call(tab, 'POST', '/api/files/folders', { name })
    t.equal(answer.statusCode, 400, JSON.stringify(name))
    t.equal(answer.json().code, 'FILES_NAME_INVALID')
    t.match(answer.json().message, message)
  }
  // A NUL never reaches the name rules: every service refuses it at its edge.
  const nul = await call(tab, 'POST', '/api/files/folders', { name: 'a\u0000b' })
  t.equal(nul.statusCode, 400, 'a NUL in a name')
  t.equal(nul.json().code, 'API_VALIDATION_FAILED')
  const renamed = await call(tab, 'PATCH', `/api/files/${decomposed.id}`, { name: '$RECYCLE.bin' })
  t.equal(renamed.json().code, 'FILES_NAME_INVALID', 'nor by a rename')
  await t.rejects(add(userId, null, '$recycle.BIN', 'x'), { code: 'FILES_NAME_INVALID' }, 'nor as a file')
  await t.rejects(
    stack.db.query(`INSERT INTO api.file_items (id, user_id, type, name, created_at, updated_at) VALUES ('sneaky', $1, 'folder', '$RECYCLE.BIN', now(), now())`, [userId]),
    'the database refuses one too, so none is ever listed',
  )
  t.same(await names(tab), ['Café', 'Café (2)'])

  const longest = '\u00e9'.repeat(127) + 'a'
  t.equal((await folder(tab, longest)).name, longest, '255 bytes of UTF-8 are accepted')
  const longFile = `${'x'.repeat(251)}.txt`
  t.equal((await add(userId, null, longFile, '1')).name, longFile)
  const second = await add(userId, null, longFile, '2')
  t.equal(second.name, `${'x'.repeat(247)} (2).txt`, 'a numbered name still fits in 255 bytes')
  t.equal((await add(userId, null, 'report.pdf', '1')).name, 'report.pdf')
  t.equal((await add(userId, null, 'report.pdf', '2')).name, 'report (2).pdf')
  t.equal((await add(userId, null, 'REPORT.pdf', '3')).name, 'REPORT (3).pdf')
  t.equal((await add(userId, null, 'report (2).pdf', '4')).name, 'report (4).pdf', 'a numbered name counts on')
})

t.test('trash and restore: a folder goes with what is in it, comes back to its place, or to the root when that is gone', async (t) => {
  const { tab, userId } = await person()
  const albums = await folder(tab, 'Albums')
  const summer = await folder(tab, 'Summer', albums.id)
  const beach = await add(userId, summer.id, 'beach.jpg', 'sand')
  const sea = await add(userId, summer.id, 'sea.jpg', 'water')
  const cover = await add(userId, albums.id, 'cover.png', 'art')

  t.equal((await call(tab, 'DELETE', `/api/files/${sea.id}`)).statusCode, 204, 'one file first')
  t.equal((await call(tab, 'DELETE', `/api/files/${summer.id}`)).statusCode, 204, 'then its folder')
  t.same(await names(tab, albums.id), ['cover.png'])
  t.equal((await call(tab, 'GET', `/api/files?folder=${summer.id}`)).statusCode, 404, 'a folder in the trash is not listed')
  t.equal((await call(tab, 'GET', `/api/files/${beach.id}/content`)).statusCode, 404, 'nor downloaded from')
  t.equal((await call(tab, 'DELETE', `/api/files/${summer.id}`)).json().code, 'FILES_NOT_FOUND', 'nor deleted twice')
  const trash = (await call(tab, 'GET', '/api/files/trash')).json()
  t.same(trash.items.map((item: Item) => item.name), ['Summer', 'sea.jpg'], 'one entry per deletion, newest first')
  t.match(trash.items[0], { id: summer.id, type: 'folder', size: 4, originalParentId: albums.id })
  t.equal(Date.parse(trash.items[0].purgeAt) - Date.parse(trash.items[0].trashedAt), 30 * DAY_MS, 'purged 30 days after')
  t.same(trash.usage, { used: 4 + 5 + 3, quota: QUOTA }, 'the trash counts against the quota')

  const restored = await call(tab, 'POST', `/api/files/${summer.id}/restore`)
  t.equal(restored.statusCode, 200)
  t.match(restored.json(), { id: summer.id, name: 'Summer', size: 4 })
  t.same(await names(tab, summer.id), ['beach.jpg'], 'with what was in it, not what was deleted before it')
  t.equal((await call(tab, 'POST', `/api/files/${sea.id}/restore`)).statusCode, 200)
  t.same(await names(tab, summer.id), ['beach.jpg', 'sea.jpg'], 'back in its folder, which is there again')
  t.equal((await call(tab, 'POST', `/api/files/${sea.id}/restore`)).json().code, 'FILES_NOT_FOUND', 'only what is in the trash is restored')
  t.equal((await call(tab, 'POST', `/api/files/${beach.id}/restore`)).statusCode, 404)

  // Its folder deleted too: back to the root. A name taken meanwhile: made unique.
  await call(tab, 'DELETE', `/api/files/${cover.id}`)
  await call(tab, 'DELETE', `/api/files/${albums.id}`)
  await add(userId, null, 'cover.png', 'another')
  const homeless = await call(tab, 'POST', `/api/files/${cover.id}/restore`)
  t.equal(homeless.json().name, 'cover (2).png')
  t.same(await names(tab), ['cover (2).png', 'cover.png'], 'in the root, next to the new one')
  // Its folder purged for good (deleted 30 days before the file was): back to the root as well.
  t.equal((await call(tab, 'POST', `/api/files/${albums.id}/restore`)).statusCode, 200)
  t.same(await names(tab, summer.id), ['beach.jpg', 'sea.jpg'])
  t.teardown(() => void (clockOffset = 0))
  clockOffset = 20 * DAY_MS
  await call(tab, 'DELETE', `/api/files/${sea.id}`)
  clockOffset = 0
  await call(tab, 'DELETE', `/api/files/${albums.id}`)
  t.same(await trashNames(tab), ['sea.jpg', 'Albums'])
  clockOffset = 31 * DAY_MS
  await files.sweep()
  t.same(await trashNames(tab), ['sea.jpg'], 'the folder is purged, the file deleted from it later is not')
  const orphaned = await call(tab, 'POST', `/api/files/${sea.id}/restore`)
  t.equal(orphaned.statusCode, 200)
  t.same(await names(tab), ['cover (2).png', 'cover.png', 'sea.jpg'])
  clockOffset = 0
})

t.test('emptying the trash deletes the stored bytes too', async (t) => {
  const { tab, userId } = await person()
  const keep = await add(userId, null, 'keep.txt', 'keep')
  const box = await folder(tab, 'Box')
  const inBox = await add(userId, box.id, 'inner.bin', 'inner bytes')
  const loose = await add(userId, null, 'loose.txt', 'loose')
  const keys = { keep: await storageKey(keep.id), inBox: await storageKey(inBox.id), loose: await storageKey(loose.id) }
  for (const key of Object.values(keys)) t.ok(await files.storage.size(key), 'stored')
  await call(tab, 'DELETE', `/api/files/${box.id}`)
  await call(tab, 'DELETE', `/api/files/${loose.id}`)
  t.equal((await list(tab)).usage.used, 4 + 11 + 5)

  const forged = await call(tab, 'DELETE', '/api/files/trash', undefined, { rid: '' })
  t.equal(forged.statusCode, 403)
  t.same(await trashNames(tab), ['loose.txt', 'Box'], 'a forged request empties nothing')
  const emptied = await call(tab, 'DELETE', '/api/files/trash')
  t.equal(emptied.statusCode, 204)
  t.same(await trashNames(tab), [])
  t.equal(await files.storage.size(keys.inBox), null, 'the bytes of a file in a deleted folder are gone')
  t.equal(await files.storage.size(keys.loose), null)
  t.equal(await files.storage.size(keys.keep), 4, 'what was not in the trash stays')
  t.same((await list(tab)).usage, { used: 4, quota: QUOTA })
  t.equal(await count('SELECT count(*) AS n FROM api.file_items WHERE user_id = $1', [userId]), 1)
})

t.test('the sweep purges what has been in the trash for more than 30 days, not a moment sooner', async (t) => {
  const { tab, userId } = await person()
  const old = await add(userId, null, 'old.txt', 'old')
  const key = await storageKey(old.id)
  const base = Date.now()
  clockOffset = 0
  t.teardown(() => void (clockOffset = 0))
  await call(tab, 'DELETE', `/api/files/${old.id}`)
  const trashedAt = Date.parse((await call(tab, 'GET', '/api/files/trash')).json().items[0].trashedAt)
  // Just before the edge: kept.
  clockOffset = trashedAt + 30 * DAY_MS - Date.now() - 1
  await files.sweep()
  t.same(await trashNames(tab), ['old.txt'], 'kept until 30 days have passed')
  // Just past it, with the real clock still near `base`.
  clockOffset = trashedAt + 30 * DAY_MS - Date.now() + 1
  const report = await files.sweep()
  t.ok(report.purged >= 1)
  t.same(await trashNames(tab), [])
  t.equal(await files.storage.size(key), null, 'its bytes are gone')
  t.equal((await list(tab)).usage.used, 0)
  t.ok(Date.now() - base < DAY_MS)
})

t.test('quota: the trash counts, a file over the size limit is refused, two racing adds cannot pass it together', async (t) => {
  const { tab, userId } = await person()
  const before = tempFiles().length
  await t.rejects(add(userId, null, 'huge.bin', Buffer.alloc(MAX_FILE + 1)), { code: 'FILES_TOO_LARGE', statusCode: 413 }, 'a stream over the limit')
  await t.rejects(add(userId, null, 'huge.bin', Buffer.alloc(1), MAX_FILE + 1), { code: 'FILES_TOO_LARGE' }, 'a declared size over the limit')
  const big = await add(userId, null, 'big.bin', Buffer.alloc(MAX_FILE))
  await call(tab, 'DELETE', `/api/files/${big.id}`)
  t.same((await list(tab)).usage, { used: MAX_FILE, quota: QUOTA })
  await t.rejects(add(userId, null, 'more.bin', Buffer.alloc(QUOTA - MAX_FILE + 1)), { code: 'FILES_QUOTA_EXCEEDED', statusCode: 413 }, 'the trash takes room')
  await t.rejects(add(userId, null, 'more.bin', Buffer.alloc(1), QUOTA - MAX_FILE + 1), { code: 'FILES_QUOTA_EXCEEDED' }, 'refused before a byte is stored')
  t.equal(tempFiles().length, before, 'no temporary object left by a refusal')
  await add(userId, null, 'exact.bin', Buffer.alloc(QUOTA - MAX_FILE))
  t.equal((await list(tab)).usage.used, QUOTA, 'up to the last byte')
  await call(tab, 'DELETE', '/api/files/trash')
  t.equal((await list(tab)).usage.used, QUOTA - MAX_FILE, 'emptying the trash makes room')

  // Two adds that each fit, but not together, reach the quota check at the same moment: both
  // have stored their bytes before either transaction starts.
  const racer = await person()
  let arrived = 0
  let release = () => {}
  const together = new Promise<void>((resolve) => (release = resolve))
  const disk = new DiskStorage(filesRoot)
  const barrier: FileStorage = Object.assign(Object.create(disk) as FileStorage, {
    async put(...args: Parameters<FileStorage['put']>) {
      const result = await disk.put(...args)
      arrived += 1
      if (arrived === 2) release()
      await together
      return result
    },
  })
  const racing = new FilesRepository(stack.db, barrier, { quotaBytes: QUOTA, maxFileBytes: MAX_FILE }, Date.now, stack.api.log)
  const results = await Promise.allSettled([add(racer.userId, null, 'one.bin', Buffer.alloc(600), undefined, racing), add(racer.userId, null, 'two.bin', Buffer.alloc(600), undefined, racing)])
  t.equal(results.filter((result) => result.status === 'fulfilled').length, 1, 'one of them is stored')
  const refused = results.find((result) => result.status === 'rejected')
  t.match(refused && (refused as PromiseRejectedResult).reason, { code: 'FILES_QUOTA_EXCEEDED' }, 'the other is refused')
  t.same((await list(racer.tab)).usage, { used: 600, quota: QUOTA })
  t.equal((await list(racer.tab)).items.length, 1)
  t.equal(tempFiles().length, before, 'the refused one left nothing behind')
})

t.test('another user\'s items are not found, whatever is asked of them', async (t) => {
  const owner = await person()
  const other = await person()
  const secret = await folder(owner.tab, 'Secret')
  const file = await add(owner.userId, secret.id, 'diary.txt', 'dear diary')
  const trashed = await add(owner.userId, null, 'old.txt', 'old')
  await call(owner.tab, 'DELETE', `/api/files/${trashed.id}`)
  const mine = await folder(other.tab, 'Mine')
  const attempts: Array<[string, 'GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?]> = [
    ['list', 'GET', `/api/files?folder=${secret.id}`],
    ['rename', 'PATCH', `/api/files/${file.id}`, { name: 'mine.txt' }],
    ['move away', 'PATCH', `/api/files/${file.id}`, { parentId: mine.id }],
    ['move in', 'PATCH', `/api/files/${mine.id}`, { parentId: secret.id }],
    ['create in', 'POST', '/api/files/folders', { name: 'x', parentId: secret.id }],
    ['delete', 'DELETE', `/api/files/${file.id}`],
    ['restore', 'POST', `/api/files/${trashed.id}/restore`],
    ['download', 'GET', `/api/files/${file.id}/content`],
  ]
  for (const [what, method, url, body] of attempts) {
    const answer = await call(other.tab, method, url, body)
    t.equal(answer.statusCode, 404, what)
    t.equal(answer.json().code, 'FILES_NOT_FOUND', what)
  }
  t.same(await trashNames(other.tab), [], 'their trash shows nothing of the owner\'s')
  await call(other.tab, 'DELETE', '/api/files/trash')
  t.same(await trashNames(owner.tab), ['old.txt'], 'nor does emptying theirs touch it')
  t.same(await names(owner.tab, secret.id), ['diary.txt'], 'the owner\'s items are untouched')
  t.same(await names(other.tab), ['Mine'])
})

t.test('downloads: the bytes as an attachment, ETag and 304, Range and 416, never run on our origin', async (t) => {
  const { tab, userId } = await person()
  const html = '<!doctype html><script>alert(document.cookie)</script>'
  const page = await add(userId, null, 'Résumé "final".html', html)
  const through = await call(tab, 'GET', `/api/files/${page.id}/content`)
  t.equal(through.statusCode, 200, 'through the BFF')
  t.equal(through.body, html)
  t.equal(
    through.headers['content-disposition'],
    `attachment; filename="Resume _final_.html"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.html`,
    'RFC 6266: the UTF-8 name and an ASCII fallback',
  )
  t.equal(through.headers['content-type'], 'text/html; charset=utf-8', 'through the BFF too')
  t.equal(through.headers['x-content-type-options'], 'nosniff')
  t.match(through.headers['content-security-policy'], /^default-src 'none'.*; sandbox$/, 'sandboxed through the BFF too')
  t.equal(through.headers['cache-control'], 'no-store')
  const etag = through.headers.etag as string
  t.match(etag, /^"[0-9a-f]{32}"$/)
  const cached = await call(tab, 'GET', `/api/files/${page.id}/content`, undefined, { 'if-none-match': etag })
  t.equal(cached.statusCode, 304, 'If-None-Match through the BFF')
  t.equal(cached.body, '')

  const whole = await direct(tab, `/api/files/${page.id}/content`)
  t.equal(whole.status, 200)
  t.equal(whole.headers.get('content-type'), 'text/html; charset=utf-8', 'a text type with its charset (issue 26 §7)')
  t.match(whole.headers.get('content-security-policy'), /(^|;\s*)sandbox(;|$)/, 'sandboxed: no script, no same origin')
  t.equal(whole.headers.get('x-content-type-options'), 'nosniff')
  t.match(whole.headers.get('content-disposition'), /^attachment;/)
  t.equal(whole.headers.get('accept-ranges'), 'bytes')
  t.equal(whole.headers.get('content-length'), String(Buffer.byteLength(html)))
  t.equal(await whole.text(), html)
  const head = await fetch(`${stack.apiUrl}/api/files/${page.id}/content`, { method: 'HEAD', headers: { authorization: `Bearer ${tab.jar.get('sAccessToken')}` } })
  t.equal(head.status, 200, 'HEAD: the headers alone')
  t.equal(head.headers.get('content-length'), String(Buffer.byteLength(html)))
  t.equal(await head.text(), '')
  t.equal((await direct(tab, `/api/files/${page.id}/content`, { 'if-none-match': `W/${etag}, "other"` })).status, 304, 'weak comparison, in a list')
  t.equal((await direct(tab, `/api/files/${page.id}/content`, { 'if-none-match': '"other"' })).status, 200)

  const body = '0123456789'
  const digits = await add(userId, null, 'digits.txt', body)
  const ranged = async (range: string, extra: Record<string, string> = {}) => {
    const answer = await direct(tab, `/api/files/${digits.id}/content`, { range, ...extra })
    return { status: answer.status, range: answer.headers.get('content-range'), length: answer.headers.get('content-length'), text: await answer.text() }
  }
  t.same(await ranged('bytes=2-5'), { status: 206, range: 'bytes 2-5/10', length: '4', text: '2345' })
  t.same(await ranged('bytes=7-'), { status: 206, range: 'bytes 7-9/10', length: '3', text: '789' })
  t.same(await ranged('bytes=-3'), { status: 206, range: 'bytes 7-9/10', length: '3', text: '789' })
  t.same(await ranged('bytes=8-100'), { status: 206, range: 'bytes 8-9/10', length: '2', text: '89' }, 'an end past the file is cut')
  const outside = await ranged('bytes=10-')
  t.equal(outside.status, 416)
  t.equal(outside.range, 'bytes */10')
  t.equal(JSON.parse(outside.text).code, 'FILES_RANGE_NOT_SATISFIABLE')
  t.equal((await ranged('bytes=5-2')).status, 200, 'a malformed range is ignored')
  t.equal((await ranged('bytes=0-1,4-5')).status, 200, 'several ranges: the whole file')
  t.equal((await ranged('bytes=2-5', { 'if-range': '"changed"' })).status, 200, 'If-Range that does not match: the whole file')
  const viaBff = await call(tab, 'GET', `/api/files/${digits.id}/content`, undefined, { range: 'bytes=2-5' })
  t.equal(viaBff.statusCode, 206, 'Range through the BFF')
  t.equal(viaBff.headers['content-range'], 'bytes 2-5/10')
  t.equal(viaBff.body, '2345')
  const outsideViaBff = await call(tab, 'GET', `/api/files/${digits.id}/content`, undefined, { range: 'bytes=10-' })
  t.equal(outsideViaBff.statusCode, 416)
  t.equal(outsideViaBff.headers['content-range'], 'bytes */10')
  const digitsTag = (await direct(tab, `/api/files/${digits.id}/content`)).headers.get('etag')!
  t.equal((await ranged('bytes=2-5', { 'if-range': digitsTag })).status, 206)

  // A folder downloads as a zip (files-zip.test.ts has the rest).
  const box = await folder(tab, 'Box')
  const ofFolder = await call(tab, 'GET', `/api/files/${box.id}/content`)
  t.equal(ofFolder.statusCode, 200)
  t.equal(ofFolder.headers['content-type'], 'application/zip')
})

// A text file downloaded from the drive said `Content-Type: text/html` with no
// charset, so its reader had to guess. Text types say UTF-8; the other types are unchanged; the
// attachment, nosniff and the sandbox stay, also for an inline preview and a share link.
t.test('downloads of text files carry charset=utf-8, and keep the attachment, nosniff and the sandbox', async (t) => {
  const { tab, userId } = await person()
  const text = 'Zoë, 漢字, 😀 — UTF-8\n'
  const expected: Array<[string, string]> = [
    ['notes.txt', 'text/plain; charset=utf-8'],
    ['README.md', 'text/markdown; charset=utf-8'],
    ['table.csv', 'text/csv; charset=utf-8'],
    ['page.HTML', 'text/html; charset=utf-8'],
    ['data.json', 'application/json; charset=utf-8'],
    ['feed.xml', 'application/xml; charset=utf-8'],
    ['drawing.svg', 'image/svg+xml; charset=utf-8'],
    ['photo.png', 'image/png'],
    ['report.pdf', 'application/pdf'],
    ['archive.zip', 'application/zip'],
    ['no-extension', 'application/octet-stream'],
  ]
  for (const [name, contentType] of expected) {
    const file = await add(userId, null, name, text)
    for (const query of ['', '?disposition=inline']) {
      const answer = await call(tab, 'GET', `/api/files/${file.id}/content${query}`)
      t.equal(answer.statusCode, 200, `${name}${query}`)
      t.equal(answer.headers['content-type'], contentType, `${name}${query}: Content-Type`)
      t.equal(answer.headers['x-content-type-options'], 'nosniff', `${name}${query}: nosniff`)
      t.match(answer.headers['content-security-policy'], /(^|;\s*)sandbox(;|$)/, `${name}${query}: sandboxed`)
      // Previewed inline when asked: images, PDF and plain text; the rest stay attachments.
      if (!['photo.png', 'report.pdf', 'notes.txt'].includes(name) || query === '') t.match(answer.headers['content-disposition'], /^attachment;/, `${name}${query}: an attachment`)
      else t.match(answer.headers['content-disposition'], /^inline;/, `${name}${query}: inline`)
    }
    t.equal((await call(tab, 'GET', '/api/files')).json().items.find((item: { id: string }) => item.id === file.id).mimeType, contentType.split(';')[0], `${name}: the listing keeps the bare type`)
  }
  const partial = await call(tab, 'GET', `/api/files/${(await add(userId, null, 'part.txt', text)).id}/content`, undefined, { range: 'bytes=0-3' })
  t.equal(partial.statusCode, 206)
  t.equal(partial.headers['content-type'], 'text/plain; charset=utf-8', 'a range of a text file too')
})

t.test('the sweep at start clears what a crash left: temporary objects, pending rows without their objects, objects without rows', async (t) => {
  const { tab, userId } = await person()
  const kept = await add(userId, null, 'kept.txt', 'kept')
  const disk = new DiskStorage(filesRoot)
  const never = new Promise<never>(() => {})
  // A process that dies at a given point: the storage call never returns, nothing after it runs.
  const crashing = (when: 'before-commit' | 'after-commit', died: () => void): FileStorage =>
    Object.assign(Object.create(disk) as FileStorage, {
      async commit(tempKey: string, key: string) {
        if (when === 'after-commit') await disk.commit(tempKey, key)
        died()
        return never
      },
    })
  const limits = { quotaBytes: QUOTA, maxFileBytes: MAX_FILE }
  const crashAt = (when: 'before-commit' | 'after-commit', name: string, content: string) =>
    new Promise<void>((died) => void add(userId, null, name, content, undefined, new FilesRepository(stack.db, crashing(when, died), limits, Date.now, stack.api.log)))
  await crashAt('before-commit', 'cut-before.txt', 'twelve bytes')
  await crashAt('after-commit', 'cut-after.txt', 'fifteen bytes!!')
  const pendingRows = async () => (await stack.db.query<{ name: string; storage_key: string }>("SELECT name, storage_key FROM api.file_items WHERE user_id = $1 AND state = 'pending' ORDER BY name", [userId])).rows
  const pending = await pendingRows()
  t.same(pending.map((row) => row.name), ['cut-after.txt', 'cut-before.txt'], 'both writes stopped half-way')
  const [after, before] = pending
  t.equal(await disk.size(before!.storage_key), null, 'one row has no object (the temporary one is still there)')
  t.equal(await disk.size(after!.storage_key), 15, 'the other has its object')
  t.same(await names(tab), ['kept.txt'], 'neither is visible')
  t.equal((await list(tab)).usage.used, 4 + 12 + 15, 'while they hold their room')
  const orphan = disk.newKey()
  const orphanTemp = disk.newTempKey()
  await disk.put(orphanTemp, Readable.from([Buffer.from('no row')]))
  await disk.commit(orphanTemp, orphan)
  const temp = disk.newTempKey()
  await disk.put(temp, Readable.from([Buffer.from('abandoned')]))
  t.ok(tempFiles().length >= 2, 'temporary objects are there')

  // Started again an hour later, as the first instance back after the crash.
  const api = await buildApi({
    config: stack.config,
    db: stack.db,
    buildInfo: testBuildInfo,
    authCoreUrl: coreUrl,
    authCoreApiKey: TEST_AUTH_CORE_API_KEY,
    now: () => Date.now() + STALE_WRITE_MS + 60_000,
  })
  await api.ready()
  await api.close()
  t.same(await pendingRows(), [], 'the pending rows are gone')
  t.equal(await disk.size(after!.storage_key), null, 'with the object one of them had')
  t.equal(await disk.size(orphan), null, 'an object without a row is gone')
  t.same(tempFiles(), [], 'every abandoned temporary object is gone')
  t.equal(await disk.size(await storageKey(kept.id)), 4, 'a file that was whole is untouched')
  t.same((await list(tab)).usage, { used: 4, quota: QUOTA }, 'the room is free again')
  const download = await call(tab, 'GET', `/api/files/${kept.id}/content`)
  t.equal(download.body, 'kept')
})

t.test('deleting the account deletes its files, their bytes and its trash', async (t) => {
  const { tab, userId, email } = await person()
  const box = await folder(tab, 'Box')
  const inside = await add(userId, box.id, 'inside.txt', 'inside')
  const gone = await add(userId, null, 'gone.txt', 'gone')
  await call(tab, 'DELETE', `/api/files/${gone.id}`)
  const keys = [await storageKey(inside.id), await storageKey(gone.id)]
  const bystander = await person()
  const theirs = await add(bystander.userId, null, 'theirs.txt', 'theirs')

  const deleted = await call(tab, 'POST', '/api/user/delete', { reason: 'too-expensive', confirmEmail: email })
  t.equal(deleted.statusCode, 204)
  t.equal(await count('SELECT count(*) AS n FROM api.file_items WHERE user_id = $1', [userId]), 0, 'no row left')
  for (const key of keys) t.equal(await files.storage.size(key), null, 'no stored byte left')
  t.equal(await files.storage.size(await storageKey(theirs.id)), 6, 'another user\'s files stay')
})

t.test('"Your data" lists the drive: every file and folder with its path, the trash marked, nobody else\'s', async (t) => {
  const { tab, userId } = await person()
  const other = await person()
  const docs = await folder(tab, 'Docs')
  await add(userId, docs.id, 'plan.md', '# plan')
  const old = await add(userId, null, 'old.txt', 'old')
  await add(other.userId, null, 'theirs.txt', 'not yours')
  t.equal((await call(tab, 'DELETE', `/api/files/${old.id}`)).statusCode < 300, true)
  const exported = (await call(tab, 'GET', '/api/user/export')).json() as { files: Array<Record<string, unknown>> }
  t.same(
    exported.files.map((item) => [item.path, item.type, item.size, item.inTrash]),
    [
      ['Docs', 'folder', 0, false],
      ['Docs/plan.md', 'file', 6, false],
      ['old.txt', 'file', 3, true],
    ],
  )
  t.match(exported.files[1], { mimeType: String, updatedAt: String })
  t.notMatch(JSON.stringify(exported), /theirs\.txt/)
})
