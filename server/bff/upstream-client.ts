import { Pool, errors as undiciErrors } from 'undici'
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import type { ReachabilityListener } from '../db/reachability.ts'
import { BffUpstreamBadResponse, BffUpstreamTimeout, BffUpstreamUnavailable } from './errors.ts'

export interface UpstreamTimeouts {
  connectTimeoutMs: number
  headersTimeoutMs: number
  bodyTimeoutMs: number
  /** The wait for an answer once a streamed request body has all gone; STREAMED_BODY_ANSWER_MS by default. */
  streamedAnswerMs?: number
}

export interface UpstreamRequest {
  method: string
  /** Path and query on the upstream, always starting with "/". */
  path: string
  headers?: Record<string, string>
  body?: Buffer | string | Readable | undefined
  signal?: AbortSignal
}

export interface UpstreamResponse {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

/** An answer whose body is read as it arrives: a download of any size passes with flat memory. */
export interface UpstreamStream {
  status: number
  headers: IncomingHttpHeaders
  body: Readable
}

/** How long the API may take to answer once a streamed request body has all gone (finishing an upload). */
export const STREAMED_BODY_ANSWER_MS = 120_000

/** Methods that change nothing: sent again once when a reused connection turns out closed. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Largest upstream body the BFF buffers; the API's JSON answers are far smaller. */
const MAX_BODY_BYTES = 8 * 1024 * 1024

/**
 * A keep-alive pool to one upstream service. Every failure mode becomes one of three errors of our
 * catalogue — unavailable (503), timeout (504), bad response (502) — with the original as `cause`,
 * so no caller can hang or leak an upstream's internals.
 */
export class UpstreamClient {
  private readonly pool: Pool

  /**
   * @param reachability told of every answer that came and every request that could not reach
   * the upstream (the BFF's outage log: an outage of the API is logged once)
   */
  constructor(
    readonly origin: string,
    private readonly timeouts: UpstreamTimeouts,
    connections = 64,
    private readonly reachability?: ReachabilityListener,
  ) {
    this.pool = new Pool(origin, {
      connections,
      pipelining: 1,
      connect: { timeout: timeouts.connectTimeoutMs },
      headersTimeout: timeouts.headersTimeoutMs,
      bodyTimeout: timeouts.bodyTimeoutMs,
      keepAliveTimeout: 10_000,
    })
  }

  async request(req: UpstreamRequest): Promise<UpstreamResponse> {
    const response = await this.stream(req)
    return { ...response, body: await readBody(response.body) }
  }

  /**
   * The answer with its body still arriving. The request body may be a stream too (an upload
   * passes through as it comes). Failures before the answer's head map like request(); a failure
   * while the body streams ends the stream (the reply is cut, as a proxy's must be).
   */
  async stream(req: UpstreamRequest): Promise<UpstreamStream> {
    // undici's wait for the answer's head starts once a request body has all been sent, however
    // long that took (a tus PATCH on a slow line). After a streamed body the API may need longer
    // than for a call: finishing an upload commits its bytes (a copy on S3).
    const streamed = req.body !== undefined && typeof req.body === 'object' && !Buffer.isBuffer(req.body)
    try {
      const response = await this.sendRetryingSafe(req, streamed)
      this.reachability?.reached()
      return response
    } catch (error) {
      const mapped = mapUpstreamError(error)
      if (mapped instanceof BffUpstreamUnavailable && !req.signal?.aborted) this.reachability?.unreachable(String((error as { code?: unknown }).code ?? (error as Error).name))
      throw mapped
    }
  }

  private async sendRetryingSafe(req: UpstreamRequest, streamed: boolean): Promise<UpstreamStream> {
    try {
      return await this.attempt(req, streamed)
    } catch (error) {
      // A keep-alive socket the upstream closed (a restart, its idle timeout) as this request went
      // out on it: a safe request without a body is sent once more, on a fresh connection. A write
      // is never repeated (it may have been applied); it answers 502 as before.
      if (SAFE_METHODS.has(req.method) && req.body === undefined && !req.signal?.aborted && (error as { code?: string }).code === 'UND_ERR_SOCKET') {
        return await this.attempt(req, streamed)
      }
      throw error
    }
  }

  private async attempt(req: UpstreamRequest, streamed: boolean): Promise<UpstreamStream> {
    const response = await this.pool.request({
      method: req.method as 'GET',
      path: req.path,
      headers: req.headers ?? {},
      body: req.body ?? null,
      signal: req.signal ?? null,
      ...(streamed ? { headersTimeout: this.timeouts.streamedAnswerMs ?? Math.max(this.timeouts.headersTimeoutMs, STREAMED_BODY_ANSWER_MS) } : {}),
    })
    return { status: response.statusCode, headers: response.headers, body: response.body }
  }

  close(): Promise<void> {
    return this.pool.close()
  }
}

/**
 * A whole answer body, for the API's JSON: past MAX_BODY_BYTES it is not one (a 502). Failures
 * (a stalled or cut body) map like every upstream failure.
 */
export async function readBody(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        body.destroy()
        throw new undiciErrors.ResponseExceededMaxSizeError()
      }
      chunks.push(chunk)
    }
  } catch (error) {
    throw mapUpstreamError(error)
  }
  return Buffer.concat(chunks)
}

/** Whether an answer is the API's JSON, read whole before it is relayed (a failure is then a clean error, not a cut). */
export function isJsonAnswer(headers: IncomingHttpHeaders): boolean {
  const type = String(headers['content-type'] ?? '')
  const length = Number(headers['content-length'] ?? 0)
  return /^application\/(?:[\w.+-]+\+)?json\b/.test(type) && !(length > MAX_BODY_BYTES)
}

/** An upstream 5xx as our catalogue's error: 503 and 504 keep their meaning, anything else is 502. */
export function upstreamStatusError(status: number): Error & { statusCode: number; code: string; retryAfter?: number } {
  return status === 503 ? new BffUpstreamUnavailable() : status === 504 ? new BffUpstreamTimeout() : new BffUpstreamBadResponse()
}

export function mapUpstreamError(error: unknown): Error {
  const code = (error as { code?: string } | null)?.code
  let mapped: Error
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    mapped = new BffUpstreamTimeout()
  } else if (
    error instanceof undiciErrors.ConnectTimeoutError ||
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EHOSTUNREACH' ||
    code === 'EAI_AGAIN' ||
    error instanceof undiciErrors.ClientDestroyedError ||
    error instanceof undiciErrors.ClientClosedError
  ) {
    mapped = new BffUpstreamUnavailable()
  } else {
    mapped = new BffUpstreamBadResponse()
  }
  mapped.cause = error
  return mapped
}
