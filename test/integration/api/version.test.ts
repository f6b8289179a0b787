import t from 'tap'
import { buildApi } from '../../../server/api/app.ts'
import { openTestDatabase, probedDatabase, testBuildInfo, testConfig } from '../../helpers.ts'

const TOKEN = 'operator-token-for-tests-0123456789'

t.test('product API: version, maintenance, health', async (t) => {
  const db = await openTestDatabase(t)
  const api = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo, operatorToken: TOKEN })
  t.teardown(() => api.close())
  const auth = { authorization: `Bearer ${TOKEN}` }

  t.test('GET /api/version has the build version and no maintenance time by default', async (t) => {
    const response = await api.inject('/api/version')
    t.equal(response.statusCode, 200)
    t.same(response.json(), { version: '1.0.716+test' })
    t.match(response.headers['content-type'], /application\/json; charset=utf-8/)
  })

  t.test('GET /api/version/package-be names the backend, version and build, never the Node version', async (t) => {
    const response = await api.inject('/api/version/package-be')
    t.same(response.json(), { name: 'softshelf', version: '1.0.716+test', buildId: 'test' })
    t.notMatch(response.body, process.version, 'the runtime version is not published')
  })

  t.test('an operator sets and clears the maintenance time; /api/version reports it', async (t) => {
    const set = await api.inject({ method: 'PUT', url: '/internal/maintenance', headers: auth, payload: { maintenanceTime: '2026-12-01T23:30:00+01:00' } })
    t.equal(set.statusCode, 200)
    t.same((await api.inject('/api/version')).json(), { version: '1.0.716+test', maintenanceTime: '2026-12-01T22:30:00.000Z' })
    const clear = await api.inject({ method: 'DELETE', url: '/internal/maintenance', headers: auth })
    t.equal(clear.statusCode, 200)
    t.same((await api.inject('/api/version')).json(), { version: '1.0.716+test' })
  })

  t.test('operator endpoints refuse a missing or wrong token and bad input, changing nothing', async (t) => {
    const none = await api.inject({ method: 'PUT', url: '/internal/maintenance', payload: { maintenanceTime: '2026-12-01T22:00:00Z' } })
    t.equal(none.statusCode, 401)
    t.equal(none.json().code, 'API_UNAUTHORIZED')
    const wrong = await api.inject({ method: 'PUT', url: '/internal/maintenance', headers: { authorization: 'Bearer nope' }, payload: { maintenanceTime: '2026-12-01T22:00:00Z' } })
    t.equal(wrong.statusCode, 401)
    const notADate = await api.inject({ method: 'PUT', url: '/internal/maintenance', headers: auth, payload: { maintenanceTime: 'tomorrow' } })
    t.equal(notADate.statusCode, 400)
    t.equal(notADate.json().code, 'API_INVALID_MAINTENANCE_TIME')
    const malformed = await api.inject({ method: 'PUT', url: '/internal/maintenance', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"maintenanceTime":' })
    t.equal(malformed.statusCode, 400)
    t.equal(malformed.json().code, 'API_INVALID_JSON')
    t.equal(malformed.json().message, 'The request body is not valid JSON.')
    t.same((await api.inject('/api/version')).json(), { version: '1.0.716+test' }, 'nothing was stored')
  })

  t.test('errors are JSON with a stable code and the request id, never internals', async (t) => {
    const response = await api.inject({ url: '/api/nothing-here', headers: { 'x-request-id': 'req-12345678' } })
    t.equal(response.statusCode, 404)
    t.same(response.json(), {
      statusCode: 404,
      code: 'API_NOT_FOUND',
      error: 'Not Found',
      message: 'No API endpoint matches GET /api/nothing-here.',
      requestId: 'req-12345678',
    })
  })

  t.test('/healthz and /readyz', async (t) => {
    t.same((await api.inject('/healthz')).json(), { status: 'ok' })
    t.same((await api.inject('/readyz')).json(), { status: 'ok', dependencies: { database: 'ok', fileStorage: 'ok' } })
  })
})

t.test('/readyz probes from a one-second cache, ok or not: one database probe a second however often it is asked', async (t) => {
  const probed = probedDatabase(await openTestDatabase(t))
  let now = 1_700_000_000_000
  const api = await buildApi({ config: testConfig(t), db: probed.db, buildInfo: testBuildInfo, now: () => now })
  t.teardown(() => api.close())
  const ready = async () => {
    const answer = await api.inject('/readyz')
    return answer.statusCode === 200 ? (answer.json() as { dependencies: { database: string } }).dependencies.database : `HTTP ${answer.statusCode}`
  }
  t.equal(await ready(), 'ok')
  const first = probed.probes()
  t.equal(first, 1, 'the first call probes the database')
  now += 999
  t.equal(await ready(), 'ok')
  t.equal(probed.probes(), first, 'within the second: the kept answer, no probe')
  now += 2
  t.equal(await ready(), 'ok')
  t.equal(probed.probes(), first + 1, 'after the second: probed again')
  probed.down(true)
  now += 1_001
  t.equal(await ready(), 'unreachable', 'an outage is reported, and /readyz still answers 200 (issue 26)')
  t.equal(probed.probes(), first + 2)
  probed.down(false)
  t.equal(await ready(), 'unreachable', 'what was found is kept for the second too')
  t.equal(probed.probes(), first + 2)
  now += 1_001
  t.equal(await ready(), 'ok', 'and asked again after it')
})

t.test('without an operator token the operator endpoints do not exist', async (t) => {
  const db = await openTestDatabase(t)
  const api = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
  t.teardown(() => api.close())
  const response = await api.inject({ method: 'DELETE', url: '/internal/maintenance', headers: { authorization: 'Bearer x' } })
  t.equal(response.statusCode, 404)
})

t.test('a maintenance time survives a restart of the API on the same database', async (t) => {
  const db = await openTestDatabase(t)
  const first = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo, operatorToken: TOKEN })
  await first.inject({ method: 'PUT', url: '/internal/maintenance', headers: { authorization: `Bearer ${TOKEN}` }, payload: { maintenanceTime: '2027-01-01T00:00:00Z' } })
  await first.close()
  const second = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
  t.teardown(() => second.close())
  t.equal((await second.inject('/api/version')).json().maintenanceTime, '2027-01-01T00:00:00.000Z')
})

t.test('a malformed URL or an over-long path parameter gets the API error shape and the request id, never the raw path', async (t) => {
  const db = await openTestDatabase(t)
  const api = await buildApi({ config: testConfig(t), db, buildInfo: testBuildInfo })
  t.teardown(() => api.close())
  for (const url of ['/api/%c0%ae', '/api/%c0%ae%c0%ae/internal/maintenance', '/%c0%ae', '/api/programs/%c0%ae', '/api/programs/%E0%A4%A', '/api/%']) {
    const response = await api.inject({ url, headers: { 'x-request-id': 'req-bad-url-1' } })
    t.equal(response.statusCode, 400, url)
    t.same(response.json(), { statusCode: 400, code: 'API_BAD_URL', error: 'Bad Request', message: 'The request URL is malformed.', requestId: 'req-bad-url-1' }, url)
    t.equal(response.headers['x-request-id'], 'req-bad-url-1')
    t.notMatch(response.body, /%c0|%E0|FST_/i, 'the raw path is not echoed')
  }
  for (const [method, url] of [['GET', `/api/programs/${'x'.repeat(101)}`], ['GET', `/api/developers/${'y'.repeat(500)}`], ['POST', `/api/user/program/${'z'.repeat(200)}`]] as const) {
    const response = await api.inject({ method, url, headers: { 'x-request-id': 'req-long-1' } })
    t.equal(response.statusCode, 414, url.slice(0, 30))
    t.same(response.json(), {
      statusCode: 414,
      code: 'API_PARAM_TOO_LONG',
      error: 'URI Too Long',
      message: 'A part of the request path is longer than this service accepts.',
      requestId: 'req-long-1',
    })
    t.equal(response.headers['x-request-id'], 'req-long-1')
    t.notMatch(response.body, /xxxx|yyyy|zzzz|FST_/)
  }
  t.equal((await api.inject(`/api/programs/${'x'.repeat(100)}`)).json().code, 'API_CATALOGUE_NOT_FOUND', 'a parameter of 100 characters is still looked up')
})
