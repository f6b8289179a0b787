import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import t, { type Test } from 'tap'
import { buildStack, freePort, LogCapture, openTestDatabase, waitUntil } from '../../helpers.ts'

// With REDIS_URL every BFF instance counts against the same per-IP budget (DESIGN.md §2).

const REDIS = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => fs.existsSync(file))
const skip = !REDIS && 'redis-server is not installed (.ci/run installs it)'

/** A redis-server on `port`, accepting connections when this resolves; `stop` waits for it to exit. */
async function startRedis(t: Test, port: number): Promise<{ stop: () => Promise<void> }> {
  const redis: ChildProcess = spawn(REDIS!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => redis.once('exit', () => resolve()))
  t.teardown(() => {
    redis.kill('SIGTERM')
  })
  // Wait (bounded) until Redis accepts connections.
  await waitUntil(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end()
          resolve(true)
        })
        socket.on('error', () => resolve(false))
      }),
    10_000,
    { every: 50, what: 'redis accepts connections' },
  )
  return {
    stop: async () => {
      redis.kill('SIGTERM')
      await exited
    },
  }
}

t.test('two BFF instances share rate-limit counters through Redis', { skip }, async (t) => {
  const port = await freePort()
  await startRedis(t, port)
  const env = { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_MAX: '4' }
  const db = await openTestDatabase(t)
  const first = await buildStack(t, { env, db })
  const second = await buildStack(t, { env, db })
  const statuses: number[] = []
  for (let i = 0; i < 3; i++) {
    statuses.push((await first.bff.inject('/api/version')).statusCode)
    statuses.push((await second.bff.inject('/api/version')).statusCode)
  }
  t.same(statuses, [200, 200, 200, 200, 429, 429], 'the fifth request, whichever instance gets it, is over the shared budget')
})

/**
 * A TCP relay in front of Redis that counts the connections it could not pass on: while Redis is
 * stopped, each is a reconnect attempt of a BFF's client (reset, as a dead backend behind a
 * balancer is), so the test can wait for several of them instead of sleeping.
 */
async function relay(t: Test, to: number): Promise<{ port: number; refused: () => number }> {
  let refused = 0
  const server = net.createServer((client) => {
    const upstream = net.connect(to, '127.0.0.1')
    client.pipe(upstream)
    upstream.pipe(client)
    upstream.on('error', () => {
      refused++
      client.resetAndDestroy()
    })
    client.on('error', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    client.on('close', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { port: (server.address() as net.AddressInfo).port, refused: () => refused }
}

interface Line {
  level: number
  msg: string
  outage?: string
  cause?: string
  err?: unknown
  stack?: unknown
}
const lines = (capture: LogCapture): Line[] => capture.lines.map((line) => JSON.parse(line) as Line)
const aboutRedis = (capture: LogCapture) => lines(capture).filter((line) => /redis/i.test(JSON.stringify(line)) && line.level >= 30 && !('req' in line) && !('res' in line))

// A Redis outage wrote a warning with a stack per reconnect attempt, never said that
// the limits now count per instance — they did not count at all: the limiter skipped them on a
// store error — nor when Redis was back.
t.test('Redis stopped: one warn, limits per instance, no stack per attempt; Redis back: one info', { skip }, async (t) => {
  const redisPort = await freePort()
  let redis = await startRedis(t, redisPort)
  const front = await relay(t, redisPort)
  const env = { REDIS_URL: `redis://127.0.0.1:${front.port}`, RATE_LIMIT_MAX: '4', LOG_LEVEL: 'info' }
  const db = await openTestDatabase(t)
  const logs = [new LogCapture(), new LogCapture()]
  const first = await buildStack(t, { env, db, bffLogStream: logs[0]!, apiLogStream: new LogCapture() })
  const second = await buildStack(t, { env, db, bffLogStream: logs[1]!, apiLogStream: new LogCapture() })
  t.equal((await first.bff.inject('/api/version')).statusCode, 200)

  await redis.stop()
  const refusedAtStop = front.refused()
  // Several reconnect attempts of both clients (ioredis retries after 50, 100, 150… ms).
  await waitUntil(() => front.refused() - refusedAtStop >= 6, 15_000)
  for (const [i, bff] of [first.bff, second.bff].entries()) {
    const statuses: number[] = []
    for (let n = 0; n < 5; n++) statuses.push((await bff.inject('/api/version')).statusCode)
    t.same(statuses, [200, 200, 200, 200, 429], `instance ${i + 1}: the limit still holds, counted on this instance`)
  }
  await waitUntil(() => front.refused() - refusedAtStop >= 10, 15_000)
  for (const [i, capture] of logs.entries()) {
    const said = aboutRedis(capture)
    t.same(
      said.map((line) => [line.level, line.msg]),
      [[40, 'Redis unreachable: rate limits count per instance until it is back']],
      `instance ${i + 1}: one warn line for the whole outage, through ${front.refused() - refusedAtStop} failed reconnects`,
    )
    t.notOk(said.some((line) => line.err !== undefined || line.stack !== undefined), 'and no stack')
  }

  redis = await startRedis(t, redisPort)
  for (const capture of logs) {
    await waitUntil(() => aboutRedis(capture).some((line) => line.msg.startsWith('Redis reachable again')), 15_000)
  }
  for (const [i, capture] of logs.entries()) {
    t.same(
      aboutRedis(capture).map((line) => [line.level, line.msg]),
      [
        [40, 'Redis unreachable: rate limits count per instance until it is back'],
        [30, 'Redis reachable again: rate limits are shared again'],
      ],
      `instance ${i + 1}: one info line when Redis is back`,
    )
  }
  // Shared again: the restarted Redis holds the counters of both instances.
  const statuses: number[] = []
  for (let n = 0; n < 3; n++) {
    statuses.push((await first.bff.inject('/api/version')).statusCode)
    statuses.push((await second.bff.inject('/api/version')).statusCode)
  }
  t.same(statuses, [200, 200, 200, 200, 429, 429], 'the budget is shared again')
})
