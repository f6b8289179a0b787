import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { writeRefusal } from './refusal.ts'
import { serviceCode, type Service } from './service-codes.ts'

// Shutdown as a client and a load balancer expect it ("Shutdown"; decided in
// docs/architecture/runtime.md). Left to themselves, Fastify answered every request still arriving with
// its bare 503 body (`return503OnClosing`: no code, no request id), and Node's server.close()
// destroyed the idle keep-alive connections: a socket destroyed with request bytes unread, or met
// by bytes after it, is answered by the kernel with a reset, which the client sees as ECONNRESET
// in the middle of a request it cannot know whether to retry. Here, from the moment the service
// begins closing (Fastify's preClose, before the listener stops):
//   1. a new request — on a connection kept alive, or one opened before the listener stopped — is
//      answered 503 `<PREFIX>_SHUTTING_DOWN` in the service's error shape, with Retry-After and
//      Connection: close, before Fastify sees it (a browser asking for a page gets a page);
//   2. answers in flight complete normally and carry Connection: close; one whose headers had
//      already gone out ends its connection once it is complete;
//   3. idle keep-alive connections are closed with a FIN, not destroyed, and so is every connection
//      Node closes after an answer with Connection: close. The service goes on reading until the
//      client closes its side too (every HTTP client does at once), so nothing it sent is left
//      unread for the kernel to reset. A request that crossed the FIN on the wire reaches no
//      handler and gets no answer: its client saw the connection close before any byte of an
//      answer, the case HTTP clients and proxies retry on another connection;
//   4. the listener stays open, every request on it refused as in 1, until no connection has
//      arrived and no answer ended for DRAIN_QUIET_MS (at most DRAIN_MAX_MS). Closing a listening
//      socket makes the kernel reset every connection it had already accepted for us and Node had
//      not yet taken from the queue — a client whose answer just said Connection: close opens its
//      next connection at once, and would meet that reset with its request written. Left open,
//      those connections are taken and answered 503; only connections that arrive after the
//      listener closed are refused (ECONNREFUSED: nothing was sent, any client retries).

/** What a refused caller is told to wait: a restarted process answers again in about 2 s (docs/BENCHMARKS.md). */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 5

/** How long a connection closed on our side waits for the client's FIN before it is destroyed. */
export const LINGER_MS = 2_000

/** The listener closes once no connection has arrived and no answer ended for this long… */
export const DRAIN_QUIET_MS = 100
/** …or this long after the service began closing, whatever its callers do. */
export const DRAIN_MAX_MS = 2_000

export interface ShutdownOptions {
  /** The error code's prefix: BFF, API or AUTHCORE. */
  prefix: Service
  /** The request id a refused request gets (the service's own rule). */
  requestId: (request: IncomingMessage) => string
  /** Headers every answer of the service carries (the BFF's security headers). */
  headers?: Record<string, string>
  /** The HTML a browser asking for a page gets instead of JSON (the BFF's, in the visitor's language). */
  page?: (request: IncomingMessage) => string
  /** The drain's bounds (tests shorten them). */
  drain?: { quietMs: number; maxMs: number }
}

const nodeCloseIdleConnections = http.Server.prototype.closeIdleConnections

/**
 * The shutdown, registered on a Fastify app before it listens, after the load shedding where there
 * is one (so a request arriving during the shutdown is refused for that reason, not shed).
 */
export const shutdown = fp<ShutdownOptions>(async (app, options) => {
  const server = app.server
  const sockets = new Set<Socket>()
  const inFlight = new Set<ServerResponse>()
  const lingering = new WeakSet<Socket>()
  let closing = false
  let refused = 0
  let crossed = 0
  /** When a connection last arrived or an answer last ended (performance.now()). */
  let lastActivity = 0
  const { quietMs, maxMs } = options.drain ?? { quietMs: DRAIN_QUIET_MS, maxMs: DRAIN_MAX_MS }

  const closeGently = (socket: Socket): void => {
    if (socket.destroyed || lingering.has(socket)) return
    lingering.add(socket)
    // FIN once what is written has gone out; reading goes on (Node's HTTP parser discards it).
    if (!socket.writableEnded) socket.end()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once('close', () => clearTimeout(timer))
  }

  /** Node closes a connection after an answer with Connection: close by destroySoon(): gently, now. */
  const closeGentlyAfterAnswers = (socket: Socket): void => {
    socket.destroySoon = () => closeGently(socket)
  }

  /**
   * The idle connections (no request arriving, no answer being sent), as Node itself judges them in
   * closeIdleConnections() — which destroys each — closed gently instead. Node's list is private;
   * this asks it by lending each socket a `destroy` that only collects, for the length of the call.
   */
  const closeIdle = (): number => {
    const idle: Socket[] = []
    for (const socket of sockets) {
      Object.defineProperty(socket, 'destroy', { value: () => idle.push(socket), configurable: true, writable: true })
    }
    try {
      nodeCloseIdleConnections.call(server)
    } finally {
      // Back to net.Socket's own: nothing else gives a server's socket a destroy of its own.
      for (const socket of sockets) Reflect.deleteProperty(socket, 'destroy')
    }
    for (const socket of idle) closeGently(socket)
    return idle.length
  }
  // Node's server.close() calls it as the listener stops (Fastify calls close() after preClose).
  server.closeIdleConnections = () => void closeIdle()

  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    if (closing) {
      lastActivity = performance.now()
      closeGentlyAfterAnswers(socket)
    }
  })

  const refuse = (request: IncomingMessage, response: ServerResponse): void => {
    if (request.socket.writableEnded) {
      // It crossed our FIN: nothing can reach the client, which saw the close before any answer.
      crossed++
      request.resume()
      return
    }
    refused++
    writeRefusal(request, response, {
      code: serviceCode(options.prefix, 'SHUTTING_DOWN'),
      message: `The service is restarting. Please try again in ${SHUTDOWN_RETRY_AFTER_SECONDS} seconds.`,
      retryAfterSeconds: SHUTDOWN_RETRY_AFTER_SECONDS,
      requestId: options.requestId(request),
      headers: options.headers,
      page: options.page,
      close: true,
    })
  }

  const listeners = server.listeners('request') as RequestListener[]
  server.removeAllListeners('request')
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (closing) return refuse(request, response)
    inFlight.add(response)
    // One listener for every answer, no closure per request (what each request pays).
    response.on('close', answerClosed)
    for (const listener of listeners) listener.call(server, request, response)
  })
  function answerClosed(this: ServerResponse): void {
    inFlight.delete(this)
    // Its connection may be idle now: an answer whose headers went out before the shutdown.
    if (closing) {
      lastActivity = performance.now()
      closeIdle()
    }
  }

  /**
   * Calls `done` (Fastify then closes the listener) once the service has been quiet for quietMs or
   * closing for maxMs. Each look is a setImmediate, which runs after a poll phase of the event
   * loop: every connection the kernel had queued by then has been accepted and seen above.
   */
  const drain = (done: () => void): void => {
    const began = performance.now()
    const deadline = began + maxMs
    const look = (): void => {
      setImmediate(() => {
        const now = performance.now()
        const quietFor = now - lastActivity
        if (quietFor >= quietMs || now >= deadline) {
          drainedMs = Math.round(now - began)
          return done()
        }
        setTimeout(look, Math.min(quietMs - quietFor, deadline - now))
      })
    }
    look()
  }

  let started = 0
  let drainedMs = 0
  let listened = false
  app.addHook('preClose', (done) => {
    closing = true
    started = Date.now()
    lastActivity = performance.now()
    listened = server.listening
    for (const response of inFlight) {
      if (!response.headersSent) response.setHeader('connection', 'close')
    }
    for (const socket of sockets) closeGentlyAfterAnswers(socket)
    const idle = closeIdle()
    // Only a service that listens has anything to say (tests close apps they only inject into).
    if (!listened) return done()
    app.log.info({ event: 'shutdown', inFlight: inFlight.size, idleClosed: idle }, 'closing: answers in flight finish with Connection: close, idle connections are closed, new requests get 503')
    drain(done)
  })
  // After the listener stopped and its last connection closed.
  app.addHook('onClose', (_instance, done) => {
    if (listened) app.log.info({ event: 'shutdown', refused, crossed, drainedMs, tookMs: Date.now() - started }, 'closed')
    done()
  })
}, { name: 'shutdown', fastify: '5.x' })

/**
 * A planned stop (SIGTERM). A load balancer keeps sending to an instance until its
 * health check has failed — HAProxy, `fall` checks `fastinter` apart after the next `inter` — and
 * every request it sends to a service already draining is refused with 503. So first every
 * service's /readyz fails while all of them go on serving normally for `readinessDelayMs`
 * (SHUTDOWN_READINESS_DELAY_MS, longer than the balancer takes to see it), and only then does
 * each close — `apps` in the order given, each once the one before has finished (the shutdown plugin
 * drains it). `wait` is the delay's timer; tests hand in their own.
 */
export async function stopServices(
  apps: FastifyInstance[],
  options: { readinessDelayMs: number; wait?: (ms: number) => Promise<void> },
): Promise<void> {
  for (const app of apps) app.readiness?.stop()
  if (options.readinessDelayMs > 0 && apps.some((app) => app.readiness)) {
    apps[0]?.log.info({ event: 'shutdown', readinessDelayMs: options.readinessDelayMs }, 'stopping: /readyz fails, requests are still served until the load balancer has seen it')
    await (options.wait ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))))(options.readinessDelayMs)
  }
  for (const app of apps) await app.close()
}
