import t from 'tap'
import { buildStack } from '../../helpers.ts'

t.test('per-IP rate limit answers 429 JSON with retry-after; a forged X-Forwarded-For changes nothing', async (t) => {
  const { bff } = await buildStack(t, { env: { RATE_LIMIT_MAX: '3' } })
  for (let i = 0; i < 3; i++) {
    const ok = await bff.inject({ url: '/api/version', headers: { 'x-forwarded-for': `10.0.0.${i}` } })
    t.equal(ok.statusCode, 200)
  }
  const limited = await bff.inject({ url: '/api/version', headers: { 'x-forwarded-for': '10.9.9.9' } })
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().code, 'BFF_RATE_LIMITED')
  t.match(limited.json().message, /Too many requests/)
  t.ok(Number(limited.headers['retry-after']) > 0)
  const page = await bff.inject('/')
  t.equal(page.statusCode, 429, 'pages count too')
  const asset = await bff.inject('/healthz')
  t.equal(asset.statusCode, 200, 'probes are exempt')
})

t.test('behind a trusted proxy the client address decides', async (t) => {
  const { bff } = await buildStack(t, { env: { RATE_LIMIT_MAX: '2', TRUST_PROXY: '127.0.0.1' } })
  const from = (ip: string) => bff.inject({ url: '/api/version', headers: { 'x-forwarded-for': ip } })
  t.equal((await from('203.0.113.1')).statusCode, 200)
  t.equal((await from('203.0.113.1')).statusCode, 200)
  t.equal((await from('203.0.113.1')).statusCode, 429)
  t.equal((await from('203.0.113.2')).statusCode, 200, 'another client has its own budget')
})
