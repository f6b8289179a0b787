import { randomBytes } from 'node:crypto'
import type net from 'node:net'
import { Readable } from 'node:stream'
import t from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { FilesRepository, STALE_WRITE_MS } from '../../../server/api/files/repository.ts'
import { S3Storage } from '../../../server/api/files/s3-storage.ts'
import type { FileStorage } from '../../../server/api/files/storage.ts'
import { LogCapture, TEST_AUTH_CORE_API_KEY, buildStack, freePort, testBuildInfo, testConfig, within, signedInPerson, type Tab } from '../../helpers.ts'
import { startS3Server } from '../../s3-server.ts'

// The drive with its bytes in an S3 bucket: S3_URL and its companions set, as an operator
// would, against s3rver on loopback. The drive's behaviour is the same as on disk (files.test.ts
// covers it there in full); here the paths where the store matters: writes and downloads with
// ranges, deletion, a refusal that leaves nothing, the sweep after a crash, and a bucket that
// cannot be used at start or later. Kept short: CI runs it on PGlite and again on PostgreSQL.

const QUOTA = 1000
const s3 = await startS3Server(t)
const prefix = `api-${randomBytes(4).toString('hex')}`
const env = { ...s3.env, S3_PREFIX: prefix, AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', FILES_QUOTA_BYTES: String(QUOTA), FILES_MAX_FILE_BYTES: '600' }
const stack = await buildStack(t, { auth: true, env })
const coreUrl = `http://127.0.0.1:${(stack.authCore!.server.address() as net.AddressInfo).port}`
const files = stack.api.files
// The same bucket and prefix, seen from outside the app: what is really stored.
const bucket = new S3Storage({ ...s3.options, prefix })
t.teardown(() => bucket.close())

const person = () => signedInPerson(stack, 's3-drive')
function call(tab: Tab, method: 'GET' | 'DELETE', url: string, headers: Record<string, string> = {}) {
  return stack.bff.inject({ method, url, headers: { cookie: tab.jar.header(url), rid: 'anti-csrf', origin: 'http://localhost:3000', ...headers } })
}
const add = (userId: string, name: string, content: string | Buffer, repository = files) => repository.addFile(userId, null, name, Readable.from([Buffer.from(content)]))
const storageKey = async (id: string) => (await stack.db.query<{ storage_key: string }>('SELECT storage_key FROM api.file_items WHERE id = $1', [id])).rows[0]!.storage_key
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = []
  for await (const item of items) all.push(item)
  return all
}
const tempObjects = () => collect(bucket.listTemp(new Date(Date.now() + 60_000)))

t.test('S3_URL set: files are stored in the bucket, downloaded whole or by range, and deleted with the trash', async (t) => {
  t.type(files.storage, S3Storage, 'the bucket, not the directory')
  const { tab, userId } = await person()
  const digits = await add(userId, 'digits.txt', '0123456789')
  const key = await storageKey(digits.id)
  t.equal(await bucket.size(key), 10, 'the object is in the bucket under the prefix')
  const whole = await call(tab, 'GET', `/api/files/${digits.id}/content`)
  t.equal(whole.statusCode, 200)
  t.equal(whole.body, '0123456789')
  t.equal(whole.headers['content-length'], '10')
  for (const [range, body, contentRange] of [
    ['bytes=2-5', '2345', 'bytes 2-5/10'],
    ['bytes=0-0', '0', 'bytes 0-0/10'],
    ['bytes=-3', '789', 'bytes 7-9/10'],
  ] as const) {
    const part = await call(tab, 'GET', `/api/files/${digits.id}/content`, { range })
    t.equal(part.statusCode, 206, range)
    t.equal(part.headers['content-range'], contentRange)
    t.equal(part.body, body)
  }
  t.equal((await call(tab, 'GET', `/api/files/${digits.id}/content`, { range: 'bytes=10-' })).statusCode, 416)

  t.equal((await call(tab, 'DELETE', `/api/files/${digits.id}`)).statusCode, 204)
  t.equal(await bucket.size(key), 10, 'in the trash the bytes stay')
  t.equal((await call(tab, 'DELETE', '/api/files/trash')).statusCode, 204)
  t.equal(await bucket.size(key), null, 'emptied: gone from the bucket')

  await t.rejects(add(userId, 'huge.bin', Buffer.alloc(601)), { code: 'FILES_TOO_LARGE' })
  await t.rejects(add(userId, 'big.bin', Buffer.alloc(500)).then(() => add(userId, 'more.bin', Buffer.alloc(501))), { code: 'FILES_QUOTA_EXCEEDED' })
  t.same(await tempObjects(), [], 'a refusal leaves no temporary object in the bucket')
})

t.test('the sweep at start clears what a crash left in the bucket', async (t) => {
  const { tab, userId } = await person()
  const kept = await add(userId, 'kept.txt', 'kept')
  const never = new Promise<never>(() => {})
  // A process that dies just before its commit: the temporary object and a pending row remain.
  const crashing = (died: () => void): FileStorage =>
    Object.assign(Object.create(files.storage) as FileStorage, {
      commit() {
        died()
        return never
      },
    })
  await new Promise<void>((died) => void add(userId, 'cut.txt', 'cut short', new FilesRepository(stack.db, crashing(died), files.limits, Date.now, stack.api.log)))
  const orphan = bucket.newKey()
  const orphanTemp = bucket.newTempKey()
  await bucket.put(orphanTemp, Readable.from([Buffer.from('no row')]))
  await bucket.commit(orphanTemp, orphan)
  const upload = bucket.newTempKey()
  await bucket.append(upload, 0, Readable.from([Buffer.from('an upload ')]))
  await bucket.append(upload, 10, Readable.from([Buffer.from('given up')]))
  t.equal((await tempObjects()).length, 2, 'two temporary objects, one of them in two segments')

  // Started again an hour later, as the first instance back after the crash.
  const api = await buildApi({ config: stack.config, db: stack.db, buildInfo: testBuildInfo, authCoreUrl: coreUrl, authCoreApiKey: TEST_AUTH_CORE_API_KEY, now: () => Date.now() + STALE_WRITE_MS + 60_000 })
  await api.ready()
  await api.close()
  t.same(await tempObjects(), [], 'every abandoned temporary object is gone, segments and all')
  t.equal(await bucket.size(orphan), null, 'an object without a row is gone')
  t.equal((await stack.db.query("SELECT 1 FROM api.file_items WHERE user_id = $1 AND state = 'pending'", [userId])).rowCount, 0, 'the pending row is gone')
  t.equal((await call(tab, 'GET', `/api/files/${kept.id}/content`)).body, 'kept', 'a whole file is untouched')
})

t.test('a bucket that cannot be used stops the start with the reason, never the secret; later, /readyz reports it', async (t) => {
  const secret = 'another-secret-never-shown-0123'
  /** Why the API would not start with these settings. */
  const start = async (extra: Record<string, string>): Promise<Error> => {
    const config = testConfig(t, { ...env, ...extra })
    const started = await within(buildApi({ config, db: stack.db, buildInfo: testBuildInfo, authCoreUrl: coreUrl, authCoreApiKey: TEST_AUTH_CORE_API_KEY })).catch((error: unknown) => error as Error)
    if (started instanceof Error) return started
    await started.close()
    return new Error('it started')
  }
  // s3rver refuses an unknown access key id (it does not check signatures, so not a wrong secret).
  const denied = await start({ S3_ACCESS_KEY_ID: 'AKIAUNKNOWN', S3_SECRET_ACCESS_KEY: secret })
  t.match(denied, { message: `The S3 bucket "${s3.bucket}" at ${s3.url} cannot be used: access denied (check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)` })
  t.notMatch(denied.message, secret)
  t.match(await start({ S3_BUCKET: 'no-such-bucket' }), { message: /"no-such-bucket" .* cannot be used: no such bucket/ })
  const closed = `http://127.0.0.1:${await freePort()}`
  t.match(await start({ S3_URL: closed }), { message: new RegExp(`at ${closed} cannot be used: .*ECONNREFUSED`) }, 'nothing listening')

  // A bucket that goes away while the API runs: /readyz reports it (still 200: every instance
  // shares the bucket), and the log says why without the secret.
  const other = await startS3Server(t, 'short-lived')
  const logs = new LogCapture()
  const config = testConfig(t, { ...other.env, LOG_LEVEL: 'warn' })
  let later = 0
  const api = await buildApi({ config, db: stack.db, buildInfo: testBuildInfo, authCoreUrl: coreUrl, authCoreApiKey: TEST_AUTH_CORE_API_KEY, logStream: logs, now: () => Date.now() + later })
  t.teardown(() => api.close())
  t.equal((await api.inject('/readyz')).statusCode, 200)
  await other.stop()
  later = 60_000 // past the readiness answer's second in the cache
  const answer = await api.inject('/readyz')
  t.equal(answer.statusCode, 200)
  t.match(answer.json(), { status: 'ok', dependencies: { fileStorage: 'unreachable' } })
  t.match(logs.text, /file storage not usable/)
  t.notMatch(logs.text, /S3RVER|Signature=|Credential=/, 'no credential in the log')
})
