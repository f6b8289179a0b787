import t, { type Test } from 'tap'
import { buildBff } from '../../../server/bff/app.ts'
import { TUNNEL_BODY_LIMIT } from '../../../server/bff/routes/error-reporting.ts'
import { buildApi } from '../../../server/api/app.ts'
import { DiskStorage } from '../../../server/api/files/storage.ts'
import { buildStack, openTestDatabase, tempDir, testBuildInfo, testConfig, within } from '../../helpers.ts'
import { startSentrySink, type SentrySink } from '../../sentry-sink.ts'

// Unexpected errors of the BFF and the API reach the error tracker — here
// a local envelope sink on loopback — with the release, the environment and the request id, and
// without personal data; the browser's envelopes pass the BFF's tunnel only for our DSN.

const EVENT_ID = /^[0-9a-f]{32}$/
const WRITE = { rid: 'anti-csrf', origin: 'http://localhost:3000', 'content-type': 'application/json' }

async function sink(t: Test): Promise<SentrySink> {
  const started = await startSentrySink()
  t.teardown(() => started.close())
  return started
}

/** An envelope as the browser SDK writes it through a tunnel: the DSN in its header. */
function envelope(dsn: string | undefined, message = 'from the browser'): string {
  const header = JSON.stringify({ event_id: 'a'.repeat(32), sent_at: new Date().toISOString(), ...(dsn ? { dsn } : {}) })
  return `${header}\n{"type":"event"}\n${JSON.stringify({ message, release: 'test', environment: 'ci' })}\n`
}

// First: later tests create Sentry clients in this process.
t.test('without SENTRY_DSN nothing loads or answers: no SDK, no tunnel, no test errors, and the page says so', async (t) => {
  const { bff, api } = await buildStack(t)
  t.equal(bff.errorReporter, undefined)
  t.equal(api.errorReporter, undefined)
  for (const url of ['/sentry-test/error', '/api/sentry-test/error', '/sentry-tunnel']) {
    const response = await bff.inject({ method: 'POST', url, headers: WRITE, payload: '{}' })
    t.equal(response.statusCode, 404, url)
    t.notOk(response.headers['x-sentry-event-id'])
  }
  // A 5xx through the error handler: the API cannot be reached.
  const unreachable = await buildBff({ config: testConfig(t), db: await openTestDatabase(t), buildInfo: testBuildInfo, upstreamApiUrl: 'http://127.0.0.1:9' })
  t.teardown(() => unreachable.close())
  const failing = await unreachable.inject('/api/programs')
  t.equal(failing.statusCode, 503)
  t.notOk(failing.headers['x-sentry-event-id'])
  t.equal((globalThis as { __SENTRY__?: unknown }).__SENTRY__, undefined, 'no Sentry code ran in this process so far')
  const page = await bff.inject('/sentry-test')
  t.equal(page.statusCode, 200)
  t.match(page.headers['x-robots-tag'], /noindex/)
  t.match(page.body, /data-reporting="off"/)
  t.match(page.body, /Error reporting is off/)
  t.notMatch(page.body, /data-testid="side-browser"/, "no button that pretends")
  t.match(page.body, /"errorReporting":null/)
})

t.test('with SENTRY_DSN, a BFF error is reported with the release, the environment and the request id, and its answer names the event', async (t) => {
  const tracker = await sink(t)
  const { bff } = await buildStack(t, { env: { SENTRY_DSN: tracker.dsn(), SENTRY_ENVIRONMENT: 'ci' } })
  const response = await bff.inject({ method: 'POST', url: '/sentry-test/error', headers: WRITE, payload: '{}' })
  t.equal(response.statusCode, 500)
  const body = response.json()
  t.equal(body.code, 'BFF_INTERNAL_ERROR', 'the answer stays generic')
  const eventId = response.headers['x-sentry-event-id'] as string
  t.match(eventId, EVENT_ID, 'the answer names the event')
  await bff.errorReporter!.flush()
  const event = await within(tracker.waitForEvent((e) => e.event_id === eventId))
  t.equal(event.release, testBuildInfo.buildId, 'release = the build id')
  t.equal(event.environment, 'ci')
  t.equal(event.tags?.request_id, body.requestId, 'the request id is a tag')
  t.equal(event.tags?.service, 'bff')
  t.match(event.exception?.values?.[0]?.value ?? '', /raised on purpose in the BFF/)
})

t.test('an API error is reported by the API alone; the BFF relays its event id with the 502', async (t) => {
  const tracker = await sink(t)
  const { bff, api } = await buildStack(t, { env: { SENTRY_DSN: tracker.dsn() } })
  const response = await bff.inject({ method: 'POST', url: '/api/sentry-test/error', headers: WRITE, payload: '{}' })
  t.equal(response.statusCode, 502)
  const body = response.json()
  const eventId = response.headers['x-sentry-event-id'] as string
  t.match(eventId, EVENT_ID)
  await api.errorReporter!.flush()
  await bff.errorReporter!.flush()
  const event = await within(tracker.waitForEvent((e) => e.event_id === eventId))
  t.equal(event.tags?.service, 'api')
  t.equal(event.tags?.request_id, body.requestId, 'one request id from the BFF through the API')
  t.equal(event.release, testBuildInfo.buildId)
  t.equal(event.environment, 'test', 'SENTRY_ENVIRONMENT defaults to NODE_ENV')
  t.match(event.exception?.values?.[0]?.value ?? '', /raised on purpose in the API/)
  t.equal(tracker.events().filter((e) => e.tags?.request_id === body.requestId).length, 1, 'the BFF did not report it again')
})

t.test('a 4xx is the caller’s mistake and is not reported', async (t) => {
  const tracker = await sink(t)
  const { bff, api } = await buildStack(t, { env: { SENTRY_DSN: tracker.dsn() } })
  const forged = await bff.inject({ method: 'POST', url: '/sentry-test/error', headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(forged.statusCode, 403, 'the test error is a write: it needs the anti-forgery header')
  const missing = await bff.inject('/api/programs/no-such-program')
  t.equal(missing.statusCode, 404)
  const invalid = await bff.inject({ method: 'POST', url: '/api/sentry-test/error', headers: { ...WRITE }, payload: 'not json' })
  t.equal(invalid.statusCode, 400)
  for (const response of [forged, missing, invalid]) t.notOk(response.headers['x-sentry-event-id'])
  await bff.errorReporter!.flush()
  await api.errorReporter!.flush()
  t.equal(tracker.envelopes.length, 0, 'nothing reached the tracker')
})

t.test('reports never carry a password, cookie, token, email or Authorization header (canary)', async (t) => {
  const tracker = await sink(t)
  const db = await openTestDatabase(t)
  const bff = await buildBff({ config: testConfig(t, { SENTRY_DSN: tracker.dsn() }), db, buildInfo: testBuildInfo, upstreamApiUrl: 'http://127.0.0.1:9' })
  t.teardown(() => bff.close())
  bff.post('/boom', async () => {
    throw new Error('sign-in failed for canary-person@example.com with password=CANARY-PASSWORD-1 and token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.CANARYSIGNATURE5')
  })
  const stack = await buildStack(t, { env: { SENTRY_DSN: tracker.dsn() } })
  const canaryHeaders = {
    ...WRITE,
    cookie: 'sAccessToken=CANARY-COOKIE-2; sRefreshToken=CANARY-COOKIE-3; sFrontToken=CANARY-COOKIE-4',
    authorization: 'Bearer CANARY-BEARER-6',
    'x-api-key': 'CANARY-KEY-7',
  }
  const payload = JSON.stringify({ email: 'canary-body@example.com', password: 'CANARY-PASSWORD-8', token: 'CANARY-TOKEN-9' })
  const responses = [
    await bff.inject({ method: 'POST', url: '/boom?token=CANARY-TOKEN-10&email=canary-query%40example.com', headers: canaryHeaders, payload }),
    await stack.bff.inject({ method: 'POST', url: '/sentry-test/error?code=CANARY-CODE-11&email=canary-query@example.com', headers: canaryHeaders, payload }),
    await stack.bff.inject({ method: 'POST', url: '/api/sentry-test/error?access_token=CANARY-TOKEN-12', headers: canaryHeaders, payload }),
  ]
  for (const response of responses) t.match(response.headers['x-sentry-event-id'], EVENT_ID)
  await Promise.all([bff.errorReporter!.flush(), stack.bff.errorReporter!.flush(), stack.api.errorReporter!.flush()])
  t.equal(tracker.events().length, 3, 'three events arrived')
  const all = tracker.envelopes.map((envelope) => envelope.raw).join('\n')
  t.notMatch(all, /CANARY|canary-|eyJhbGci/, 'no canary value reached the tracker')
  const boom = tracker.events().find((e) => e.exception?.values?.[0]?.value?.startsWith('sign-in failed'))
  t.equal(boom?.exception?.values?.[0]?.value, 'sign-in failed for [email] with password=[redacted] and token [redacted]', 'the message keeps what is not secret')
  t.match(boom?.request?.url ?? '', /token=\[redacted\]/, 'the path stays, the secret query values do not')
})

t.test('the tunnel forwards envelopes for our DSN only, bounded and from our origin', async (t) => {
  const tracker = await sink(t)
  const { bff, config } = await buildStack(t, { env: { SENTRY_DSN: tracker.dsn() } })
  const post = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    bff.inject({ method: 'POST', url: '/sentry-tunnel', headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers }, payload })

  const ours = envelope(config.sentry!.dsn)
  const own = await post(ours)
  t.equal(own.statusCode, 200, 'our own DSN passes without the anti-forgery header the SDK cannot send')
  t.equal(tracker.envelopes.length, 1, 'and reached the tracker')
  t.equal(tracker.envelopes[0]!.raw, ours, 'unchanged')
  t.equal(tracker.envelopes[0]!.path, '/api/1/envelope/')

  const refusals: Array<[string, string | Buffer, number, string, Record<string, string>?]> = [
    ['another key', envelope(tracker.dsn('otherkey')), 403, 'BFF_TUNNEL_FOREIGN_DSN'],
    ['another project', envelope(tracker.dsn('sinkpublickey', 2)), 403, 'BFF_TUNNEL_FOREIGN_DSN'],
    ['another host', envelope('https://sinkpublickey@o1.ingest.sentry.io/1'), 403, 'BFF_TUNNEL_FOREIGN_DSN'],
    ['no DSN', envelope(undefined), 403, 'BFF_TUNNEL_FOREIGN_DSN'],
    ['not an envelope', 'hello', 400, 'BFF_TUNNEL_BAD_ENVELOPE'],
    ['an empty body', '', 400, 'BFF_TUNNEL_BAD_ENVELOPE'],
    ['over the size limit', `${envelope(config.sentry!.dsn)}${'x'.repeat(TUNNEL_BODY_LIMIT)}`, 413, 'BFF_BODY_TOO_LARGE'],
    ['from another site', envelope(config.sentry!.dsn), 403, 'BFF_CSRF_REJECTED', { origin: 'https://evil.example' }],
  ]
  for (const [name, payload, status, code, headers] of refusals) {
    const response = await post(payload, headers)
    t.equal(response.statusCode, status, name)
    t.equal(response.json().code, code, name)
  }
  t.equal(tracker.envelopes.length, 1, 'nothing refused was forwarded')
})

t.test('the tunnel says when the tracker cannot be reached, and reports nothing about it', async (t) => {
  const tracker = await sink(t)
  const dsn = tracker.dsn()
  await tracker.close()
  const { bff } = await buildStack(t, { env: { SENTRY_DSN: dsn } })
  const response = await bff.inject({ method: 'POST', url: '/sentry-tunnel', payload: envelope(dsn), headers: { 'content-type': 'text/plain' } })
  t.equal(response.statusCode, 502)
  t.equal(response.json().code, 'BFF_TUNNEL_UNAVAILABLE')
  t.notOk(response.headers['x-sentry-event-id'])
})

t.test('/sentry-test: not indexed; with a DSN it offers the three errors and the browser gets the DSN, the tunnel and the release', async (t) => {
  const tracker = await sink(t)
  const { bff } = await buildStack(t, { env: { SENTRY_DSN: tracker.dsn(), SENTRY_ENVIRONMENT: 'ci' } })
  const page = await bff.inject('/sentry-test')
  t.equal(page.statusCode, 200)
  t.match(page.headers['x-robots-tag'], /noindex/)
  t.match(page.body, /<meta name="robots" content="noindex/)
  t.match(page.body, /data-reporting="on"/)
  t.match(page.body, /data-testid="side-browser"/)
  t.match(page.body, new RegExp(`"errorReporting":\\{"dsn":"${tracker.dsn().replace(/[/.]/g, '\\$&')}","environment":"ci","release":"test","tunnel":"/sentry-tunnel"\\}`))
})


t.test('a background task that fails (the drive sweep) is reported with its task, outside any request', async (t) => {
  const tracker = await sink(t)
  const storage = new DiskStorage(tempDir(t))
  // The store cannot be listed (a disk gone): the sweep at start fails.
  storage.listObjects = async function* () {
    yield* []
    throw new Error('the files disk cannot be read')
  }
  const api = await buildApi({ config: testConfig(t, { SENTRY_DSN: tracker.dsn() }), db: await openTestDatabase(t), buildInfo: testBuildInfo, authCoreUrl: 'http://127.0.0.1:9', fileStorage: storage })
  await api.ready()
  t.teardown(() => api.close())
  await api.errorReporter!.flush()
  const event = await within(tracker.waitForEvent((e) => e.tags?.task === 'files-sweep'))
  t.equal(event.tags?.service, 'api')
  t.equal(event.release, testBuildInfo.buildId)
  t.match(event.exception?.values?.[0]?.value ?? '', /files disk cannot be read/)
  t.notOk(event.tags?.request_id, 'no request behind it')
})
