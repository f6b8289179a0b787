import t from 'tap'
import { loadConfig, parseSentryDsn } from '../../../server/config.ts'
import { redactText, redactUrl, scrubReport } from '../../../shared/redaction.ts'

// What error reports and logs never carry (SECURITY.md), and SENTRY_DSN's checks.

t.test('scrubReport drops secrets by name, request bodies, cookies and headers, and redacts free text', async (t) => {
  const event = {
    message: 'failed for canary@example.com: password=hunter2 Bearer abc.def',
    request: { url: '/verify?token=T1&email=a%40b.c&page=2', method: 'POST', data: { password: 'P' }, cookies: { sAccessToken: 'C' }, headers: { authorization: 'Bearer X' } },
    user: { id: 'u1', email: 'u@example.com', ip_address: '10.0.0.1', username: 'someone' },
    extra: { nested: { refreshToken: 'R', apiKey: 'K', note: 'jwt eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1MSJ9.sig_nature-1 here' } },
    breadcrumbs: [{ category: 'fetch', data: { url: 'https://x.test/?access_token=Z' } }],
  }
  const scrubbed = scrubReport(event)
  t.same(scrubbed, {
    message: 'failed for [email]: password=[redacted] Bearer [redacted]',
    request: { url: '/verify?token=[redacted]&email=[redacted]&page=2', method: 'POST' },
    user: { id: 'u1', email: '[redacted]', ip_address: '[redacted]', username: '[redacted]' },
    extra: { nested: { refreshToken: '[redacted]', apiKey: '[redacted]', note: 'jwt [redacted] here' } },
    breadcrumbs: [{ category: 'fetch', data: { url: 'https://x.test/?access_token=[redacted]' } }],
  })
  t.equal(event.request.cookies.sAccessToken, 'C', 'the original is left as it was')
})

t.test('the logger and the reports share the secret query parameters', async (t) => {
  t.equal(redactUrl('/reset-password?token=abc&tenantId=public'), '/reset-password?token=[redacted]&tenantId=public')
  t.equal(redactText('sAccessToken=abc; other=1'), 'sAccessToken=[redacted]; other=1')
})

t.test('SENTRY_DSN: a public-key DSN, written one way; SENTRY_ENVIRONMENT defaults to NODE_ENV', async (t) => {
  t.same(parseSentryDsn('https://abc123@o1.ingest.sentry.io/42'), { dsn: 'https://abc123@o1.ingest.sentry.io/42', envelopeUrl: 'https://o1.ingest.sentry.io/api/42/envelope/' })
  t.same(parseSentryDsn('http://key@127.0.0.1:9000/sentry/7/'), { dsn: 'http://key@127.0.0.1:9000/sentry/7', envelopeUrl: 'http://127.0.0.1:9000/sentry/api/7/envelope/' })
  for (const bad of ['not a url', 'https://o1.ingest.sentry.io/42', 'https://pub:secret@o1.ingest.sentry.io/42', 'https://abc@o1.ingest.sentry.io/project', 'ftp://abc@host/1', 'https://abc@host/1?x=1']) {
    t.equal(parseSentryDsn(bad), undefined, bad)
  }
  t.equal(loadConfig({ NODE_ENV: 'production' }).sentry, undefined, 'off without a DSN')
  t.same(loadConfig({ NODE_ENV: 'production', SENTRY_DSN: 'https://abc@o1.ingest.sentry.io/42' }).sentry?.environment, 'production')
  t.throws(() => loadConfig({ SENTRY_DSN: 'https://pub:secret@o1.ingest.sentry.io/42' }), /SENTRY_DSN must be a DSN.*pub:\*\*\*@/)
  t.throws(() => loadConfig({ SENTRY_ENVIRONMENT: 'staging' }), /SENTRY_DSN is required with SENTRY_ENVIRONMENT/)
  t.throws(() => loadConfig({ SENTRY_DSN: 'https://abc@o1.ingest.sentry.io/42', SENTRY_ENVIRONMENT: 'a b' }), /SENTRY_ENVIRONMENT must be/)
})
