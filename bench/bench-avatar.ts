// `BENCH_ONLY=avatar npm run bench`: what an avatar upload costs the product API — the
// decode, upright turn, square crop and WebP encode of server/api/users/avatar-image.ts — for a phone
// photo (12 MP JPEG) and a large PNG, and how fast a decompression bomb (50 000 × 50 000 pixels
// declared) is refused. Run in a child process of its own, so its peak memory is the encoder's.
// Budgets on the 2-core machine: a 12 MP JPEG p95 ≤ 1000 ms, the bomb refused in ≤ 50 ms, and the
// process's peak RSS ≤ 400 MB with two encodes at once (the API's own limit), its inputs made first.
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'

export interface AvatarFigures {
  jpegP50: number
  jpegP95: number
  pngP50: number
  bombMs: number
  peakRssMb: number
  pass: boolean
}

const BUDGET = { jpegP95: 1000, bombMs: 50, peakRssMb: 400 }

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(zlib.crc32(typed))
  return Buffer.concat([length, typed, crc])
}

async function measure(): Promise<AvatarFigures> {
  const sharp = (await import('sharp')).default
  const { encodeAvatar, AvatarImageError } = await import('../server/api/users/avatar-image.ts')
  // A photo-like image: a pattern the codecs cannot make small, so they have real work.
  const noise = (width: number, height: number) => {
    const pixels = Buffer.allocUnsafe(width * height * 3)
    for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919 + (i >> 11)) % 251
    return sharp(pixels, { raw: { width, height, channels: 3 } })
  }
  const jpeg = await noise(4000, 3000).jpeg({ quality: 85 }).toBuffer()
  const png = await noise(1400, 1000).png({ compressionLevel: 6 }).toBuffer()
  await encodeAvatar(png) // warm the codecs
  ;(globalThis as { gc?: () => void }).gc?.()
  let peak = process.memoryUsage().rss
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
  const times = async (input: Buffer, runs: number) => {
    const out: number[] = []
    for (let i = 0; i < runs; i++) {
      const started = performance.now()
      // Two at once, as the API allows.
      await Promise.all([encodeAvatar(input), encodeAvatar(input)])
      out.push(performance.now() - started)
    }
    return out.sort((a, b) => a - b)
  }
  const jpegTimes = await times(jpeg, 10)
  const pngTimes = await times(png, 5)
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(50_000, 0)
  ihdr.writeUInt32BE(50_000, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const bomb = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(150_001))), chunk('IEND', Buffer.alloc(0))])
  const bombStarted = performance.now()
  const refused = await encodeAvatar(bomb).then(() => false, (error: unknown) => error instanceof AvatarImageError)
  const bombMs = performance.now() - bombStarted
  clearInterval(sampler)
  const at = (list: number[], q: number) => list[Math.min(list.length - 1, Math.floor(q * list.length))]!
  const figures = {
    jpegP50: at(jpegTimes, 0.5),
    jpegP95: at(jpegTimes, 0.95),
    pngP50: at(pngTimes, 0.5),
    bombMs,
    peakRssMb: peak / 2 ** 20,
  }
  return { ...figures, pass: refused && figures.jpegP95 <= BUDGET.jpegP95 && figures.bombMs <= BUDGET.bombMs && figures.peakRssMb <= BUDGET.peakRssMb }
}

export function benchAvatar(): Promise<AvatarFigures> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    child.once('message', (figures) => resolve(figures as AvatarFigures))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`the avatar bench exited with ${code}`))))
  })
}

export function printAvatar(figures: AvatarFigures): void {
  const f = (n: number) => n.toFixed(0)
  console.log('\n## avatar (issue 11): decode + crop + WebP encode, two at once')
  console.log(`12 MP JPEG: p50 ${f(figures.jpegP50)} ms, p95 ${f(figures.jpegP95)} ms (budget ≤ ${BUDGET.jpegP95} ms)`)
  console.log(`1.4 MP PNG: p50 ${f(figures.pngP50)} ms`)
  console.log(`50 000 × 50 000 PNG refused in ${f(figures.bombMs)} ms (budget ≤ ${BUDGET.bombMs} ms)`)
  console.log(`peak RSS of the process ${f(figures.peakRssMb)} MB (budget ≤ ${BUDGET.peakRssMb} MB)`)
  console.log(figures.pass ? 'PASS avatar' : 'FAIL avatar')
}

if (process.argv.includes('--child')) {
  measure().then(
    (figures) => process.send!(figures, () => process.exit(0)),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}
