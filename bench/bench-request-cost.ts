// `npx tsx bench/bench-request-cost.ts`: what each piece of the BFF's request
// handling costs. A bare Fastify 5 answering /api/version's JSON (as the peer bench's bare server),
// then the BFF's pieces added one at a time in the order buildBff adds them, each step in a process
// of its own on loopback: autocannon at BENCH_COST_CONNECTIONS (100) for BENCH_COST_DURATION s (5)
// after a 2 s warm-up, BENCH_COST_ROUNDS rounds (3) of every step (the median), and the server's CPU time per answer (user + system, /proc/<pid>/stat), the
// figure that does not depend on how much of the 2 cores the load generator took.
// `bench/bench-request-cost.ts serve <step> <port>` is one such server (what the table runs).
import { AsyncLocalStorage } from 'node:async_hooks'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import compress from '@fastify/compress'
import cookie from '@fastify/cookie'
import autocannon from 'autocannon'
import Fastify, { type FastifyInstance } from 'fastify'
import { IdleAsyncScope } from '../server/async-scope.ts'
import { BffNotFound, BffValidation } from '../server/bff/errors.ts'
import { rateLimitPlugin } from '../server/bff/plugins/rate-limit.ts'
import { securityHeaders, securityHeadersPlugin } from '../server/bff/plugins/security-headers.ts'
import { relayUpstream, safeApiPath } from '../server/bff/routes/api-proxy.ts'
import type { UpstreamResponse } from '../server/bff/upstream-client.ts'
import { bodyDeadline } from '../server/http/body-deadline.ts'
import { clientErrorHandler, frameworkErrorHandler, requestBasics } from '../server/http/errors.ts'
import { loadShedding } from '../server/http/load-shedding.ts'
import { quietPolledRoutes, serviceLogging } from '../server/http/logger.ts'
import { metricsPlugin } from '../server/http/metrics.ts'
import { newRequestId } from '../server/http/request-id.ts'
import { HTTP_SERVER_OPTIONS } from '../server/http/server-options.ts'
import { shutdown } from '../server/http/shutdown.ts'
import { storableText } from '../server/http/storable-text.ts'
import { fastifyTrustProxy } from '../server/http/trust-proxy.ts'
import { cpuUsOf, median } from './bench-instance.ts'
import { freePort } from '../scripts/throwaway-postgres.ts'

const here = fileURLToPath(import.meta.url)
const DURATION_S = Number(process.env.BENCH_COST_DURATION ?? 5)
const CONNECTIONS = Number(process.env.BENCH_COST_CONNECTIONS ?? 100)
const ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 3)
const BODY = Buffer.from('{"version":"1.0.716+0123456789ab"}')

/** Each step adds one piece to the ones before it. */
export const STEPS = [
  'bare Fastify: logger at info, the route at warn (the peer bench\'s bare server)',
  "the BFF's Fastify options: its logger (redaction, serializers, one access line), request ids, server timeouts, framework errors; polled routes at warn",
  'request basics: error handler, 404, x-request-id on every answer',
  'the storable-text check (URL and body)',
  'the body deadline',
  'metrics: requests and durations by route and status',
  'load shedding',
  "shutdown's tracking of requests in flight",
  'security headers',
  'cookies',
  'compression (the route says compress: false, as /api/version does)',
  'rate limit (the route is counted)',
  "the proxy's work for a shared answer: path check, relay of the micro-cached answer",
  // Role `all` runs the API and the auth core in the BFF's process, and the database's transaction
  // guard (server/db/guard.ts) keeps an AsyncLocalStorage: once one has run, Node 20 calls a hook
  // for every promise (Node 24, the container's, no longer does) — unless it is switched off again
  // when no transaction runs, as server/async-scope.ts does. BENCH_COST_ALS=on: left on, as before.
  process.env.BENCH_COST_ALS === 'on'
    ? 'an AsyncLocalStorage left on after a transaction (the guard before server/async-scope.ts)'
    : "the transaction guard's storage after a transaction (server/async-scope.ts: off while none runs)",
] as const

async function build(step: number): Promise<FastifyInstance> {
  if (step >= 13) {
    if (process.env.BENCH_COST_ALS === 'on') new AsyncLocalStorage<object>().run({}, () => undefined)
    else await new IdleAsyncScope<object>().run({}, async () => undefined)
  }
  const app =
    step === 0
      ? Fastify({ logger: { level: 'info' } })
      : Fastify({
          ...serviceLogging({ logLevel: 'info' }, 'bff'),
          frameworkErrors: frameworkErrorHandler('BFF', securityHeaders(false)),
          clientErrorHandler: clientErrorHandler('BFF', securityHeaders(false)),
          genReqId: newRequestId,
          trustProxy: fastifyTrustProxy(false),
          requestTimeout: 0,
          connectionTimeout: 60_000,
          keepAliveTimeout: 5_000,
          return503OnClosing: false,
          http: HTTP_SERVER_OPTIONS,
        })
  if (step >= 1) quietPolledRoutes(app)
  if (step >= 2) await app.register(requestBasics, { prefix: 'BFF', notFound: BffNotFound })
  if (step >= 3) await app.register(storableText, { refuse: (message) => new BffValidation(message) })
  if (step >= 4) await app.register(bodyDeadline, { prefix: 'BFF' })
  if (step >= 5) await app.register(metricsPlugin, { service: 'bff', prefix: 'BFF', operatorToken: undefined })
  const metrics = step >= 5 ? app.metrics : undefined
  if (step >= 6) {
    await app.register(loadShedding, { prefix: 'BFF', maxEventLoopDelayMs: 50, maxInFlight: 1_000, pressureInFlight: 16, requestId: newRequestId, headers: securityHeaders(false), onShed: (reason) => metrics?.shed.inc({ reason }) })
  }
  if (step >= 7) await app.register(shutdown, { prefix: 'BFF', requestId: newRequestId, headers: securityHeaders(false) })
  if (step >= 8) await app.register(securityHeadersPlugin, { https: false, dev: false })
  if (step >= 9) await app.register(cookie)
  if (step >= 10) await app.register(compress, { threshold: 1024, encodings: ['br', 'gzip', 'deflate'] })
  if (step >= 11) await app.register(rateLimitPlugin, { addressMax: 1_000_000, accountMax: 1_000_000, redisUrl: undefined, accountOf: () => undefined, page: () => '' })
  const cached: UpstreamResponse = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' }, body: BODY }
  if (step === 0) app.get('/api/version', { logLevel: 'warn' }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(BODY))
  else if (step < 12) app.get('/api/version', { compress: false }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(BODY))
  else {
    app.get('/api/version', { compress: false }, (request, reply) => {
      if (!safeApiPath(request.raw.url ?? '')) throw new Error('bad path')
      // The micro-cache's live answer, sent at once as versionEarlyAnswer (routes/api-proxy.ts) does.
      return relayUpstream(request, reply, cached)
    })
  }
  return app
}

/** The server's CPU time so far (µs); it is a child of ours on Linux, so /proc always tells. */
function cpuUs(pid: number): number {
  const us = cpuUsOf(pid)
  if (us === undefined) throw new Error(`no CPU time for process ${pid} in /proc`)
  return us
}

async function measure(step: number): Promise<{ rps: number; cpuUs: number }> {
  const port = await freePort()
  const child = spawn(process.execPath, [...process.execArgv, here, 'serve', String(step), String(port)], { env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve())
      child.once('exit', (code) => reject(new Error(`step ${step} exited with ${code}`)))
    })
    const url = `http://127.0.0.1:${port}/api/version`
    await autocannon({ url, connections: CONNECTIONS, duration: 2 })
    const before = cpuUs(child.pid!)
    const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S })
    const answers = result['2xx']
    if (answers === 0 || result.non2xx > 0) throw new Error(`step ${step}: ${answers} 2xx, ${result.non2xx} other answers`)
    return { rps: answers / DURATION_S, cpuUs: (cpuUs(child.pid!) - before) / answers }
  } finally {
    child.kill('SIGKILL')
  }
}

if (process.argv[1] === here) {
  if (process.argv[2] === 'serve') {
    const app = await build(Number(process.argv[3]))
    await app.listen({ host: '127.0.0.1', port: Number(process.argv[4]) })
    console.log('ready')
  } else {
    console.log(`## What a request pays for: GET /api/version, ${CONNECTIONS} connections, ${DURATION_S} s a step, the median of ${ROUNDS} rounds, each step adding to the ones before\n`)
    console.log('| step | added | answers/s | server CPU µs an answer | added µs |')
    console.log('|---:|---|---:|---:|---:|')
    // Every step once a round, BENCH_COST_ROUNDS rounds (3), the median of each: a shared
    // machine's load drifts, and a step measured only once carries whatever else ran then.
    const runs: Array<Array<{ rps: number; cpuUs: number }>> = STEPS.map(() => [])
    for (let round = 0; round < ROUNDS; round++) {
      for (let step = 0; step < STEPS.length; step++) runs[step]!.push(await measure(step))
    }
    let previous: number | undefined
    runs.forEach((measured, step) => {
      const us = median(measured.map((run) => run.cpuUs))
      const rps = median(measured.map((run) => run.rps))
      console.log(`| ${step} | ${STEPS[step]} | ${Math.round(rps)} | ${us.toFixed(1)} | ${previous === undefined ? '' : (us - previous).toFixed(1)} |`)
      previous = us
    })
  }
}
