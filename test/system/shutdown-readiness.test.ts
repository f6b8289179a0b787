import t from 'tap'
import { tempDir } from '../helpers.ts'
import { exited, startApp, until } from './support.ts'

// SIGTERM to the real process (server/main.ts). /readyz fails first while every other
// request is still served, for SHUTDOWN_READINESS_DELAY_MS, so a load balancer takes the instance
// out before it refuses anything; then the drain, and exit 0. No timing is asserted: the delay is
// long (6 s) next to the few requests asked inside it, and every wait is bounded.

t.test('SIGTERM: /readyz fails at once, requests are served through the readiness delay, then the drain', async (t) => {
  const app = await startApp(t, tempDir(t), { SHUTDOWN_READINESS_DELAY_MS: '6000', SHUTDOWN_TIMEOUT_MS: '10000', LOG_LEVEL: 'info' }, { log: true })
  t.equal((await fetch(`${app.url}/readyz`)).status, 200, 'ready')
  app.child.kill('SIGTERM')
  const stopping = await app.logged('the stop begins', (line) => line.msg === 'stopping: /readyz fails, requests are still served until the load balancer has seen it')
  t.equal(stopping.readinessDelayMs, 6_000)
  const ready = await until('/readyz fails', async () => {
    const answer = await fetch(`${app.url}/readyz`)
    return answer.status === 503 ? answer : undefined
  }, 5_000)
  t.match(await ready.json(), { code: 'BFF_NOT_READY', message: 'The app is not ready: it is stopping.' })
  const served = await fetch(`${app.url}/api/programs?pageSize=1`)
  t.equal(served.status, 200, 'an /api call is still served')
  t.not(served.headers.get('connection'), 'close', 'on a connection kept open')
  const page = await fetch(`${app.url}/`, { headers: { accept: 'text/html' } })
  t.equal(page.status, 200, 'and a page')
  await page.text()
  const closing = await app.logged('the drain begins', (line) => line.msg?.toString().startsWith('closing:') === true, 15_000)
  t.equal(closing.event, 'shutdown')
  t.equal(await exited(app.child), 0, 'then it drains and exits 0')
})
