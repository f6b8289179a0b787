import { inflateRawSync } from 'node:zlib'

// A small zip reader for tests: the central directory, then each entry's bytes from its
// local header — stored or deflated, as yazl writes them. Enough to check what a download holds.

export interface ZipEntryRead {
  name: string
  /** General purpose bit 11: the name is UTF-8. */
  utf8: boolean
  method: number
  directory: boolean
  data: Buffer
}

export function readZip(zip: Buffer): ZipEntryRead[] {
  let end = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i -= 1) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i
      break
    }
  }
  if (end === -1) throw new Error('no end of central directory record: not a whole zip')
  const count = zip.readUInt16LE(end + 10)
  let offset = zip.readUInt32LE(end + 16)
  const entries: ZipEntryRead[] = []
  for (let n = 0; n < count; n += 1) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error(`bad central directory entry at ${offset}`)
    const flags = zip.readUInt16LE(offset + 8)
    const method = zip.readUInt16LE(offset + 10)
    const compressedSize = zip.readUInt32LE(offset + 20)
    const size = zip.readUInt32LE(offset + 24)
    const nameLength = zip.readUInt16LE(offset + 28)
    const extraLength = zip.readUInt16LE(offset + 30)
    const commentLength = zip.readUInt16LE(offset + 32)
    const local = zip.readUInt32LE(offset + 42)
    const name = zip.subarray(offset + 46, offset + 46 + nameLength).toString('utf8')
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header for ${name}`)
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const raw = zip.subarray(start, start + compressedSize)
    const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw)
    if (data.length !== size) throw new Error(`${name}: ${data.length} bytes, the directory says ${size}`)
    entries.push({ name, utf8: (flags & 0x0800) !== 0, method, directory: name.endsWith('/'), data })
    offset += 46 + nameLength + extraLength + commentLength
  }
  return entries
}
