import fs from 'node:fs'
import { pipeline, Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { createGunzip } from 'node:zlib'
import { request } from 'undici'
import type { CatalogueFeed } from '../../../config.ts'

// Reading a catalogue feed (decision 029): over HTTP with undici, conditionally (the
// ETag and Last-Modified of the last read), or from a file. The body comes out as chunks, gunzip'd
// when it starts with gzip's magic bytes, and never more than the limit: past it reading stops
// and the connection is dropped. Every way it can fail is a FeedProblem with a sentence an
// operator understands; nothing of a failed read is used.

export type FeedProblemKind = 'unreachable' | 'status' | 'timeout' | 'too-big' | 'malformed'

export class FeedProblem extends Error {
  constructor(
    readonly kind: FeedProblemKind,
    message: string,
  ) {
    super(message)
    this.name = 'FeedProblem'
  }
}

export interface FeedValidators {
  etag: string | null
  lastModified: string | null
}

export type FeedRead =
  | { status: 'not-modified' }
  | { status: 'ok'; validators: FeedValidators; chunks: AsyncIterable<Buffer> }

export interface FeedLimits {
  maxBytes: number
  timeoutMs: number
}

const GZIP_MAGIC = [0x1f, 0x8b]

function tooBig(limit: number): FeedProblem {
  return new FeedProblem('too-big', `the feed is larger than ${limit} bytes (CATALOGUE_FEED_MAX_BYTES); nothing of it was used`)
}

/** At most `limit` bytes of `source`; past it, a FeedProblem (and the source is dropped). */
async function* limited(source: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Buffer> {
  let bytes = 0
  for await (const chunk of source) {
    bytes += chunk.length
    if (bytes > limit) throw tooBig(limit)
    yield chunk
  }
}

/** The body as it is, or gunzip'd when it begins with gzip's magic bytes; at most `limit` bytes either way. */
async function* decoded(source: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Buffer> {
  const raw = limited(source, limit)
  const first = await raw.next()
  if (first.done) return
  const head = first.value
  async function* whole(): AsyncGenerator<Buffer> {
    yield head
    yield* raw
  }
  if (head.length < 2 || head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) {
    yield* whole()
    return
  }
  const gunzip = createGunzip()
  // Errors of either side end both: a cut-short body, a timeout, damaged gzip data.
  pipeline(Readable.from(whole()), gunzip, () => {})
  try {
    yield* limited(gunzip as AsyncIterable<Buffer>, limit)
  } catch (error) {
    if (error instanceof FeedProblem) throw error
    if ((error as { code?: string }).code?.startsWith('Z_')) throw new FeedProblem('malformed', 'the gzip data is damaged or cut short')
    throw error
  } finally {
    gunzip.destroy()
  }
}

/** An abort of the read (its deadline) as the problem it is; other errors as they are. */
async function* timed(source: AsyncIterable<Buffer>, signal: AbortSignal, timeoutMs: number): AsyncGenerator<Buffer> {
  try {
    yield* source
  } catch (error) {
    if (signal.aborted) throw new FeedProblem('timeout', `the feed did not finish within ${Math.round(timeoutMs / 1000)} s (CATALOGUE_FEED_TIMEOUT)`)
    if (error instanceof FeedProblem) throw error
    throw new FeedProblem('unreachable', `the feed's answer broke off (${(error as { code?: string }).code ?? (error as Error).message})`)
  }
}

/**
 * Opens a feed: 'not-modified' when it has not changed since `validators` (HTTP 304, or a file
 * with the same size and time), else its body as chunks. The whole read — headers and body — is
 * bounded by `limits.timeoutMs`.
 */
export async function openFeed(feed: CatalogueFeed, validators: FeedValidators, limits: FeedLimits): Promise<FeedRead> {
  const url = new URL(feed.url)
  if (url.protocol === 'file:') {
    const file = fileURLToPath(url)
    let stat: fs.Stats
    try {
      stat = await fs.promises.stat(file)
    } catch (error) {
      throw new FeedProblem('unreachable', `the file cannot be read (${(error as { code?: string }).code ?? 'error'})`)
    }
    if (!stat.isFile()) throw new FeedProblem('unreachable', 'the path is not a file')
    const etag = `W/"${stat.size}-${Math.trunc(stat.mtimeMs)}"`
    if (validators.etag === etag) return { status: 'not-modified' }
    if (stat.size > limits.maxBytes) throw tooBig(limits.maxBytes)
    const signal = AbortSignal.timeout(limits.timeoutMs)
    const stream = fs.createReadStream(file, { signal })
    return { status: 'ok', validators: { etag, lastModified: stat.mtime.toUTCString() }, chunks: decoded(timed(stream, signal, limits.timeoutMs), limits.maxBytes) }
  }
  const signal = AbortSignal.timeout(limits.timeoutMs)
  const headers: Record<string, string> = { accept: feed.format === 'homebrew' ? 'application/json' : 'application/xml, application/gzip;q=0.9, */*;q=0.1', 'user-agent': 'Softshelf catalogue feeds' }
  if (validators.etag) headers['if-none-match'] = validators.etag
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified
  let response: Awaited<ReturnType<typeof request>>
  try {
    response = await request(url, { method: 'GET', headers, signal, headersTimeout: limits.timeoutMs, bodyTimeout: limits.timeoutMs })
  } catch (error) {
    if (signal.aborted) throw new FeedProblem('timeout', `the feed did not answer within ${Math.round(limits.timeoutMs / 1000)} s (CATALOGUE_FEED_TIMEOUT)`)
    const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code
    throw new FeedProblem('unreachable', `the feed cannot be reached (${code ?? (error as Error).message})`)
  }
  if (response.statusCode === 304) {
    await response.body.dump().catch(() => {})
    return { status: 'not-modified' }
  }
  if (response.statusCode < 200 || response.statusCode > 299) {
    await response.body.dump().catch(() => {})
    const location = response.statusCode >= 300 && response.statusCode < 400 ? ' (redirects are not followed: configure the address it names)' : ''
    throw new FeedProblem('status', `the feed answered HTTP ${response.statusCode}${location}`)
  }
  const length = Number(response.headers['content-length'])
  if (Number.isFinite(length) && length > limits.maxBytes) {
    response.body.destroy()
    throw tooBig(limits.maxBytes)
  }
  const header = (name: string) => {
    const value = response.headers[name]
    return typeof value === 'string' && value.length <= 500 ? value : null
  }
  return {
    status: 'ok',
    validators: { etag: header('etag'), lastModified: header('last-modified') },
    chunks: decoded(timed(response.body as AsyncIterable<Buffer>, signal, limits.timeoutMs), limits.maxBytes),
  }
}
