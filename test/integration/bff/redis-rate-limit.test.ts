import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import t from 'tap'
import { buildStack, freePort, openTestDatabase } from '../../helpers.ts'

// With REDIS_URL every BFF instance counts against the same per-IP budget (DESIGN.md §2).

const REDIS = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => fs.existsSync(file))

t.test('two BFF instances share rate-limit counters through Redis', { skip: !REDIS && 'redis-server is not installed (.ci/run installs it)' }, async (t) => {
  const port = await freePort()
  const redis = spawn(REDIS!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  t.teardown(() => {
    redis.kill('SIGTERM')
  })
  // Wait (bounded) until Redis accepts connections.
  const started = Date.now()
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end()
        resolve(true)
      })
      socket.on('error', () => resolve(false))
    })
    if (ok) break
    if (Date.now() - started > 10_000) throw new Error('redis did not start')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
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
