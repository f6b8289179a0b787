import t from 'tap'
import { buildStack, LogCapture, signedInTab } from '../../helpers.ts'
import { startSentrySink } from '../../sentry-sink.ts'

// At the API's own edge: whoever reaches the API (the BFF streams proxied bodies
// through unread; an operator's tool calls it directly) with a NUL or an unpaired surrogate in
// the path, the query or the JSON body gets 400 API_VALIDATION_FAILED, not a PostgreSQL error
// answered 500 with an error line and an error report.

const CLUSTERS = [{ id: 'fra-1', region: 'eu-central', url: 'https://fra-1.stream.example.com/play', capacity: 2 }]

t.test('a NUL or a lone surrogate in the path, the query or the body is 400 API_VALIDATION_FAILED, quietly', async (t) => {
  const tracker = await startSentrySink()
  t.teardown(() => tracker.close())
  const apiLogs = new LogCapture()
  const stack = await buildStack(t, { auth: true, apiLogStream: apiLogs, env: { SENTRY_DSN: tracker.dsn(), LOG_LEVEL: 'info', AUTH_RATE_LIMIT_MAX: '1000', STREAMING_CLUSTERS: JSON.stringify(CLUSTERS) } })
  const tab = await signedInTab(stack, 'api-nul@example.com')
  const headers = { authorization: `Bearer ${tab.jar.get('sAccessToken')}`, 'content-type': 'application/json' }
  const cases: Array<[string, string, unknown?]> = [
    ['GET', '/api/files?folder=x%00'],
    ['GET', '/api/files?folder=x%ED%A0%80'],
    ['GET', '/api/files?folder=%C0%80'],
    ['GET', '/api/files/x%00/content'],
    ['DELETE', '/api/user/sessions/2a8e3c1e-5d7b-4c0f-9d56-0b1f7c2e9a41%00'],
    ['GET', '/api/programs?q=%00'],
    ['POST', '/api/files/folders', { name: 'Reports', parentId: 'x\u0000' }],
    ['POST', '/api/files/folders', { name: 'Reports\ud800' }],
    ['PATCH', '/api/user', { name: 'Ada\u0000' }],
    ['POST', '/api/user/assign-cluster', { programId: 'x\u0000', keyboardLayout: 'en-us' }],
    ['POST', '/api/user/checkout', { programId: 'x\u0000' }],
    ['POST', '/api/user/checkout', { programId: 'ok', extra: { deeper: ['\udc00'] } }],
  ]
  for (const [method, url, body] of cases) {
    const response = await stack.api.inject({ method: method as 'GET', url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) })
    const label = `${method} ${url}${body !== undefined ? ` ${JSON.stringify(body)}` : ''}`
    t.equal(response.statusCode, 400, label)
    t.match(response.json(), { statusCode: 400, code: 'API_VALIDATION_FAILED', message: /character that cannot be accepted/, requestId: String }, label)
    t.notOk(response.headers['x-sentry-event-id'], `${label}: not reported`)
  }
  // The same with non-ASCII text that is fine.
  const created = await stack.api.inject({ method: 'POST', url: '/api/files/folders', headers, payload: JSON.stringify({ name: 'Zoë 漢字 😀' }) })
  t.equal(created.statusCode, 201)
  t.equal(created.json().name, 'Zoë 漢字 😀')
  t.equal((await stack.api.inject({ method: 'PATCH', url: '/api/user', headers, payload: JSON.stringify({ name: 'Zoë 漢字 😀' }) })).statusCode, 200, 'a display name of accents, CJK and emoji')

  const lines = apiLogs.lines.map((line) => JSON.parse(line) as { level: number; msg?: string; err?: { message?: string } })
  t.same(lines.filter((line) => line.level >= 50).map((line) => line.err?.message ?? line.msg), [], 'no error line')
  await stack.api.errorReporter!.flush()
  t.same(tracker.events(), [], 'no error report')
})
