import type { FastifyContextConfig, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client'
import type { Database } from '../db/database.ts'
import { bearerMatches } from '../operator-token.ts'
import { errorBody } from './errors.ts'
import { droppedLogLines } from './logger.ts'
import { serviceCode, type Service } from './service-codes.ts'

// Prometheus metrics ("Observability"). Each service keeps its own registry, labelled
// with its name, so the three services of one process (`npm start`) never mix their counts; the
// process's own figures (event-loop lag, memory, CPU, handles) are read once per process and
// appended to every service's answer. GET /metrics answers only with the operator's token.

export type ServiceName = 'bff' | 'api' | 'authcore'

/** The methods counted by name; any other is counted as OTHER, so a client cannot grow the series. */
const KNOWN_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
const METHOD_INDEX: ReadonlyMap<string, number> = new Map(KNOWN_METHODS.map((method, index) => [method, index]))
const METHOD_LABELS = [...KNOWN_METHODS, 'OTHER'] as const

/** Seconds; from a cached answer to a slow upstream's. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The answers of one method, route pattern and status. */
interface AnswerSeries {
  readonly labels: { readonly method: string; readonly route: string; readonly status: string }
  count: number
  /** Seconds, all answers together. */
  sum: number
  /** Answers per duration bucket, each counted once (not cumulative); the last is those above the highest bound. */
  readonly buckets: number[]
}

/**
 * Every answer of a service by method, route pattern and status, with how long it took: counted
 * as each answer is sent and read by the two request metrics at a scrape. prom-client's counter and
 * histogram built a string of the labels to find an answer's series, validated the labels and
 * made a closure, twice an answer (~1 µs of /api/version's, more in place); here the
 * route's pattern (the same string each time) and a number for status and method find it.
 */
class AnswerTally {
  readonly #byRoute = new Map<string, Map<number, AnswerSeries>>()

  record(method: string, route: string, status: number, seconds: number): void {
    let byKind = this.#byRoute.get(route)
    if (!byKind) {
      byKind = new Map()
      this.#byRoute.set(route, byKind)
    }
    const methodIndex = METHOD_INDEX.get(method) ?? KNOWN_METHODS.length
    const kind = status * METHOD_LABELS.length + methodIndex
    let series = byKind.get(kind)
    if (!series) {
      series = { labels: { method: METHOD_LABELS[methodIndex] ?? 'OTHER', route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0) }
      byKind.set(kind, series)
    }
    series.count++
    series.sum += seconds
    let bucket = 0
    while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++
    series.buckets[bucket] = (series.buckets[bucket] ?? 0) + 1
  }

  *series(): Iterable<AnswerSeries> {
    for (const byKind of this.#byRoute.values()) yield* byKind.values()
  }
}

/** One line of a metric as prom-client's registry formats it. */
interface ExportedValue {
  metricName: string
  labels: Record<string, string | number>
  value: number
}

/**
 * `softshelf_http_request_duration_seconds` as prom-client shows a histogram (cumulative buckets
 * with `le`, then the sum and the count of each series), read from the tally at a scrape.
 */
class DurationHistogram {
  readonly name = 'softshelf_http_request_duration_seconds'
  readonly help = 'Time from the request to its answer, by method, route pattern and status.'
  readonly type = 'histogram'
  readonly aggregator = 'sum'

  constructor(private readonly answers: AnswerTally) {}

  get(): { name: string; help: string; type: string; aggregator: string; values: ExportedValue[] } {
    const values: ExportedValue[] = []
    const bucketName = `${this.name}_bucket`
    for (const series of this.answers.series()) {
      let below = 0
      DURATION_BUCKETS.forEach((bound, index) => {
        below += series.buckets[index] ?? 0
        values.push({ metricName: bucketName, labels: { le: bound, ...series.labels }, value: below })
      })
      values.push({ metricName: bucketName, labels: { le: '+Inf', ...series.labels }, value: series.count })
      values.push({ metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum })
      values.push({ metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  /** prom-client's registry resets its metrics with it (tests); the tally is the service's own. */
  reset(): void {}
}

let processRegistry: Registry | undefined

/** The process's figures, registered once however many services the process runs. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry, prefix: 'softshelf_', eventLoopMonitoringPrecision: 10 })
    new Counter({
      name: 'softshelf_log_lines_dropped_total',
      help: 'Log lines dropped because the standard output was not read as fast as they came.',
      registers: [processRegistry],
      collect() {
        this.reset()
        this.inc(droppedLogLines.count)
      },
    })
  }
  return processRegistry
}

export class ServiceMetrics {
  readonly registry = new Registry()
  /** Every answer, counted as it is sent; the requests counter and the duration histogram show it. */
  readonly answers = new AnswerTally()
  readonly shed: Counter<'reason'>
  readonly rateLimited: Counter<'route'>
  readonly signIns: Counter<'outcome'>
  readonly loginBlocks: Counter
  /** The BFF's page cache: anonymous pages served from it, after waiting for another request's render, or rendered. */
  readonly pageCache: Counter<'outcome'>

  constructor(service: ServiceName, db?: Database) {
    const registers = [this.registry]
    this.registry.setDefaultLabels({ service })
    const answers = this.answers
    new Counter({
      name: 'softshelf_http_requests_total',
      help: 'Requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect() {
        this.reset()
        for (const series of answers.series()) this.inc(series.labels, series.count)
      },
    })
    this.registry.registerMetric(new DurationHistogram(answers) as unknown as Metric)
    this.shed = new Counter({
      name: 'softshelf_http_shed_total',
      help: 'Requests refused with 503 because the service was overloaded, by reason (event-loop, in-flight).',
      labelNames: ['reason'],
      registers,
    })
    this.rateLimited = new Counter({
      name: 'softshelf_rate_limited_total',
      help: 'Requests refused with 429 by a per-IP rate limit, by route pattern.',
      labelNames: ['route'],
      registers,
    })
    this.signIns = new Counter({
      name: 'softshelf_sign_ins_total',
      help: 'Email-and-password sign-ins, by outcome (success, wrong-credentials, blocked, …).',
      labelNames: ['outcome'],
      registers,
    })
    this.loginBlocks = new Counter({
      name: 'softshelf_login_blocks_total',
      help: 'Emails blocked after too many failed sign-ins.',
      registers,
    })
    this.pageCache = new Counter({
      name: 'softshelf_page_cache_total',
      help: "Anonymous page answers by how they were made: hit (from the page cache), waited (after another request's render of the same page), rendered.",
      labelNames: ['outcome'],
      registers,
    })
    if (db?.poolStats) {
      const stats = db.poolStats.bind(db)
      new Gauge({
        name: 'softshelf_db_pool_connections',
        help: 'PostgreSQL pool connections, by state (total, idle, waiting callers).',
        labelNames: ['state'],
        registers,
        collect() {
          const now = stats()
          this.set({ state: 'total' }, now.total)
          this.set({ state: 'idle' }, now.idle)
          this.set({ state: 'waiting' }, now.waiting)
        },
      })
    }
  }

  /** The Prometheus text of this service, then the process's. */
  async text(): Promise<string> {
    return `${await this.registry.metrics()}\n${await processMetrics().metrics()}`
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ServiceMetrics
  }
}

export interface MetricsOptions {
  service: ServiceName
  /** The error code's prefix: BFF, API. */
  prefix: Service
  /** Without it /metrics answers 401 to everyone. */
  operatorToken: string | undefined
  db?: Database
  /** The /metrics route's config (the auth core marks it `open`: no API key, the operator token instead). */
  routeConfig?: FastifyContextConfig
}

/** The route pattern a request matched; one label for every unmatched URL, so a scan cannot grow the series. */
export function routeLabel(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched'
}

/** Counts every answer and serves GET /metrics behind the operator token; the metrics are `app.metrics`. */
export const metricsPlugin = fp<MetricsOptions>(async (app, options) => {
  const metrics = new ServiceMetrics(options.service, options.db)
  app.decorate('metrics', metrics)

  app.addHook('onResponse', (request, reply, done) => {
    metrics.answers.record(request.method, routeLabel(request), reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  app.get('/metrics', { config: options.routeConfig ?? {} }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    if (!bearerMatches(options.operatorToken, request.headers.authorization)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send(errorBody(401, serviceCode(options.prefix, 'UNAUTHORIZED'), 'The metrics are for the operator: send the operator token as "Authorization: Bearer <token>".', request.id))
    }
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics.text())
  })
}, { name: 'metrics', fastify: '5.x' })
