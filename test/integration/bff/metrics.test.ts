import { request } from 'undici'
import t from 'tap'
import { browser, buildStack, LogCapture, signedInTab, type Stack } from '../../helpers.ts'

// Observability: GET /metrics on each service, in Prometheus text, only with the
// operator's token; counts by route and status, sign-ins by outcome, login blocks, rate-limit
// refusals, pool use on PostgreSQL; and one request id followed from the BFF to the API and the
// auth core.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** The value of one series in a Prometheus text, or undefined when it is not there. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue
    const body = line.slice(name.length + 1, line.lastIndexOf('}'))
    if (Object.entries(labels).every(([key, value]) => body.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return undefined
}

async function bffMetrics(stack: Stack): Promise<string> {
  const response = await stack.bff.inject({ method: 'GET', url: '/metrics', headers: bearer(stack.operatorToken) })
  if (response.statusCode !== 200) throw new Error(`metrics answered ${response.statusCode}`)
  return response.body
}

t.test('GET /metrics answers only to the operator token, on every service', async (t) => {
  const stack = await buildStack(t, { auth: true })
  for (const headers of [{}, bearer('wrong'), { authorization: stack.operatorToken }, { authorization: `Basic ${stack.operatorToken}` }]) {
    const refused = await stack.bff.inject({ method: 'GET', url: '/metrics', headers })
    t.equal(refused.statusCode, 401, JSON.stringify(headers))
    t.equal(refused.headers['www-authenticate'], 'Bearer')
    t.equal(refused.headers['cache-control'], 'no-store')
    t.match(refused.json(), { statusCode: 401, code: 'BFF_UNAUTHORIZED', message: /operator token/ })
    t.notMatch(refused.body, /softshelf_/)
  }
  const shown = await stack.bff.inject({ method: 'GET', url: '/metrics', headers: bearer(stack.operatorToken) })
  t.equal(shown.statusCode, 200)
  t.match(shown.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  t.match(shown.body, /# TYPE softshelf_http_requests_total counter/)
  t.match(shown.body, /# TYPE softshelf_http_request_duration_seconds histogram/)
  t.match(shown.body, /softshelf_nodejs_eventloop_lag_seconds/, 'event-loop lag')
  t.match(shown.body, /softshelf_process_resident_memory_bytes/)

  // The API and the auth core are reached over HTTP, as an operator's scraper would.
  for (const base of [stack.apiUrl, `http://127.0.0.1:${(stack.authCore!.server.address() as { port: number }).port}`]) {
    const without = await request(`${base}/metrics`)
    t.equal(without.statusCode, 401, `${base} without a token`)
    await without.body.dump()
    const withToken = await request(`${base}/metrics`, { headers: bearer(stack.operatorToken) })
    t.equal(withToken.statusCode, 200, `${base} with the token`)
    t.match(await withToken.body.text(), /softshelf_http_requests_total/)
  }
})

t.test('requests are counted by route pattern and status, per service', async (t) => {
  const stack = await buildStack(t)
  for (let i = 0; i < 3; i++) t.equal((await stack.bff.inject({ method: 'GET', url: `/api/programs?page=${i + 1}` })).statusCode, 200)
  t.equal((await stack.bff.inject({ method: 'GET', url: '/api/programs/no-such-program' })).statusCode, 404)
  for (let i = 0; i < 2; i++) await stack.bff.inject({ method: 'GET', url: `/random-${i}.php` })

  const bff = await bffMetrics(stack)
  t.equal(sample(bff, 'softshelf_http_requests_total', { service: 'bff', method: 'GET', route: '/api/*', status: '200' }), 3, 'the proxy route, by pattern, not URL')
  t.equal(sample(bff, 'softshelf_http_request_duration_seconds_count', { service: 'bff', route: '/api/*', status: '200' }), 3)
  t.notMatch(bff, /random-\d\.php/, 'URLs never become labels')

  const api = await (await request(`${stack.apiUrl}/metrics`, { headers: bearer(stack.operatorToken) })).body.text()
  t.equal(sample(api, 'softshelf_http_requests_total', { service: 'api', method: 'GET', route: '/api/programs', status: '200' }), 3)
  t.equal(sample(api, 'softshelf_http_requests_total', { service: 'api', method: 'GET', route: '/api/programs/:id', status: '404' }), 1)
  t.equal(sample(api, 'softshelf_http_requests_total', { service: 'bff' }), undefined, 'the API counts only its own requests')
})

t.test('sign-ins by outcome and login blocks', async (t) => {
  const stack = await buildStack(t, { auth: true })
  await signedInTab(stack, 'metrics@example.com')
  const signIn = (password: string) =>
    browser(stack.bff).post('/auth/signin', { formFields: [{ id: 'email', value: 'metrics@example.com' }, { id: 'password', value: password }] })
  t.equal((await signIn('correct horse battery')).json().status, 'OK')
  for (let i = 0; i < stack.config.login.maxAttempts; i++) await signIn('wrong password 123')
  t.equal((await signIn('correct horse battery')).statusCode, 429, 'blocked')

  const text = await bffMetrics(stack)
  t.equal(sample(text, 'softshelf_sign_ins_total', { outcome: 'success' }), 1)
  t.equal(sample(text, 'softshelf_sign_ins_total', { outcome: 'wrong-credentials' }), stack.config.login.maxAttempts)
  t.equal(sample(text, 'softshelf_sign_ins_total', { outcome: 'blocked' }), 1)
  t.equal(sample(text, 'softshelf_login_blocks_total', { service: 'bff' }), 1)
})

t.test('rate-limit refusals are counted by route', async (t) => {
  const stack = await buildStack(t, { env: { RATE_LIMIT_MAX: '2' } })
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) statuses.push((await stack.bff.inject({ method: 'GET', url: '/api/categories' })).statusCode)
  t.same(statuses, [200, 200, 429, 429])
  t.equal(sample(await bffMetrics(stack), 'softshelf_rate_limited_total', { route: '/api/*' }), 2)
})

t.test('the PostgreSQL pool is reported (nothing for PGlite, which has none)', async (t) => {
  const stack = await buildStack(t)
  await stack.bff.inject({ method: 'GET', url: '/api/categories' })
  const text = await bffMetrics(stack)
  if (stack.db.kind === 'postgres') {
    t.ok((sample(text, 'softshelf_db_pool_connections', { state: 'total' }) ?? 0) >= 1)
    t.equal(sample(text, 'softshelf_db_pool_connections', { state: 'waiting' }), 0)
  } else {
    t.notMatch(text, /softshelf_db_pool_connections/)
  }
})

t.test('one request id follows a request from the BFF to the API and the auth core', async (t) => {
  const logs = { bff: new LogCapture(), api: new LogCapture(), core: new LogCapture() }
  const stack = await buildStack(t, { auth: true, env: { LOG_LEVEL: 'info' }, bffLogStream: logs.bff, apiLogStream: logs.api, coreLogStream: logs.core })
  const tab = await signedInTab(stack, 'traced@example.com')

  // A sign-in: the BFF calls the core.
  const signIn = await browser(stack.bff).post('/auth/signin', { formFields: [{ id: 'email', value: 'traced@example.com' }, { id: 'password', value: 'correct horse battery' }] })
  const signInId = signIn.headers['x-request-id'] as string
  t.match(signInId, /^[0-9a-f-]{36}$/)
  const linesWith = (capture: LogCapture, id: string) => capture.lines.filter((line) => (JSON.parse(line) as { reqId?: string }).reqId === id)
  t.ok(linesWith(logs.bff, signInId).length > 0, 'in the BFF log')
  t.ok(linesWith(logs.core, signInId).length > 0, 'in the auth core log')

  // The data export: the BFF calls the API, which calls the core.
  const exported = await tab.get('/api/user/export')
  t.equal(exported.statusCode, 200)
  const exportId = exported.headers['x-request-id'] as string
  t.ok(linesWith(logs.bff, exportId).length > 0, 'in the BFF log')
  t.ok(linesWith(logs.api, exportId).length > 0, 'in the API log')
  t.ok(linesWith(logs.core, exportId).some((line) => line.includes('/user/id')), 'in the auth core log, on the call the API made')
})
