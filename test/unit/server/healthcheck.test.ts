import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { check, healthUrl, roleOf } from '../../../server/healthcheck.ts'

t.test('the role is read from the entrypoint command line as /proc gives it', async (t) => {
  t.equal(roleOf('node\0dist/server/main.js\0api\0'), 'api')
  t.equal(roleOf('node\0/app/dist/server/main.js\0--dev\0authcore\0'), 'authcore')
  t.equal(roleOf('node\0dist/server/main.js\0'), 'all')
  t.equal(roleOf('node\0dist/server/main.js\0nonsense\0'), 'all')
  t.equal(roleOf('/sbin/tini\0--\0node\0dist/server/main.js\0bff\0'), 'bff')
  t.equal(roleOf(''), 'all')
})

t.test('each role is asked on its own port, at a local address', async (t) => {
  t.equal(healthUrl('all', { PORT: '8080' }), 'http://127.0.0.1:8080/healthz')
  t.equal(healthUrl('bff', {}), 'http://127.0.0.1:3000/healthz')
  t.equal(healthUrl('api', { API_HOST: '0.0.0.0', API_PORT: '4001' }), 'http://127.0.0.1:4001/healthz')
  t.equal(healthUrl('api', {}), 'http://127.0.0.1:3001/healthz')
  t.equal(healthUrl('authcore', { AUTH_CORE_HOST: '::', AUTH_CORE_PORT: '4567' }), 'http://127.0.0.1:4567/hello')
  t.equal(healthUrl('authcore', { AUTH_CORE_HOST: '::1' }), 'http://[::1]:3567/hello')
  t.equal(healthUrl('bff', { HOST: ' ', PORT: '' }), 'http://127.0.0.1:3000/healthz')
})

t.test('healthy only on a 2xx answer', async (t) => {
  let status = 200
  const server = http.createServer((_request, response) => response.writeHead(status).end('ok'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`
  t.equal(await check(url), true)
  status = 503
  t.equal(await check(url), false)
  t.equal(await check('http://127.0.0.1:9/healthz'), false, 'nothing listening')
})
