import { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import pino from 'pino'
import { redactUrl, scrubReport } from '../../shared/redaction.ts'
import type { Config } from '../config.ts'

// The secret query parameters live in shared/redaction.ts, which error reports use too.
export { redactUrl }

/** What the standard output may hold while it is slower than the lines come (a stuck pipe): past it, lines are dropped, not the service stopped. */
export const LOG_BUFFER_MAX_BYTES = 8 * 1024 * 1024

let standardOutput: pino.DestinationStream | undefined

/**
 * The process's one writer of log lines to the standard output, shared by the services of the
 * process (role `all` runs three), so their lines never interleave. Asynchronous: pino's
 * default writes each line with a write(2) of its own before the request goes on (logging as a whole
 * was about a quarter of a cached page's time). Here lines written while a write is under way go out
 * together with the next one, and whatever is left is written synchronously when the process exits
 * (pino's exit hook; a SIGKILL can lose the last few milliseconds of lines).
 */
export function logDestination(): pino.DestinationStream {
  if (!standardOutput) {
    const destination = pino.destination({ dest: 1, sync: false, maxLength: LOG_BUFFER_MAX_BYTES })
    droppedLogLines.watch(destination)
    standardOutput = destination
  }
  return standardOutput
}

/** How often at most standard error says that log lines are being dropped. */
export const DROPPED_LINES_WARNING_MS = 60_000

/**
 * Log lines dropped because the standard output was not read (LOG_BUFFER_MAX_BYTES unwritten):
 * counted for the metric `softshelf_log_lines_dropped_total`, and said on the standard error — the
 * one place still likely to be read — once when it begins and at most once a minute after.
 */
export class DroppedLogLines {
  count = 0
  #lastWarning = Number.NEGATIVE_INFINITY

  constructor(
    private readonly warn: (line: string) => void = (line) => void process.stderr.write(line),
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts what `destination` (a sonic-boom, as pino.destination makes) drops. */
  watch(destination: { on(event: 'drop', listener: (data: string | Buffer) => void): unknown }): void {
    destination.on('drop', (data) => {
      const text = typeof data === 'string' ? data : data.toString('utf8')
      let lines = 0
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++
      this.count += Math.max(lines, 1)
      const now = this.now()
      if (now - this.#lastWarning < DROPPED_LINES_WARNING_MS) return
      this.#lastWarning = now
      const message = `log lines are being dropped: the standard output is not read as fast as they come (${this.count} so far; metric softshelf_log_lines_dropped_total)`
      this.warn(`${JSON.stringify({ level: 40, time: new Date(now).toISOString(), event: 'log-lines-dropped', dropped: this.count, msg: message })}\n`)
    })
  }
}

/** This process's count (its standard output). */
export const droppedLogLines = new DroppedLogLines()

let timeMs = Number.NaN
let timeField = ''

/** The line's time, ISO 8601 in UTC; made once per millisecond, however many lines share it. */
export function logTime(now = Date.now()): string {
  if (now !== timeMs) {
    timeMs = now
    timeField = `,"time":"${new Date(now).toISOString()}"`
  }
  return timeField
}

/** Log lines are JSON objects, so user input cannot forge a line; secrets are redacted. */
function loggerOptions(
  config: Pick<Config, 'logLevel'>,
  service: string,
  stream?: NodeJS.WritableStream,
): FastifyServerOptions['logger'] {
  return {
    stream: stream ?? logDestination(),
    level: config.logLevel,
    base: { service },
    timestamp: () => logTime(),
    redact: {
      paths: [
        'req.headers.cookie',
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'res.headers["set-cookie"]',
        'headers.cookie',
        'headers.authorization',
        '*.password',
        '*.newPassword',
        '*.token',
        '*.accessToken',
        '*.refreshToken',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; hostname?: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), host: request.hostname, ip: request.ip }
      },
      // An error as pino writes it (type, message, stack, its own fields and causes), with every text
      // and field through the error reports' redaction: an SMTP refusal names the recipient in its
      // message and fields, which the path redaction above (one level, by name) does not see.
      err(error: unknown) {
        return scrubReport(pino.stdSerializers.err(error as Error))
      },
    },
  }
}

/**
 * How a service logs: its lines (above), one access line per request (below), and each request's
 * logger made only when the request writes a line. Spread into the Fastify options.
 */
export function serviceLogging(
  config: Pick<Config, 'logLevel'>,
  service: string,
  stream?: NodeJS.WritableStream,
): Pick<FastifyServerOptions, 'logger' | 'logController' | 'childLoggerFactory'> {
  return { logger: loggerOptions(config, service, stream), logController: new AccessLogController(), childLoggerFactory: requestLoggerFactory }
}

type LogArguments = Parameters<pino.LogFn>

/** pino's level numbers (`pino.levels.values`). */
const LEVELS = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10 } as const

/**
 * A request's logger: pino's child with the request id and the route's level, made when the
 * request first writes a line at that level. Fastify makes that child for every request; with the
 * redaction's wildcard paths every child stringifies its bindings through the redaction and sets
 * up its level functions, and most requests (a polled route at warn, a cached page, the access line
 * at info of a route at warn) never write a line: making it ~15 µs of the ~65 an /api/version
 * answer cost in place (docs/BENCHMARKS.md). The lines are the child's, so they are the
 * same as before.
 */
class RequestLogger {
  readonly #parent: FastifyBaseLogger
  readonly #bindings: pino.Bindings
  readonly #options: pino.ChildLoggerOptions
  #child: FastifyBaseLogger | undefined
  /** The level's number: a line below it is not written (pino's scale; silent is Infinity). */
  #threshold: number

  constructor(parent: FastifyBaseLogger, bindings: pino.Bindings, options: pino.ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
    this.#threshold = levelValue(parent, options.level ?? parent.level)
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level
  }

  set level(level: string) {
    // pino checks the name (an unknown level throws), so the child is made to take it.
    this.#logger().level = level
    this.#threshold = levelValue(this.#parent, level)
  }

  isLevelEnabled(level: string): boolean {
    const value = (this.#parent as pino.Logger).levels.values[level]
    return value !== undefined && value >= this.#threshold
  }

  fatal(...args: LogArguments): void {
    if (this.#threshold <= LEVELS.fatal) this.#logger().fatal(...args)
  }

  error(...args: LogArguments): void {
    if (this.#threshold <= LEVELS.error) this.#logger().error(...args)
  }

  warn(...args: LogArguments): void {
    if (this.#threshold <= LEVELS.warn) this.#logger().warn(...args)
  }

  info(...args: LogArguments): void {
    if (this.#threshold <= LEVELS.info) this.#logger().info(...args)
  }

  debug(...args: LogArguments): void {
    if (this.#threshold <= LEVELS.debug) this.#logger().debug(...args)
  }

  trace(...args: LogArguments): void {
    if (this.#threshold <= LEVELS.trace) this.#logger().trace(...args)
  }

  silent(): void {}

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options)
  }

  bindings(): pino.Bindings {
    return (this.#logger() as pino.Logger).bindings()
  }

  #logger(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options)
    return this.#child
  }
}

function levelValue(logger: FastifyBaseLogger, level: string): number {
  return (logger as pino.Logger).levels.values[level] ?? Number.POSITIVE_INFINITY
}

/** Fastify's childLoggerFactory: each request's logger, made at its first line (RequestLogger). */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => new RequestLogger(logger, bindings, options) as FastifyBaseLogger

/**
 * One line per request, when it has been answered: the request (method, URL with secrets
 * redacted, host, address), the status and the time taken — an access log's line. Fastify's default
 * writes a second line as each request arrives, which doubles the log and its cost (logging
 * was about a quarter of a cached page's time, docs/BENCHMARKS.md). A request that errs is still one line, at
 * error, with its error. Only a request whose body may take minutes (`longBody`: a resumable
 * upload's PATCH) is also logged as it arrives, so one under way shows before it ends.
 */
class AccessLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (request.routeOptions.config?.longBody && !this.isLogDisabled(request)) request.log.info({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}

/**
 * What machines ask on a timer: probes (/healthz, /readyz), scrapes (/metrics), the revocation
 * list and the role-change feed every API and BFF instance reads twice a second (decisions 009
 * and 028), and the version every open tab asks every few seconds to announce a deploy (/api/version), and the claims of the BFF's
 * notification mail worker every few seconds. An idle app writes nothing
 * (13,750 request lines in 19 minutes of a quiet app), so their requests are not logged at
 * info; a failure still is (a 5xx is an error line, and the poller says once when it starts failing).
 * The paths are the routes' own: the auth core's tenant prefixes are rewritten before routing.
 */
export const POLLED_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics', '/recipe/session/revoked', '/recipe/user/roles/changed', '/api/version', '/api/catalogue/version', '/internal/notification-mail/claim'])

/** Registers the rule above; call before the routes are added. At a level other than info, the level is left as chosen. */
export function quietPolledRoutes(app: FastifyInstance): void {
  if (app.log.level !== 'info') return
  app.addHook('onRoute', (route) => {
    if (POLLED_ROUTES.has(route.url) && !route.logLevel) route.logLevel = 'warn'
  })
}
