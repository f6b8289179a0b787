import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { S3Storage } from '../../../server/api/files/s3-storage.ts'
import { DiskStorage, ObjectMissingError, ObjectTooLargeError, OffsetMismatchError, type FileStorage } from '../../../server/api/files/storage.ts'
import { tempDir } from '../../helpers.ts'
import { startS3Server } from '../../s3-server.ts'

// One behaviour for both places the drive keeps its bytes: a directory and an
// S3-compatible bucket (s3rver on loopback). Every test runs against each; the S3 runs check the
// stored bytes exactly (sha256), which is what the SDK's checksum setting is about. No database
// here: the PostgreSQL run of the suite leaves this file out (scripts/test-plan.mjs, databaseFree).

const MiB = 1024 * 1024
const s3 = await startS3Server(t)

type Make = (t: Test) => FileStorage
const backends: Array<[string, Make]> = [
  ['disk', (t) => new DiskStorage(tempDir(t))],
  [
    'S3',
    (t) => {
      // A prefix per test: a bucket shared by several, as S3_PREFIX allows.
      const storage = new S3Storage({ ...s3.options, prefix: `run-${randomBytes(4).toString('hex')}/drive` })
      t.teardown(() => storage.close())
      return storage
    },
  ],
]

const bytesOf = (text: string) => Readable.from([Buffer.from(text)])
async function read(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex')
/** A stream of `data` in chunks of `chunk` bytes, then cut off as a client going away does. */
function cutOff(data: Buffer, chunk = 64 * 1024): Readable {
  return Readable.from(
    (async function* () {
      for (let at = 0; at < data.length; at += chunk) yield data.subarray(at, at + chunk)
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
    })(),
  )
}
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = []
  for await (const item of items) all.push(item)
  return all
}

for (const [backend, make] of backends) {
  t.test(`${backend}: put, commit, get, ranges, size, delete, discard`, async (t) => {
    const storage = make(t)
    const temp = storage.newTempKey()
    t.match(temp, /^[0-9a-f]{32}$/)
    t.same(await storage.put(temp, Readable.from([Buffer.from('hello '), Buffer.from('world')])), { size: 11 })
    t.equal(await storage.tempSize(temp), 11)
    const key = storage.newKey()
    t.equal(await storage.size(key), null, 'nothing under the final key before the commit')
    await storage.commit(temp, key)
    t.equal(await storage.tempSize(temp), null, 'the temporary object is gone')
    t.equal(await storage.size(key), 11)
    t.equal((await read(await storage.get(key))).toString(), 'hello world')
    t.equal((await read(await storage.get(key, { start: 6, end: 10 }))).toString(), 'world')
    t.equal((await read(await storage.get(key, { start: 0, end: 0 }))).toString(), 'h')
    await t.rejects(storage.commit(temp, storage.newKey()), ObjectMissingError, 'a temporary object commits once')

    await storage.delete(key)
    t.equal(await storage.size(key), null)
    await t.rejects(storage.get(key), ObjectMissingError)
    await storage.delete(key)
    t.pass('deleting what is not there is fine')

    const dropped = storage.newTempKey()
    await storage.put(dropped, bytesOf('never committed'))
    await storage.discard(dropped)
    t.equal(await storage.tempSize(dropped), null)
    await t.rejects(storage.commit(dropped, storage.newKey()), ObjectMissingError)
    await storage.discard(dropped)
    t.pass('discarding what is not there is fine')

    const empty = storage.newTempKey()
    t.same(await storage.put(empty, Readable.from([])), { size: 0 })
    const emptyKey = storage.newKey()
    await storage.commit(empty, emptyKey)
    t.equal(await storage.size(emptyKey), 0, 'an empty file is a file')
    t.equal((await read(await storage.get(emptyKey))).length, 0)
  })

  t.test(`${backend}: a put past maxBytes or cut off keeps nothing`, async (t) => {
    const storage = make(t)
    const small = storage.newTempKey()
    await t.rejects(storage.put(small, bytesOf('0123456789'), { maxBytes: 9 }), ObjectTooLargeError)
    t.equal(await storage.tempSize(small), null)
    // Past one upload part on S3: a multipart upload under way is abandoned, not completed.
    const large = storage.newTempKey()
    await t.rejects(storage.put(large, Readable.from([randomBytes(6 * MiB), randomBytes(6 * MiB)]), { maxBytes: 11 * MiB }), ObjectTooLargeError)
    t.equal(await storage.tempSize(large), null)
    const cut = storage.newTempKey()
    await t.rejects(storage.put(cut, cutOff(randomBytes(1000))), { code: 'ECONNRESET' })
    t.equal(await storage.tempSize(cut), null, 'a put is whole or nothing')
    t.same(await collect(storage.listTemp(new Date(Date.now() + 60_000))), [], 'no temporary object left')
  })

  t.test(`${backend}: append at 0, at the end, at a wrong offset, cut off, past maxBytes`, async (t) => {
    const storage = make(t)
    const temp = storage.newTempKey()
    t.equal(await storage.tempSize(temp), null)
    await t.rejects(storage.append(temp, 5, bytesOf('early')), OffsetMismatchError, 'a first append starts at 0')
    t.equal(await storage.tempSize(temp), null, 'and writes nothing')
    t.same(await storage.append(temp, 0, Readable.from([])), { size: 0 }, 'an upload made before its first byte')
    t.equal(await storage.tempSize(temp), 0, 'exists, empty')
    t.same(await storage.append(temp, 0, bytesOf('abc')), { size: 3 })
    t.same(await storage.append(temp, 3, bytesOf('def')), { size: 6 })
    const mismatch = await storage.append(temp, 4, bytesOf('XYZ')).catch((error: unknown) => error)
    t.type(mismatch, OffsetMismatchError)
    t.match(mismatch, { expected: 4, actual: 6 })
    await t.rejects(storage.append(temp, 0, bytesOf('XYZ')), OffsetMismatchError, 'nor again from the start')
    t.equal(await storage.tempSize(temp), 6, 'nothing written by a wrong offset')
    t.same(await storage.append(temp, 6, Readable.from([])), { size: 6 }, 'an empty append changes nothing')

    t.same(await storage.append(temp, 6, cutOff(Buffer.from('ghijklmnop'), 4)), { size: 16 }, 'a body cut off keeps what arrived')
    t.equal(await storage.tempSize(temp), 16)
    t.same(await storage.append(temp, 16, cutOff(Buffer.alloc(0))), { size: 16 }, 'cut off before its first byte')
    await t.rejects(storage.append(temp, 16, bytesOf('qrstuvwxyz!'), { maxBytes: 26 }), ObjectTooLargeError, 'past maxBytes in all')
    t.equal(await storage.tempSize(temp), 16, 'the chunk that passed the limit is not written')
    t.same(await storage.append(temp, 16, bytesOf('qrstuvwxyz'), { maxBytes: 26 }), { size: 26 }, 'up to the limit')
    const key = storage.newKey()
    await storage.commit(temp, key)
    t.equal((await read(await storage.get(key))).toString(), 'abcdefghijklmnopqrstuvwxyz')
    t.equal((await read(await storage.get(key, { start: 5, end: 9 }))).toString(), 'fghij', 'a range across segments')
  })

  t.test(`${backend}: a large body cut off keeps its prefix; segments large and small commit to the same bytes`, async (t) => {
    const storage = make(t)
    const temp = storage.newTempKey()
    const pieces = [randomBytes(1024), randomBytes(6 * MiB), randomBytes(6 * MiB + 3), randomBytes(100_000), randomBytes(7 * MiB)]
    let size = 0
    for (const [index, piece] of pieces.entries()) {
      // The third arrives over a connection that drops half-way, then is sent again from there.
      if (index === 2) {
        const half = 3 * MiB + 1
        t.same(await storage.append(temp, size, cutOff(piece.subarray(0, half))), { size: size + half })
        size = (await storage.append(temp, size + half, Readable.from([piece.subarray(half)]))).size
      } else {
        size = (await storage.append(temp, size, Readable.from([piece]))).size
      }
    }
    const whole = Buffer.concat(pieces)
    t.equal(size, whole.length)
    t.equal(await storage.tempSize(temp), whole.length)
    const key = storage.newKey()
    await storage.commit(temp, key)
    t.equal(await storage.size(key), whole.length)
    t.equal(sha(await read(await storage.get(key))), sha(whole), 'the bytes are exactly those sent')
    const start = 6 * MiB - 10
    t.equal(sha(await read(await storage.get(key, { start, end: start + 2 * MiB }))), sha(whole.subarray(start, start + 2 * MiB + 1)))

    const smalls = storage.newTempKey()
    const parts = [randomBytes(10), randomBytes(300_000), randomBytes(1)]
    let offset = 0
    for (const part of parts) offset = (await storage.append(smalls, offset, Readable.from([part]))).size
    const smallKey = storage.newKey()
    await storage.commit(smalls, smallKey)
    t.equal(sha(await read(await storage.get(smallKey))), sha(Buffer.concat(parts)), 'small segments, streamed through')
    t.same(await collect(storage.listTemp(new Date(Date.now() + 60_000))), [], 'commits leave no temporary object')
  })

  t.test(`${backend}: the sweep's lists`, async (t) => {
    const storage = make(t)
    const keys: string[] = []
    for (const text of ['one', 'two']) {
      const temp = storage.newTempKey()
      await storage.put(temp, bytesOf(text))
      const key = storage.newKey()
      await storage.commit(temp, key)
      keys.push(key)
    }
    const left = storage.newTempKey()
    await storage.append(left, 0, bytesOf('half'))
    await storage.append(left, 4, bytesOf(' done'))
    const objects = await collect(storage.listObjects())
    t.same(objects.map((object) => object.key).sort(), [...keys].sort())
    t.ok(objects.every((object) => Math.abs(object.modifiedAt.getTime() - Date.now()) < 60_000), 'with when they were written')
    t.same(await collect(storage.listTemp(new Date(Date.now() + 60_000))), [left], 'a temporary object written before the time')
    t.same(await collect(storage.listTemp(new Date(Date.now() - 60_000))), [], 'not one written since')
  })

  t.test(`${backend}: only its own keys`, async (t) => {
    const storage = make(t)
    for (const bad of ['../etc/passwd', 'ABCDEF0123456789ABCDEF0123456789', '0123', `${'a'.repeat(32)}/x`, '']) {
      await t.rejects(storage.get(bad), /Invalid storage key/, JSON.stringify(bad))
      await t.rejects(storage.put(bad, bytesOf('x')), /Invalid storage key/)
      await t.rejects(storage.append(bad, 0, bytesOf('x')), /Invalid storage key/)
      await t.rejects(storage.size(bad), /Invalid storage key/)
      await t.rejects(storage.delete(bad), /Invalid storage key/)
      await t.rejects(storage.discard(bad), /Invalid storage key/)
    }
  })
}

t.test('S3: a 200 MB put streams through with flat memory, and commits to the same bytes', async (t) => {
  const storage = new S3Storage({ ...s3.options, prefix: `memory-${randomBytes(4).toString('hex')}` })
  t.teardown(() => storage.close())
  const total = 200 * MiB
  const chunk = 256 * 1024
  // Made as it is read, never all at once: a pattern the sha256 below can check.
  const source = () =>
    Readable.from(
      (function* () {
        for (let at = 0; at < total; at += chunk) yield Buffer.alloc(chunk, at / chunk)
      })(),
    )
  const expected = createHash('sha256')
  for await (const piece of source()) expected.update(piece as Buffer)

  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10)
  const temp = storage.newTempKey()
  const key = storage.newKey()
  try {
    t.same(await storage.put(temp, source()), { size: total })
    await storage.commit(temp, key)
    const read = createHash('sha256')
    for await (const piece of await storage.get(key)) read.update(piece as Buffer)
    t.equal(read.digest('hex'), expected.digest('hex'), 'the bytes are exactly those sent')
  } finally {
    clearInterval(sampler)
  }
  peak = Math.max(peak, process.memoryUsage().rss)
  const grown = (peak - before) / MiB
  t.ok(grown < 150, `memory grew by ${grown.toFixed(0)} MB for 200 MB through (s3rver in this process included); bounded, not the body's size`)
  await storage.delete(key)
})
