import type { LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { browser, buildStack, LogCapture, signedInTab, type Stack } from '../../helpers.ts'
import { startSentrySink, type SentrySink } from '../../sentry-sink.ts'

// A NUL in a string reached PostgreSQL and failed there — 500 on POST /auth/signin,
// POST /auth/user/password/reset/token and GET /api/user/check-email (no session needed), 502 on
// GET /api/files?folder=x%00 and on the parentId or programId of a folder, assign-cluster and
// checkout, 500 on DELETE /api/user/sessions/<handle>%00 — each with an error line and an error
// report, so anyone could flood the tracker. A NUL or an unpaired surrogate anywhere in the path,
// the query or the body is now a 400 with the validation code of the service that read it: the
// BFF's for its own routes and /auth, the API's for a body the BFF streams through to it.

const CLUSTERS = [{ id: 'fra-1', region: 'eu-central', url: 'https://fra-1.stream.example.com/play', capacity: 2 }]
const fields = (pairs: Record<string, string>) => ({ formFields: Object.entries(pairs).map(([id, value]) => ({ id, value })) })

interface Observed {
  stack: Stack
  tracker: SentrySink
  logs: { bff: LogCapture; api: LogCapture; core: LogCapture }
}

async function observedStack(t: Test): Promise<Observed> {
  const tracker = await startSentrySink()
  t.teardown(() => tracker.close())
  const logs = { bff: new LogCapture(), api: new LogCapture(), core: new LogCapture() }
  const stack = await buildStack(t, {
    auth: true,
    bffLogStream: logs.bff,
    apiLogStream: logs.api,
    coreLogStream: logs.core,
    env: { SENTRY_DSN: tracker.dsn(), LOG_LEVEL: 'info', AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', STREAMING_CLUSTERS: JSON.stringify(CLUSTERS) },
  })
  return { stack, tracker, logs }
}

/** No service wrote an error line, and the tracker got nothing. */
async function assertQuiet(t: Test, { stack, tracker, logs }: Observed): Promise<void> {
  for (const [service, capture] of Object.entries(logs)) {
    const lines = capture.lines.map((line) => JSON.parse(line) as { level: number; msg?: string; err?: { message?: string } })
    t.ok(lines.some((line) => line.msg === 'request completed'), `${service}: its requests were logged`)
    t.same(lines.filter((line) => line.level >= 50).map((line) => line.err?.message ?? line.msg), [], `${service}: no error line`)
  }
  await stack.bff.errorReporter!.flush()
  await stack.api.errorReporter!.flush()
  t.same(tracker.events(), [], 'no error report')
}

function assertRefused(t: Test, response: LightMyRequestResponse, code: string, label: string): void {
  t.equal(response.statusCode, 400, label)
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8/, `${label}: JSON`)
  t.match(response.json(), { statusCode: 400, code, error: 'Bad Request', message: /character that cannot be accepted/, requestId: String }, `${label}: ${code}`)
  t.notOk(response.headers['x-sentry-event-id'], `${label}: not reported`)
}

t.test("the issue's requests answer 400 with the validation code, without an error line or an error report", async (t) => {
  const observed = await observedStack(t)
  const { stack } = observed
  const anonymous = browser(stack.bff)
  const me = await signedInTab(stack, 'nul@example.com')

  // No session needed for these three.
  for (const email of ['a\u0000b@c.de', 'a\ud800b@c.de', 'ab@c.de\udc00']) {
    assertRefused(t, await anonymous.post('/auth/signin', fields({ email, password: 'correct horse battery' })), 'BFF_VALIDATION_FAILED', `sign-in, email ${JSON.stringify(email)}`)
    assertRefused(t, await anonymous.post('/auth/user/password/reset/token', fields({ email })), 'BFF_VALIDATION_FAILED', `reset link, email ${JSON.stringify(email)}`)
  }
  assertRefused(t, await anonymous.post('/auth/signin', fields({ email: 'nul@example.com', password: 'correct horse\u0000battery' })), 'BFF_VALIDATION_FAILED', 'sign-in, a NUL in the password')
  assertRefused(t, await anonymous.post('/auth/public/signin', fields({ email: 'a\u0000b@c.de', password: 'x' })), 'BFF_VALIDATION_FAILED', 'sign-in with the tenant prefix')
  for (const query of ['email=a%00@b.c', 'email=a%ED%A0%80@b.c', 'email=a%C0%80@b.c', 'email=ok@b.c&x=%00', 'e%00mail=a@b.c']) {
    assertRefused(t, await anonymous.get(`/api/user/check-email?${query}`), 'BFF_VALIDATION_FAILED', `check-email?${query}`)
  }
  assertRefused(t, await anonymous.get('/auth/emailpassword/email/exists?email=a%00%40b.c'), 'BFF_VALIDATION_FAILED', 'the SDK\'s email-exists, in the query')

  // Signed in: the drive, streaming and checkout through the proxy, and the BFF's own sessions.
  for (const query of ['folder=x%00', 'folder=x%ED%A0%80', 'folder=%ED%BF%BF']) {
    assertRefused(t, await me.get(`/api/files?${query}`), 'BFF_VALIDATION_FAILED', `GET /api/files?${query}`)
  }
  assertRefused(t, await me.post('/api/files/folders', { name: 'Reports', parentId: 'x\u0000' }), 'API_VALIDATION_FAILED', 'a folder whose parentId holds a NUL (the body streams to the API)')
  assertRefused(t, await me.post('/api/files/folders', { name: 'Reports\ud800' }), 'API_VALIDATION_FAILED', 'a folder name with a lone surrogate')
  assertRefused(t, await me.post('/api/user/assign-cluster', { programId: 'x\u0000', keyboardLayout: 'en-us' }), 'API_VALIDATION_FAILED', 'assign-cluster, programId')
  assertRefused(t, await me.post('/api/user/checkout', { programId: 'x\u0000' }), 'API_VALIDATION_FAILED', 'checkout, programId')
  assertRefused(t, await me.delete('/api/user/sessions/2a8e3c1e-5d7b-4c0f-9d56-0b1f7c2e9a41%00'), 'BFF_VALIDATION_FAILED', 'DELETE /api/user/sessions/<handle>%00')

  // In the path, the query and the body of each kind of route: the BFF's own, /auth, proxied, pages.
  for (const url of ['/api/user/sessions/x%00', '/auth/signin%00', '/auth/public%00/signin', '/api/files/x%00', '/api/programs/x%00', '/welcome%00', '/welcome?next=%00', '/api/programs?q=%00', '/auth/loginmethods?tenantId=%00']) {
    assertRefused(t, await me.get(url), 'BFF_VALIDATION_FAILED', `GET ${url}`)
  }
  assertRefused(t, await me.post('/api/user/email', { email: 'new\u0000@example.com', password: 'correct horse battery' }), 'BFF_VALIDATION_FAILED', 'the BFF\'s own JSON route')
  assertRefused(t, await me.post('/api/user/email', { email: 'new@example.com', nested: [{ deeper: { 'a\u0000': 1 } }] }), 'BFF_VALIDATION_FAILED', 'a NUL in a nested key')
  assertRefused(t, await me.post('/api/user/delete', { reason: ['fine', { why: 'x\udfff' }] }), 'BFF_VALIDATION_FAILED', 'a lone low surrogate nested in an array')

  await assertQuiet(t, observed)
})

t.test('legitimate non-ASCII text still passes: accents, CJK and emoji (surrogate pairs)', async (t) => {
  const observed = await observedStack(t)
  const { stack } = observed
  const me = await signedInTab(stack, 'unicode@example.com')
  for (const name of ['Résumé', '漢字のフォルダ', 'Fotos 😀🎉', 'Ωmega – “quoted”']) {
    const created = await me.post('/api/files/folders', { name })
    t.equal(created.statusCode, 201, `a folder named ${name}`)
    t.equal(created.json().name, name, 'named exactly as sent')
  }
  const checked = await browser(stack.bff).get(`/api/user/check-email?email=${encodeURIComponent('zoë.漢字😀@example.com')}`)
  t.equal(checked.statusCode, 200, 'check-email with non-ASCII in the query')
  const signUp = await browser(stack.bff).post('/auth/signup', fields({ email: 'emoji@example.com', password: 'pässwörd 漢字 😀 long enough' }))
  t.equal(signUp.json().status, 'OK', 'a password of accents, CJK and emoji signs up')
  t.equal((await browser(stack.bff).post('/auth/signin', fields({ email: 'emoji@example.com', password: 'pässwörd 漢字 😀 long enough' }))).json().status, 'OK', 'and signs in')
  t.equal((await browser(stack.bff).get(`/welcome?utm_source=${encodeURIComponent('Ñandú 😀')}`)).statusCode, 200, 'a page with non-ASCII in its query')
  await assertQuiet(t, observed)
})
