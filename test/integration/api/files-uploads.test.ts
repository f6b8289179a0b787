import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import path from 'node:path'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApi } from '../../../server/api/app.ts'
import type { FileItem } from '../../../server/api/files/repository.ts'
import { DiskStorage, type FileStorage } from '../../../server/api/files/storage.ts'
import { TEST_AUTH_CORE_API_KEY, buildStack, secondConnection, testBuildInfo, within, signedInPerson, type Tab } from '../../helpers.ts'

// Resumable uploads (tus 1.0.0 at /api/files/uploads; decision 014), spoken to the API
// as a tus client does, with the session's access token as the BFF forwards it: chunks and
// offsets, a connection cut mid-PATCH, the quota reserved at creation (and raced for), folder
// uploads, the $RECYCLE.BIN sink, two API instances sharing one upload, expiry and the sweep.

const QUOTA = 10_000
const MAX_FILE = 6_000
const HOUR_MS = 60 * 60_000
let clockOffset = 0
const now = () => Date.now() + clockOffset
const stack = await buildStack(t, {
  auth: true,
  env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', FILES_QUOTA_BYTES: String(QUOTA), FILES_MAX_FILE_BYTES: String(MAX_FILE) },
  now,
})
const coreUrl = `http://127.0.0.1:${(stack.authCore!.server.address() as net.AddressInfo).port}`
const tempDir = path.join(stack.config.dataDir, 'files', 'tmp')
const fastLocks = { leaseMs: 2_000, heartbeatMs: 50, acquireTimeoutMs: 5_000, pollMs: 10 }

interface Person {
  tab: Tab
  userId: string
  token: string
}

async function person(): Promise<Person> {
  const { tab, userId } = await signedInPerson(stack, 'uploader')
  return { tab, userId, token: tab.jar.get('sAccessToken')! }
}

/** Another API instance over the same database (its own pool on PostgreSQL) and the same storage folder. */
async function otherInstance(): Promise<{ api: FastifyInstance; url: string }> {
  const api = await buildApi({
    config: stack.config,
    db: await secondConnection(t, stack.db),
    buildInfo: testBuildInfo,
    authCoreUrl: coreUrl,
    authCoreApiKey: TEST_AUTH_CORE_API_KEY,
    now,
    uploadLockTimings: fastLocks,
  })
  await api.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => api.close())
  return { api, url: `http://127.0.0.1:${(api.server.address() as net.AddressInfo).port}` }
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')
const metadata = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([key, value]) => `${key} ${b64(value)}`)
    .join(',')
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

function tus(who: Person, method: string, url: string, headers: Record<string, string> = {}, body?: Buffer, base = stack.apiUrl) {
  return fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${who.token}`, 'tus-resumable': '1.0.0', ...headers },
    ...(body ? { body: new Uint8Array(body) } : {}),
  })
}
const create = (who: Person, length: number, fields: Record<string, string>, base?: string) =>
  tus(who, 'POST', '/api/files/uploads', { 'upload-length': String(length), 'upload-metadata': metadata(fields) }, undefined, base)
const patch = (who: Person, location: string, offset: number, bytes: Buffer, base?: string) =>
  tus(who, 'PATCH', location, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, bytes, base)
const head = (who: Person, location: string, base?: string) => tus(who, 'HEAD', location, {}, undefined, base)
async function created(who: Person, length: number, fields: Record<string, string>, base?: string): Promise<string> {
  const answer = await create(who, length, fields, base)
  if (answer.status !== 201) throw new Error(`creation: ${answer.status} ${await answer.text()}`)
  return answer.headers.get('location')!
}
async function upload(who: Person, bytes: Buffer, fields: Record<string, string>): Promise<string> {
  const location = await created(who, bytes.length, fields)
  const done = await patch(who, location, 0, bytes)
  if (done.status !== 204) throw new Error(`patch: ${done.status} ${await done.text()}`)
  return location
}

async function list(who: Person, folderId?: string) {
  const answer = await fetch(`${stack.apiUrl}/api/files${folderId ? `?folder=${folderId}` : ''}`, { headers: { authorization: `Bearer ${who.token}` } })
  return (await answer.json()) as { items: FileItem[]; usage: { used: number; quota: number } }
}
async function download(who: Person, id: string): Promise<Buffer> {
  const answer = await fetch(`${stack.apiUrl}/api/files/${id}/content`, { headers: { authorization: `Bearer ${who.token}` } })
  return Buffer.from(await answer.arrayBuffer())
}
const tempFiles = () => (fs.existsSync(tempDir) ? fs.readdirSync(tempDir) : [])
const uploadRow = async (location: string) =>
  (await stack.db.query<{ temp_key: string | null; state: string }>('SELECT temp_key, state FROM api.file_uploads WHERE id = $1', [location.split('/').pop()])).rows[0]

/** Resolves once the upload's temporary object holds at least one byte (the server wrote what arrived). */
async function bytesStored(location: string): Promise<void> {
  const tempKey = (await uploadRow(location))!.temp_key!
  fs.mkdirSync(tempDir, { recursive: true })
  const file = path.join(tempDir, tempKey)
  const size = () => (fs.existsSync(file) ? fs.statSync(file).size : 0)
  if (size() > 0) return
  await new Promise<void>((resolve) => {
    const watcher = fs.watch(tempDir, () => {
      if (size() > 0) {
        watcher.close()
        resolve()
      }
    })
  })
}

/** A PATCH from a raw socket that sends `first` and then waits (a stalled or about-to-drop connection). */
function openPatch(who: Person, location: string, offset: number, total: number, first: Buffer, base = stack.apiUrl) {
  const request = http.request(`${base}${location}`, {
    method: 'PATCH',
    headers: {
      authorization: `Bearer ${who.token}`,
      'tus-resumable': '1.0.0',
      'upload-offset': String(offset),
      'content-type': 'application/offset+octet-stream',
      'content-length': String(total),
    },
  })
  const answered = new Promise<http.IncomingMessage | Error>((resolve) => {
    request.on('response', resolve)
    request.on('error', resolve)
  })
  request.write(first)
  return { request, answered }
}

t.test('an upload in chunks: offsets, HEAD, expiry, then the file listed with its bytes, counted once', async (t) => {
  const who = await person()
  const options = await tus(who, 'OPTIONS', '/api/files/uploads')
  t.equal(options.status, 204)
  t.equal(options.headers.get('tus-version'), '1.0.0')
  t.same(options.headers.get('tus-extension')!.split(','), ['creation', 'creation-with-upload', 'termination', 'expiration'])
  t.equal(options.headers.get('tus-max-size'), String(MAX_FILE))
  t.equal(options.headers.get('access-control-allow-origin'), null, 'no CORS: the drive is same-origin only')

  const bytes = randomBytes(5_000)
  const creation = await create(who, bytes.length, { filename: 'Report.pdf', filetype: 'application/pdf' })
  t.equal(creation.status, 201)
  const location = creation.headers.get('location')!
  t.match(location, /^\/api\/files\/uploads\/[A-Za-z0-9_-]{22}$/, 'a relative same-origin path with a 128-bit random id')
  t.equal(creation.headers.get('tus-resumable'), '1.0.0')
  t.equal(creation.headers.get('cache-control'), 'no-store')
  const expires = Date.parse(creation.headers.get('upload-expires')!)
  t.ok(Math.abs(expires - (Date.now() + 24 * HOUR_MS)) < 60_000, 'Upload-Expires a day ahead')
  t.same((await list(who)).usage, { used: 5_000, quota: QUOTA }, 'the declared length is reserved before any byte')
  t.same((await list(who)).items, [], 'nothing is listed yet')

  const first = await head(who, location)
  t.equal(first.status, 200)
  t.equal(first.headers.get('upload-offset'), '0')
  t.equal(first.headers.get('upload-length'), '5000')
  t.equal(first.headers.get('upload-metadata'), metadata({ filename: 'Report.pdf', filetype: 'application/pdf' }))
  t.ok(first.headers.get('upload-expires'))
  t.equal(first.headers.get('cache-control'), 'no-store')

  let offset = 0
  for (const size of [1_000, 1_500, 2_000]) {
    const answer = await patch(who, location, offset, bytes.subarray(offset, offset + size))
    t.equal(answer.status, 204)
    offset += size
    t.equal(answer.headers.get('upload-offset'), String(offset))
    t.equal((await head(who, location)).headers.get('upload-offset'), String(offset), `HEAD after ${offset} bytes`)
  }
  const last = await patch(who, location, offset, bytes.subarray(offset))
  t.equal(last.status, 204)
  t.equal(last.headers.get('upload-offset'), '5000')
  t.equal(last.headers.get('upload-expires'), null, 'a finished upload does not expire')

  const { items, usage } = await list(who)
  t.match(items, [{ type: 'file', name: 'Report.pdf', size: 5_000, mimeType: 'application/pdf' }], 'listed as soon as the last PATCH answered')
  t.same(usage, { used: 5_000, quota: QUOTA }, 'counted once: the reservation became the file')
  t.equal(sha256(await download(who, items[0]!.id)), sha256(bytes), 'the same bytes')
  const after = await head(who, location)
  t.equal(after.status, 200, 'a finished upload still answers, complete')
  t.equal(after.headers.get('upload-offset'), '5000')
  t.equal(tempFiles().length, 0, 'no temporary object left')

  // creation-with-upload: the bytes come with the POST; a name taken becomes "name (2).ext".
  const small = Buffer.from('hello, drive')
  const withBody = await tus(
    who,
    'POST',
    '/api/files/uploads',
    { 'upload-length': String(small.length), 'upload-metadata': metadata({ filename: 'report.PDF' }), 'content-type': 'application/offset+octet-stream' },
    small,
  )
  t.equal(withBody.status, 201)
  t.equal(withBody.headers.get('upload-offset'), String(small.length))
  const empty = await create(who, 0, { filename: 'empty.txt' })
  t.equal(empty.status, 201, 'an empty file needs no PATCH')
  const names = (await list(who)).items.map((item) => [item.name, item.size])
  t.same(names, [
    ['empty.txt', 0],
    ['report (2).PDF', small.length],
    ['Report.pdf', 5_000],
  ])
})

t.test('a connection cut mid-PATCH keeps the bytes that arrived; the upload continues from there', async (t) => {
  const who = await person()
  const bytes = randomBytes(MAX_FILE)
  const location = await created(who, bytes.length, { filename: 'cut.bin' })
  const sent = 4_000
  const { request, answered } = openPatch(who, location, 0, bytes.length, bytes.subarray(0, sent))
  await within(bytesStored(location))
  request.destroy()
  t.type(await answered, Error, 'the client saw its connection drop')

  const resumed = await within(head(who, location))
  const offset = Number(resumed.headers.get('upload-offset'))
  t.ok(offset > 0 && offset <= sent, `HEAD reports the bytes that arrived (${offset})`)
  const rest = await patch(who, location, offset, bytes.subarray(offset))
  t.equal(rest.status, 204)
  const [file] = (await list(who)).items
  t.equal(file?.size, bytes.length)
  t.equal(sha256(await download(who, file!.id)), sha256(bytes), 'identical bytes')
})

t.test('offsets, ownership, termination and the protocol\'s own errors, as JSON', async (t) => {
  const owner = await person()
  const other = await person()
  const location = await created(owner, 3_000, { filename: 'mine.txt' })
  t.equal((await patch(owner, location, 0, Buffer.alloc(1_000, 1))).status, 204)

  const mismatch = await patch(owner, location, 500, Buffer.alloc(100))
  t.equal(mismatch.status, 409)
  t.match(await mismatch.json(), { code: 'FILES_UPLOAD_OFFSET_MISMATCH', message: /HEAD/ })
  t.equal((await head(owner, location)).headers.get('upload-offset'), '1000', 'nothing written')

  for (const [what, answer] of [
    ['HEAD', await head(other, location)],
    ['PATCH', await patch(other, location, 1_000, Buffer.alloc(10))],
    ['DELETE', await tus(other, 'DELETE', location)],
  ] as const) {
    t.equal(answer.status, 404, `another user's ${what}`)
    if (what !== 'HEAD') t.equal(((await answer.json()) as { code: string }).code, 'FILES_UPLOAD_NOT_FOUND')
  }
  t.equal((await head(owner, location)).headers.get('upload-offset'), '1000', 'untouched by the other user')

  const noVersion = await fetch(`${stack.apiUrl}${location}`, { method: 'PATCH', headers: { authorization: `Bearer ${owner.token}` } })
  t.equal(noVersion.status, 412)
  t.equal(((await noVersion.json()) as { code: string }).code, 'FILES_UPLOAD_VERSION')
  const anonymous = await fetch(`${stack.apiUrl}${location}`, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } })
  t.equal(anonymous.status, 401, 'the session first')
  const deferred = await tus(owner, 'POST', '/api/files/uploads', { 'upload-defer-length': '1', 'upload-metadata': metadata({ filename: 'x' }) })
  t.equal(deferred.status, 400)
  t.equal(((await deferred.json()) as { code: string }).code, 'FILES_UPLOAD_INVALID', 'Upload-Length is required')
  const unnamed = await tus(owner, 'POST', '/api/files/uploads', { 'upload-length': '10' })
  t.equal(((await unnamed.json()) as { code: string }).code, 'FILES_UPLOAD_INVALID', 'a filename is required')
  const badName = await create(owner, 10, { filename: 'a/b.txt' })
  t.equal(badName.status, 400)
  t.equal(((await badName.json()) as { code: string }).code, 'FILES_NAME_INVALID')
  const badPath = await create(owner, 10, { filename: 'b.txt', relativePath: 'ok/../b.txt' })
  t.equal(((await badPath.json()) as { code: string }).code, 'FILES_NAME_INVALID', 'each relativePath segment is checked')
  const theirFolder = await fetch(`${stack.apiUrl}/api/files/folders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${other.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Theirs' }),
  })
  const notMine = await create(owner, 10, { filename: 'x.txt', parentId: ((await theirFolder.json()) as FileItem).id })
  t.equal(notMine.status, 404)
  t.equal(((await notMine.json()) as { code: string }).code, 'FILES_NOT_FOUND')
  const aFile = (await list(owner)).items
  t.same(aFile, [], 'nothing made by refused creations')
  const beyond = await patch(owner, location, 1_000, Buffer.alloc(2_500))
  t.equal(beyond.status, 413)
  t.equal(((await beyond.json()) as { code: string }).code, 'FILES_UPLOAD_BEYOND_LENGTH')

  t.equal((await list(owner)).usage.used, 3_000)
  const tempKey = (await uploadRow(location))!.temp_key!
  t.ok(tempFiles().includes(tempKey))
  const terminated = await tus(owner, 'DELETE', location)
  t.equal(terminated.status, 204)
  t.equal((await list(owner)).usage.used, 0, 'termination frees the reservation')
  t.notOk(tempFiles().includes(tempKey), 'and the bytes')
  t.equal((await head(owner, location)).status, 404)

  const finished = await upload(owner, Buffer.from('done'), { filename: 'done.txt' })
  const late = await tus(owner, 'DELETE', finished)
  t.equal(late.status, 400)
  t.equal(((await late.json()) as { code: string }).code, 'FILES_UPLOAD_FINISHED', 'a finished upload is a file now')
  t.same((await list(owner)).items.map((item) => item.name), ['done.txt'])
})

t.test('the quota: two creations racing for the last free bytes, the size limit, a full drive answering before any byte', async (t) => {
  const who = await person()
  const race = await Promise.all([create(who, MAX_FILE, { filename: 'one.bin' }), create(who, MAX_FILE, { filename: 'two.bin' })])
  t.same(race.map((answer) => answer.status).sort(), [201, 413], 'exactly one is created')
  const refused = race.find((answer) => answer.status === 413)!
  t.match(await refused.json(), { code: 'FILES_QUOTA_EXCEEDED', message: /full/ })
  t.equal((await list(who)).usage.used, MAX_FILE)

  const tooLarge = await create(who, MAX_FILE + 1, { filename: 'big.bin' })
  t.equal(tooLarge.status, 413)
  t.match(await tooLarge.json(), { code: 'FILES_TOO_LARGE', message: /at most/ })

  // The rest of the drive is QUOTA - MAX_FILE; a creation with its body declared past it is
  // refused from its headers alone: the client has not sent a byte when the answer comes.
  const request = http.request(`${stack.apiUrl}/api/files/uploads`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${who.token}`,
      'tus-resumable': '1.0.0',
      'upload-length': String(QUOTA - MAX_FILE + 1),
      'upload-metadata': metadata({ filename: 'full.bin' }),
      'content-type': 'application/offset+octet-stream',
      'content-length': String(QUOTA - MAX_FILE + 1),
    },
  })
  request.flushHeaders()
  const answer = await within(new Promise<http.IncomingMessage>((resolve) => request.on('response', resolve)))
  t.equal(answer.statusCode, 413)
  const body = await new Promise<string>((resolve) => {
    let text = ''
    answer.on('data', (chunk: Buffer) => (text += chunk.toString()))
    answer.on('end', () => resolve(text))
  })
  t.equal(JSON.parse(body).code, 'FILES_QUOTA_EXCEEDED')
  request.destroy()
  t.equal((await list(who)).usage.used, MAX_FILE, 'nothing reserved by the refused ones')
})

t.test('a folder upload makes its folders once, even for files finishing at once; $RECYCLE.BIN is a sink', async (t) => {
  const who = await person()
  const files = {
    'Trip/Day 1/a.jpg': randomBytes(300),
    'Trip/Day 1/b.jpg': randomBytes(400),
    'trip/day 1/c.txt': randomBytes(50),
    'Trip/notes.md': randomBytes(20),
  }
  const locations = await Promise.all(Object.entries(files).map(([relativePath, bytes]) => created(who, bytes.length, { filename: relativePath.split('/').pop()!, relativePath })))
  const answers = await Promise.all(Object.values(files).map((bytes, index) => patch(who, locations[index]!, 0, bytes)))
  t.same(answers.map((answer) => answer.status), [204, 204, 204, 204])
  const root = (await list(who)).items
  // Named as the first file to finish spelt it.
  t.match(root, [{ type: 'folder', name: /^trip$/i, size: 770 }], 'one folder, letter case ignored')
  const trip = await list(who, root[0]!.id)
  t.same(trip.items.map((item) => `${item.type}:${item.name.toLowerCase()}`), ['folder:day 1', 'file:notes.md'])
  const day = await list(who, trip.items[0]!.id)
  t.same(day.items.map((item) => item.name), ['a.jpg', 'b.jpg', 'c.txt'], 'files finishing at once land in the same new folder')

  const box = (await (
    await fetch(`${stack.apiUrl}/api/files/folders`, { method: 'POST', headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Box' }) })
  ).json()) as FileItem
  await upload(who, Buffer.from('x'), { filename: 'x.txt', parentId: box.id, relativePath: 'Trip/x.txt' })
  await upload(who, Buffer.from('y'), { filename: 'y.txt', parentId: box.id, relativePath: 'TRIP' })
  const inBox = (await list(who, box.id)).items
  t.same(inBox.map((item) => item.name), ['Trip'], 'under parentId')
  t.same((await list(who, inBox[0]!.id)).items.map((item) => item.name), ['x.txt', 'y.txt'], 'a path of the folders alone is understood too')

  const usedBefore = (await list(who)).usage.used
  const sinks: Array<Record<string, string>> = [
    { filename: '$RECYCLE.BIN' },
    { filename: 'desktop.ini', relativePath: '$Recycle.Bin/desktop.ini' },
    { filename: 'old.doc', relativePath: 'Trip/$recycle.bin/S-1-5-21/old.doc' },
    { filename: 'ghost.txt', relativePath: 'Disk/Deep/$RECYCLE.bin/ghost.txt' },
  ]
  for (const fields of sinks) {
    const bytes = randomBytes(1_000)
    const location = await created(who, bytes.length, fields)
    t.equal((await list(who)).usage.used, usedBefore, `nothing reserved: ${JSON.stringify(fields)}`)
    t.equal((await patch(who, location, 0, bytes.subarray(0, 600))).headers.get('upload-offset'), '600', 'bytes are taken')
    const done = await patch(who, location, 600, bytes.subarray(600))
    t.equal(done.status, 204, 'and the upload finishes, as a generic tus client expects')
    t.equal((await head(who, location)).headers.get('upload-offset'), '1000')
  }
  t.equal((await list(who)).usage.used, usedBefore, 'nothing counted')
  t.same((await list(who)).items.map((item) => item.name.toLowerCase()), ['box', 'trip'], 'nothing made')
  t.same(trip.items.length, (await list(who, root[0]!.id)).items.length)
  const all = await stack.db.query<{ name: string }>('SELECT name FROM api.file_items WHERE user_id = $1', [who.userId])
  t.notOk(all.rows.some((row) => /recycle|desktop\.ini|old\.doc|ghost|disk/i.test(row.name)), 'not even a hidden row')
  t.same(tempFiles(), [], 'no bytes stored')
})

t.test('two API instances: an upload started on one continues on the other, and a stalled PATCH gives way', async (t) => {
  const a = await otherInstance()
  const b = await otherInstance()
  const who = await person()
  const bytes = randomBytes(4_000)
  const location = await created(who, bytes.length, { filename: 'shared.bin' }, a.url)
  t.equal((await patch(who, location, 0, bytes.subarray(0, 2_000), a.url)).status, 204)
  const onB = await head(who, location, b.url)
  t.equal(onB.headers.get('upload-offset'), '2000', 'B knows where A stopped')
  t.equal((await patch(who, location, 2_000, bytes.subarray(2_000), b.url)).status, 204)
  const [file] = (await list(who)).items
  t.equal(sha256(await download(who, file!.id)), sha256(bytes))

  // A PATCH on A whose client stops sending but keeps the connection (half-open); the client
  // reconnects through B. B's request asks A's for the lock; A's ends, keeping what it wrote.
  const second = randomBytes(5_000)
  const stalled = await created(who, second.length, { filename: 'stalled.bin' }, a.url)
  const { request, answered } = openPatch(who, stalled, 0, second.length, second.subarray(0, 3_000), a.url)
  await within(bytesStored(stalled))
  const taken = await within(head(who, stalled, b.url))
  t.equal(taken.status, 200, 'B got the lock from the stalled request')
  const offset = Number(taken.headers.get('upload-offset'))
  t.ok(offset > 0 && offset <= 3_000, `the stalled request's bytes stay (${offset})`)
  const old = await within(answered)
  t.notOk(old instanceof Error, 'the stalled request was answered, with what it kept')
  request.destroy()
  t.equal((await patch(who, stalled, offset, second.subarray(offset), b.url)).status, 204)
  const made = (await list(who)).items.find((item) => item.name === 'stalled.bin')!
  t.equal(sha256(await download(who, made.id)), sha256(second))
  t.equal((await stack.db.query('SELECT 1 FROM api.file_upload_locks')).rowCount, 0, 'no lock left behind')

  // Two files of one dropped folder, finishing at the same moment on the two instances.
  const left = await created(who, 10, { filename: 'l.txt', relativePath: 'Both/l.txt' }, a.url)
  const right = await created(who, 10, { filename: 'r.txt', relativePath: 'both/r.txt' }, b.url)
  const finishes = await Promise.all([patch(who, left, 0, Buffer.alloc(10), a.url), patch(who, right, 0, Buffer.alloc(10), b.url)])
  t.same(finishes.map((answer) => answer.status), [204, 204])
  const both = (await list(who)).items.filter((item) => item.type === 'folder')
  t.match(both, [{ name: /^both$/i, size: 20 }], 'one folder')
})

t.test('a finish that fails is done by the next HEAD, and the file appears once', async (t) => {
  const disk = new DiskStorage(path.join(stack.config.dataDir, 'files'))
  let failures = 1
  const flaky = Object.assign(Object.create(disk) as FileStorage, {
    async commit(tempKey: string, key: string) {
      if (failures-- > 0) throw new Error('the storage is briefly unavailable (test)')
      return disk.commit(tempKey, key)
    },
  })
  const api = await buildApi({ config: stack.config, db: stack.db, buildInfo: testBuildInfo, authCoreUrl: coreUrl, authCoreApiKey: TEST_AUTH_CORE_API_KEY, now, fileStorage: flaky })
  await api.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => api.close())
  const url = `http://127.0.0.1:${(api.server.address() as net.AddressInfo).port}`
  const who = await person()
  const bytes = randomBytes(800)
  const location = await created(who, bytes.length, { filename: 'flaky.bin' }, url)
  const failed = await patch(who, location, 0, bytes, url)
  t.equal(failed.status, 500)
  t.same((await list(who)).items, [], 'no file yet')
  t.equal((await list(who)).usage.used, 800, 'the bytes still reserved, once')
  const asked = await head(who, location, url)
  t.equal(asked.status, 200)
  t.equal(asked.headers.get('upload-offset'), '800', 'complete, as a tus client then believes')
  const { items, usage } = await list(who)
  t.match(items, [{ name: 'flaky.bin', size: 800 }], 'so the file is made by that HEAD')
  t.equal(usage.used, 800)
  t.equal(sha256(await download(who, items[0]!.id)), sha256(bytes))
})

t.test('an upload untouched for 24 hours expires; the hourly sweep leaves a live upload\'s bytes alone', async (t) => {
  t.teardown(() => void (clockOffset = 0))
  const who = await person()
  const bytes = randomBytes(2_000)
  const location = await created(who, bytes.length, { filename: 'paused.bin' })
  t.equal((await patch(who, location, 0, bytes.subarray(0, 500))).status, 204)
  const tempKey = (await uploadRow(location))!.temp_key!

  clockOffset = 2 * HOUR_MS
  const report = await stack.api.files.sweep()
  t.equal(report.uploadsExpired, 0)
  t.ok(tempFiles().includes(tempKey), 'a paused upload\'s temporary object outlives the hour of abandoned writes')
  clockOffset = 23 * HOUR_MS
  await stack.api.files.sweep()
  const at23 = await head(who, location)
  t.equal(at23.status, 200, 'still there after 23 hours')
  t.equal(at23.headers.get('upload-offset'), '500')
  const touched = await patch(who, location, 500, bytes.subarray(500, 1_000))
  t.equal(touched.status, 204)
  t.ok(Math.abs(Date.parse(touched.headers.get('upload-expires')!) - (now() + 24 * HOUR_MS)) < 60_000, 'a PATCH moves the expiry a day on')

  clockOffset = 23 * HOUR_MS + 25 * HOUR_MS
  const expired = await head(who, location)
  t.equal(expired.status, 410)
  const late = await patch(who, location, 1_000, bytes.subarray(1_000))
  t.equal(late.status, 410)
  t.equal(((await late.json()) as { code: string }).code, 'FILES_UPLOAD_EXPIRED')
  t.ok((await stack.api.files.sweep()).uploadsExpired >= 1, 'the sweep removes it (with the finished uploads remembered a day)')
  t.equal(await uploadRow(location), undefined)
  t.notOk(tempFiles().includes(tempKey), 'its bytes are gone')
  t.equal((await head(who, location)).status, 404)
  t.same((await list(who)).usage.used, 0, 'and its reservation')
})

t.test('deleting the account removes its uploads under way', async (t) => {
  const who = await person()
  const location = await created(who, 1_000, { filename: 'left.bin' })
  await patch(who, location, 0, Buffer.alloc(100))
  const tempKey = (await uploadRow(location))!.temp_key!
  await stack.api.files.removeAllOf(who.userId)
  t.equal(await uploadRow(location), undefined)
  t.notOk(tempFiles().includes(tempKey))
})
