import { pipeline, Readable } from 'node:stream'
import zlib from 'node:zlib'

// The backup file's container (decision 020): a gzip'd tar in the POSIX ustar layout,
// written and read here rather than by a dependency — the backup writes only plain files with
// short names we choose, so a few dozen lines cover it, and the reader refuses everything else.
// Any tar tool can list or unpack a backup (`tar -tzf backup.tar.gz`).

const BLOCK = 512
/** The largest size the 11 octal digits of a ustar header hold (8 GiB - 1); beyond it, base-256 (GNU). */
const MAX_OCTAL_SIZE = 0o77777777777
const NAME = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/

/** The file is not a backup this version can read, or it is damaged or cut short. */
export class ArchiveError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ArchiveError'
  }
}

export interface ArchiveEntry {
  /** A relative path of plain segments (letters, digits, `.`, `_`, `-`), at most 100 characters. */
  name: string
  size: number
  /** Permission bits kept in the archive; 0o600 by default. */
  mode?: number
  /** The bytes, or a function opening them (a file is opened only when its turn comes). */
  body: Uint8Array | (() => Readable)
}

export interface ReadEntry {
  name: string
  size: number
  mode: number
  /** The entry's bytes, in chunks; read them (or not) before asking for the next entry. */
  chunks(): AsyncIterable<Buffer>
  /** The entry's bytes in one buffer (small entries: the manifest, a secret, the database). */
  bytes(): Promise<Buffer<ArrayBuffer>>
}

function isSafeName(name: string): boolean {
  return name.length <= 100 && NAME.test(name) && !name.split('/').some((part) => part === '.' || part === '..')
}

function writeOctal(header: Buffer, value: number, offset: number, length: number): void {
  header.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'ascii')
}

function header(name: string, size: number, mode: number): Buffer {
  const block = Buffer.alloc(BLOCK)
  block.write(name, 0, 100, 'utf8')
  writeOctal(block, mode & 0o7777, 100, 8)
  writeOctal(block, 0, 108, 8)
  writeOctal(block, 0, 116, 8)
  if (size <= MAX_OCTAL_SIZE) writeOctal(block, size, 124, 12)
  else {
    // GNU's base-256: the first byte's high bit set, then the size big-endian.
    block[124] = 0x80
    block.writeBigUInt64BE(BigInt(size), 128)
  }
  writeOctal(block, Math.floor(Date.now() / 1000), 136, 12)
  block[156] = '0'.charCodeAt(0)
  block.write('ustar\u000000', 257, 8, 'ascii')
  // The checksum is the sum of the header's bytes with its own field read as spaces.
  block.fill(' ', 148, 156)
  let sum = 0
  for (const byte of block) sum += byte
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii')
  return block
}

async function* tarBytes(entries: AsyncIterable<ArchiveEntry> | Iterable<ArchiveEntry>): AsyncGenerator<Buffer> {
  for await (const entry of entries) {
    if (!isSafeName(entry.name)) throw new Error(`An archive entry cannot be named "${entry.name}"`)
    yield header(entry.name, entry.size, entry.mode ?? 0o600)
    let written = 0
    if (entry.body instanceof Uint8Array) {
      written = entry.body.length
      if (written !== entry.size) throw new Error(`${entry.name}: ${written} bytes given for a size of ${entry.size}`)
      yield Buffer.from(entry.body.buffer, entry.body.byteOffset, entry.body.length)
    } else {
      for await (const chunk of entry.body()) {
        const bytes = chunk as Buffer
        written += bytes.length
        // A file that grew after it was listed would shift every later header: stop instead.
        if (written > entry.size) throw new Error(`${entry.name} changed while it was archived`)
        yield bytes
      }
      if (written !== entry.size) throw new Error(`${entry.name} changed while it was archived`)
    }
    if (written % BLOCK !== 0) yield Buffer.alloc(BLOCK - (written % BLOCK))
  }
  // The end-of-archive marker: two empty blocks.
  yield Buffer.alloc(2 * BLOCK)
}

/** The entries as one gzip'd tar stream; an entry that cannot be read ends the stream with its error. */
export function writeArchive(entries: AsyncIterable<ArchiveEntry> | Iterable<ArchiveEntry>): Readable {
  const gzip = zlib.createGzip()
  pipeline(Readable.from(tarBytes(entries), { objectMode: false }), gzip, () => {})
  return gzip
}

/** Bytes pulled from a stream in exact amounts. */
class ByteSource {
  private chunk: Buffer = Buffer.alloc(0)
  private ended = false

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Up to `max` bytes (at least one), or null at the end of the stream. */
  async take(max: number): Promise<Buffer | null> {
    while (this.chunk.length === 0) {
      if (this.ended) return null
      let next: IteratorResult<Buffer>
      try {
        next = await this.source.next()
      } catch (error) {
        throw gzipError(error)
      }
      if (next.done) this.ended = true
      else this.chunk = next.value
    }
    const part = this.chunk.subarray(0, max)
    this.chunk = this.chunk.subarray(part.length)
    return part
  }

  /** Exactly `length` bytes; null when the stream ended before the first; an ArchiveError when it ended part-way. */
  async exactly(length: number): Promise<Buffer | null> {
    const parts: Buffer[] = []
    let have = 0
    while (have < length) {
      const part = await this.take(length - have)
      if (!part) {
        if (have === 0) return null
        throw incomplete()
      }
      parts.push(part)
      have += part.length
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  }
}

function incomplete(): ArchiveError {
  return new ArchiveError('The backup file is incomplete: it ends before its last entry (was the copy cut short?).')
}

function readOctal(block: Buffer, offset: number, length: number): number {
  const text = block.toString('ascii', offset, offset + length).replace(/[\0 ]+$/, '').replace(/^ +/, '')
  if (!/^[0-7]*$/.test(text)) return Number.NaN
  return text === '' ? 0 : parseInt(text, 8)
}

function readSize(block: Buffer): number {
  if ((block[124]! & 0x80) === 0) return readOctal(block, 124, 12)
  const size = block.readBigUInt64BE(128)
  return size <= BigInt(Number.MAX_SAFE_INTEGER) && block.subarray(125, 128).every((byte) => byte === 0) ? Number(size) : Number.NaN
}

function checksumMatches(block: Buffer): boolean {
  const stored = readOctal(block, 148, 8)
  let sum = 0
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!
  return stored === sum
}

/** zlib's complaints, in words about the backup file. */
function gzipError(error: unknown): unknown {
  if (error instanceof ArchiveError) return error
  const code = (error as { code?: string }).code
  if (code === 'Z_BUF_ERROR') return new ArchiveError('The backup file is incomplete: its compressed data ends early (was the copy cut short?).', { cause: error })
  if (code === 'Z_DATA_ERROR') {
    const message = (error as Error).message
    return new ArchiveError(
      /header check/.test(message) ? 'This is not a Softshelf backup: the file is not gzip-compressed.' : `The backup file is damaged: its compressed data does not check out (${message}).`,
      { cause: error },
    )
  }
  return error
}

/**
 * The entries of a gzip'd tar made by writeArchive, one at a time. Every header's checksum is
 * checked, and the stream is read to its end (the gzip trailer's CRC and length included) before
 * the iteration finishes, so a damaged or truncated file fails with an ArchiveError rather than
 * restoring part of a backup.
 */
export async function* readArchive(input: Readable): AsyncGenerator<ReadEntry> {
  const gunzip = zlib.createGunzip()
  pipeline(input, gunzip, () => {})
  const bytes = new ByteSource(gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>)
  try {
    for (;;) {
      const block = await bytes.exactly(BLOCK)
      if (!block) throw new ArchiveError('The backup file is incomplete: it has no end-of-archive marker (was the copy cut short?).')
      if (block.every((byte) => byte === 0)) break
      if (!checksumMatches(block)) throw new ArchiveError('The backup file is damaged: an entry header does not match its checksum.')
      const type = String.fromCharCode(block[156]!)
      const name = block.toString('utf8', 0, 100).replace(/\0.*$/s, '')
      const prefix = block.toString('utf8', 345, 500).replace(/\0.*$/s, '')
      const fullName = prefix ? `${prefix}/${name}` : name
      if (type !== '0' && type !== '\0') throw new ArchiveError(`This is not a Softshelf backup: it holds "${fullName}", which is not a plain file.`)
      if (!isSafeName(fullName)) throw new ArchiveError(`This is not a Softshelf backup: it holds an entry named "${fullName}".`)
      const size = readSize(block)
      if (!Number.isSafeInteger(size) || size < 0) throw new ArchiveError(`The backup file is damaged: the size of "${fullName}" cannot be read.`)
      let left = size
      const chunks = async function* (): AsyncGenerator<Buffer> {
        while (left > 0) {
          const part = await bytes.take(left)
          if (!part) throw incomplete()
          left -= part.length
          yield part
        }
      }
      let used = false
      const entry: ReadEntry = {
        name: fullName,
        size,
        mode: readOctal(block, 100, 8) || 0o600,
        chunks() {
          if (used) throw new Error(`The bytes of ${fullName} were already read`)
          used = true
          return chunks()
        },
        async bytes() {
          const parts: Buffer[] = []
          for await (const part of entry.chunks()) parts.push(part)
          return Buffer.concat(parts, size)
        },
      }
      yield entry
      // Whatever the caller left unread, then the padding to the next block.
      for await (const part of chunks()) void part
      const padding = (BLOCK - (size % BLOCK)) % BLOCK
      if (padding > 0 && !(await bytes.exactly(padding))) throw incomplete()
    }
    // The second empty block, then only zeros (tar pads to a record size) to the gzip trailer.
    if (!(await bytes.exactly(BLOCK))) throw new ArchiveError('The backup file is incomplete: its end-of-archive marker is cut short.')
    for (let part = await bytes.take(64 * 1024); part; part = await bytes.take(64 * 1024)) {
      if (!part.every((byte) => byte === 0)) throw new ArchiveError('The backup file is damaged: it has data after its end-of-archive marker.')
    }
  } finally {
    gunzip.destroy()
  }
}
