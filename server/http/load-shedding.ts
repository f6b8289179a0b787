import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { writeRefusal } from './refusal.ts'
import { serviceCode, type Service } from './service-codes.ts'

// Load shedding (SECURITY.md "overload sheds with 503 + Retry-After instead of queueing
// forever"). Node's own monitor measures the event loop's delay; the refusal itself is written
// in Node's own 'request' listener, before Fastify routes, parses or runs a hook, so refusing costs
// almost nothing while the process is the busiest it gets. Two signals refuse a new request:
//   - the event loop lags past OVERLOAD_EVENT_LOOP_DELAY_MS (the CPU is saturated: rendering)
//     and OVERLOAD_PRESSURE_IN_FLIGHT requests are already being worked on: the CPU keeps that
//     many to do (refusing every request for the half second the lag is measured over left it
//     idle once those in hand were done: a third fewer pages served at 100 connections,
//     docs/BENCHMARKS.md), and no more, so the wait of those admitted stays short;
//   - OVERLOAD_MAX_IN_FLIGHT requests are already waiting for their answers' headers (an upstream
//     is slow: every further request would only wait longer).
// Probes (/healthz, /readyz) and /metrics are always answered, so a load balancer sees a live
// process that says it is busy rather than a dead one.

declare module 'fastify' {
  interface FastifyInstance {
    /** The load shedding's count of requests in flight; set by the load-shedding plugin. */
    loadShedding: LoadShedding
  }
  interface FastifyContextConfig {
    /** false: requests of this route never count as in flight (long transfers; see load-shedding.ts). */
    shed?: boolean
  }
}

export const OVERLOAD_RETRY_AFTER_SECONDS = 2

/** How long a connection that was refused is not read from: a client hammering on keep-alive waits its turn. */
export const REFUSED_READ_PAUSE_MS = 250

/** Paths answered whatever the load (an exact path, any query). */
const ALWAYS_ANSWERED = new Set(['/healthz', '/readyz', '/metrics'])

export type ShedReason = 'event-loop' | 'in-flight'

export interface LoadSheddingOptions {
  /** The error code's prefix: BFF or API. */
  prefix: Service
  /** Event-loop delay (ms, mean over the sample interval) past which new requests are refused; 0: never. */
  maxEventLoopDelayMs: number
  /** Requests waiting for their answer past which new ones are refused; 0: no cap. */
  maxInFlight: number
  /** While the event loop lags, new requests are refused only when this many are in flight already; 0: all of them. */
  pressureInFlight?: number
  /**
   * Whether the event loop lags past maxEventLoopDelayMs now; EventLoopDelay's measurement by
   * default. Tests set the signal instead of burning CPU to make lag (on a busy machine a
   * request now and then got through between two measurements).
   */
  eventLoopLags?: () => boolean
  /** Another sign the CPU is behind, counted as the event loop lagging (the BFF's pages waiting for a turn). */
  alsoLagging?: () => boolean
  /** The request id a refused request gets (the service's own rule). */
  requestId: (request: IncomingMessage) => string
  /** Headers every answer of the service carries (the BFF's security headers). */
  headers?: Record<string, string>
  /**
   * Requests never refused, as "METHOD /path" (exact path, any query): calls another service makes
   * on its own inside a request it already let in, whose failure no one would see or retry.
   */
  alwaysAdmitted?: ReadonlySet<string>
  /**
   * The HTML a person's browser gets instead of the JSON body, when a page (GET or HEAD asking for
   * text/html) is refused; undefined: JSON. The BFF's says so in the visitor's language and
   * reloads once Retry-After has passed.
   */
  page?: (request: IncomingMessage) => string
  /** Told of each refusal (metrics). */
  onShed?: (reason: ShedReason) => void
  /**
   * The window (ms) the event loop's delay is averaged over; 500 by default: long enough that one
   * garbage collection or one slow render is not overload, short enough to shed within half a second.
   */
  sampleIntervalMs?: number
}

export interface LoadShedding {
  /** Requests counted as in flight now. */
  inFlight(): number
}

/** On a request's answer while the request counts as in flight. */
const counted = Symbol('counted as in flight')
type Counted = ServerResponse & { [counted]?: boolean }

function pathOf(url: string | undefined): string {
  const raw = url ?? '/'
  const query = raw.indexOf('?')
  return query === -1 ? raw : raw.slice(0, query)
}

/** The monitor's resolution (ms): how often it looks at the loop; a delay is what it waited past this. */
const DELAY_RESOLUTION_MS = 10

/**
 * The event loop's delay: the mean of Node's monitor over each sample interval, less its
 * resolution. Measured here rather than with @fastify/under-pressure, which measured the same way
 * and also ran a hook on every request and read the memory twice a second, none of which we used
 *.
 */
class EventLoopDelay {
  readonly #histogram = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS })
  readonly #timer: NodeJS.Timeout
  #ms = 0

  constructor(sampleIntervalMs: number) {
    this.#histogram.enable()
    this.#timer = setInterval(() => this.#sample(), Math.max(DELAY_RESOLUTION_MS, sampleIntervalMs))
    this.#timer.unref()
  }

  /** The delay over the last sample interval (ms); Infinity when the loop never came round in it. */
  get ms(): number {
    return this.#ms
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#histogram.disable()
  }

  #sample(): void {
    const mean = this.#histogram.mean / 1e6
    this.#ms = Number.isNaN(mean) ? Number.POSITIVE_INFINITY : Math.max(0, mean - DELAY_RESOLUTION_MS)
    this.#histogram.reset()
  }
}

/**
 * The shedding, registered on a Fastify app before it listens; `app.loadShedding` tells how many
 * requests are in flight (tests and metrics read it).
 */
export const loadShedding = fp<LoadSheddingOptions>(async (app, options) => {
  let measured = options.eventLoopLags
  if (!measured && options.maxEventLoopDelayMs > 0) {
    const delay = new EventLoopDelay(options.sampleIntervalMs ?? 500)
    app.addHook('onClose', (_instance, done) => {
      delay.stop()
      done()
    })
    measured = () => delay.ms > options.maxEventLoopDelayMs
  }
  const alsoLagging = options.alsoLagging
  const eventLoopLags = (): boolean => measured?.() === true || alsoLagging?.() === true
  let inFlight = 0
  const pressureInFlight = options.pressureInFlight ?? 0
  let lastWarning = 0
  let refusedSinceWarning = 0
  const server = app.server
  const listeners = server.listeners('request') as RequestListener[]
  server.removeAllListeners('request')

  const refuse = (request: IncomingMessage, response: ServerResponse, reason: ShedReason): void => {
    options.onShed?.(reason)
    refusedSinceWarning++
    const now = Date.now()
    if (now - lastWarning >= 1_000) {
      // One line a second at most: a flood of refusals must not become a flood of log lines.
      app.log.warn({ event: 'load-shed', reason, refused: refusedSinceWarning, inFlight }, 'overloaded: new requests are refused with 503')
      lastWarning = now
      refusedSinceWarning = 0
    }
    writeRefusal(request, response, {
      code: serviceCode(options.prefix, 'OVERLOADED'),
      message: `The service is busy right now. Please try again in ${OVERLOAD_RETRY_AFTER_SECONDS} seconds.`,
      retryAfterSeconds: OVERLOAD_RETRY_AFTER_SECONDS,
      requestId: options.requestId(request),
      headers: options.headers,
      page: options.page,
    })
    // The request's body (if any) is drained by Node; the connection stays usable. Reading from it
    // pauses a moment, so one client retrying at once on keep-alive does not crowd out the others.
    const socket = request.socket as typeof request.socket & { _handle?: { readStop?: () => void; readStart?: () => void } | null }
    const handle = socket._handle
    if (handle?.readStop && handle.readStart) {
      handle.readStop()
      setTimeout(() => {
        if (!socket.destroyed && socket._handle === handle) handle.readStart?.()
      }, REFUSED_READ_PAUSE_MS).unref()
    }
  }

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const path = pathOf(request.url)
    if (!ALWAYS_ANSWERED.has(path) && !options.alwaysAdmitted?.has(`${request.method} ${path}`)) {
      if (options.maxEventLoopDelayMs > 0 && inFlight >= pressureInFlight && eventLoopLags()) return refuse(request, response, 'event-loop')
      if (options.maxInFlight > 0 && inFlight >= options.maxInFlight) return refuse(request, response, 'in-flight')
    }
    inFlight++
    ;(response as Counted)[counted] = true
    // One listener for every answer, no closure per request (what each request pays).
    response.on('close', settleThis)
    for (const listener of listeners) listener.call(server, request, response)
  })

  /** The request stops counting (once): its answer's headers went out, or its connection closed. */
  const settle = (response: Counted): void => {
    if (!response[counted]) return
    response[counted] = false
    inFlight--
  }
  function settleThis(this: ServerResponse): void {
    settle(this)
  }

  // A request stops counting once its answer's headers go out (a long download does not hold a
  // place), and at once on routes whose bodies may take minutes (tus PATCH) or that say shed: false:
  // a hook of those routes only, so the others' requests do not read their route's options for it.
  const settleAtOnce: onRequestHookHandler = (_request, reply, done) => {
    settle(reply.raw)
    done()
  }
  app.addHook('onRoute', (route) => {
    if (!route.config?.longBody && route.config?.shed !== false) return
    route.onRequest = route.onRequest === undefined ? [settleAtOnce] : [...[route.onRequest].flat(), settleAtOnce]
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    settle(reply.raw)
    done(null, payload)
  })

  app.decorate('loadShedding', { inFlight: () => inFlight })
}, { name: 'load-shedding', fastify: '5.x' })
