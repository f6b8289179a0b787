import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import t from 'tap'
import { ArchiveError, readArchive, writeArchive, type ArchiveEntry } from '../../../server/backup/archive.ts'
import { tempDir } from '../../helpers.ts'

// The backup file's container (decision 020): what goes in comes out byte for byte, any tar tool
// reads it, and a file cut short or changed is refused with a message saying so.

const big = randomBytes(200_000)
const sample = (): ArchiveEntry[] => [
  { name: 'softshelf-backup.json', size: 13, body: Buffer.from('{"format": 1}') },
  { name: 'secrets/operator-token', size: 0, body: Buffer.alloc(0) },
  { name: 'database.tar', size: 1024, mode: 0o644, body: Buffer.alloc(1024, 7) },
  { name: 'files/objects/ab/ab0123', size: big.length, body: () => Readable.from([big.subarray(0, 70_000), big.subarray(70_000)]) },
]

async function readAll(file: Buffer): Promise<Array<{ name: string; size: number; mode: number; bytes: Buffer }>> {
  const out = []
  for await (const entry of readArchive(Readable.from([file]))) out.push({ name: entry.name, size: entry.size, mode: entry.mode, bytes: await entry.bytes() })
  return out
}

t.test('entries come back with their names, sizes, modes and bytes, in order', async (t) => {
  const file = await buffer(writeArchive(sample()))
  const entries = await readAll(file)
  t.same(
    entries.map((entry) => [entry.name, entry.size, entry.mode]),
    [
      ['softshelf-backup.json', 13, 0o600],
      ['secrets/operator-token', 0, 0o600],
      ['database.tar', 1024, 0o644],
      ['files/objects/ab/ab0123', big.length, 0o600],
    ],
  )
  t.equal(entries[0]!.bytes.toString(), '{"format": 1}')
  t.ok(entries[2]!.bytes.equals(Buffer.alloc(1024, 7)))
  t.ok(entries[3]!.bytes.equals(big), 'a streamed body arrives whole')
})

t.test('entries a reader skips do not disturb the next one', async (t) => {
  const file = await buffer(writeArchive(sample()))
  const names: string[] = []
  let last: Buffer | undefined
  for await (const entry of readArchive(Readable.from([file]))) {
    names.push(entry.name)
    if (entry.name.startsWith('files/')) last = await entry.bytes()
  }
  t.same(names, ['softshelf-backup.json', 'secrets/operator-token', 'database.tar', 'files/objects/ab/ab0123'])
  t.ok(last?.equals(big))
})

t.test('the system tar lists and unpacks a backup', async (t) => {
  const dir = tempDir(t)
  const archive = path.join(dir, 'backup.tar.gz')
  fs.writeFileSync(archive, await buffer(writeArchive(sample())))
  const listed = spawnSync('tar', ['-tzf', archive], { encoding: 'utf8', timeout: 10_000 })
  t.equal(listed.status, 0, listed.stderr)
  t.same(listed.stdout.trim().split('\n'), ['softshelf-backup.json', 'secrets/operator-token', 'database.tar', 'files/objects/ab/ab0123'])
  const unpacked = spawnSync('tar', ['-xzf', archive, '-C', dir], { encoding: 'utf8', timeout: 10_000 })
  t.equal(unpacked.status, 0, unpacked.stderr)
  t.ok(fs.readFileSync(path.join(dir, 'files/objects/ab/ab0123')).equals(big))
})

t.test('a file cut short is refused as incomplete, wherever it was cut', async (t) => {
  const file = await buffer(writeArchive(sample()))
  for (const length of [10, Math.floor(file.length / 2), file.length - 9, file.length - 1]) {
    await t.rejects(readAll(file.subarray(0, length)), { name: 'ArchiveError', message: /incomplete/ }, `cut at ${length} of ${file.length}`)
  }
  await t.rejects(readAll(Buffer.alloc(0)), ArchiveError, 'an empty file')
})

t.test('changed bytes are refused as damaged', async (t) => {
  const file = await buffer(writeArchive(sample()))
  for (const at of [20, Math.floor(file.length / 2), file.length - 6]) {
    const damaged = Buffer.from(file)
    damaged[at] = damaged[at]! ^ 0xff
    await t.rejects(readAll(damaged), { name: 'ArchiveError', message: /damaged|incomplete/ }, `byte ${at} of ${file.length} changed`)
  }
  await t.rejects(readAll(Buffer.from('name,size\nx,1\n')), { name: 'ArchiveError', message: 'This is not a Softshelf backup: the file is not gzip-compressed.' })
})

t.test('a tar of another kind is refused by name', async (t) => {
  const dir = tempDir(t)
  fs.mkdirSync(path.join(dir, 'folder'))
  fs.writeFileSync(path.join(dir, 'folder', 'x'), 'x')
  const made = spawnSync('tar', ['-czf', path.join(dir, 'other.tar.gz'), '-C', dir, 'folder'], { timeout: 10_000 })
  t.equal(made.status, 0)
  await t.rejects(readAll(fs.readFileSync(path.join(dir, 'other.tar.gz'))), { name: 'ArchiveError', message: 'This is not a Softshelf backup: it holds "folder/", which is not a plain file.' })
})

t.test('the writer refuses names that could leave the folder, and files that change while written', async (t) => {
  for (const name of ['../secret', '/etc/passwd', 'a//b', 'files/./x', `${'a'.repeat(101)}`]) {
    await t.rejects(buffer(writeArchive([{ name, size: 1, body: Buffer.from('x') }])), { message: `An archive entry cannot be named "${name}"` }, name)
  }
  await t.rejects(buffer(writeArchive([{ name: 'grew', size: 3, body: () => Readable.from([Buffer.from('four')]) }])), { message: 'grew changed while it was archived' })
  await t.rejects(buffer(writeArchive([{ name: 'shrank', size: 5, body: () => Readable.from([Buffer.from('four')]) }])), { message: 'shrank changed while it was archived' })
})
