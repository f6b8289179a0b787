import type { AddressInfo } from 'node:net'
import t from 'tap'
import { buildBff } from '../../../server/bff/app.ts'
import { freePort, buildStack, testBuildInfo, testConfig, TEST_AUTH_CORE_API_KEY } from '../../helpers.ts'
import { haproxyMissing, requestFrom, startHaproxy } from '../../haproxy.ts'

// Every form of TRUST_PROXY through a real proxy hop. HAProxy on loopback adds
// X-Forwarded-For (`option forwardfor`) as compose.yaml's balancer does; two visitors, at
// 127.0.0.2 and 127.0.0.3, must each have their own rate-limit budget, and a visitor who writes
// an X-Forwarded-For of their own must not escape theirs. On main a hop count (compose.yaml's
// TRUST_PROXY=1, the README's 2 behind TLS) counted every visitor as the balancer.

const VISITOR = '127.0.0.2'
const OTHER_VISITOR = '127.0.0.3'
/** The address the "TLS terminator" in front of the balancer connects from (two-hop chains). */
const EDGE = '127.0.0.5'
/** The address the balancer connects to the BFFs from. */
const BALANCER = '127.0.0.6'
const LIMIT = 2

t.test('TRUST_PROXY through HAProxy: each visitor has a budget of their own; a forged X-Forwarded-For escapes none', { skip: haproxyMissing }, async (t) => {
  // One database and API; a BFF per form of TRUST_PROXY, each counting in memory.
  const stack = await buildStack(t, { env: { RATE_LIMIT_MAX: String(LIMIT) } })
  const forms = ['false', '1', '2', 'true', BALANCER, `${EDGE}/32, 127.0.0.6`, '127.0.0.4/30'] as const
  const bffPorts = new Map<string, number>()
  for (const form of forms) {
    const bff = form === 'false' ? stack.bff : await buildBff({
      config: testConfig(t, { RATE_LIMIT_MAX: String(LIMIT), TRUST_PROXY: form }),
      db: stack.db,
      buildInfo: testBuildInfo,
      upstreamApiUrl: stack.apiUrl,
      authCoreUrl: 'http://127.0.0.1:9',
      authCoreApiKey: TEST_AUTH_CORE_API_KEY,
    })
    if (bff !== stack.bff) t.teardown(() => bff.close())
    await bff.listen({ host: '127.0.0.1', port: 0 })
    bffPorts.set(form, (bff.server.address() as AddressInfo).port)
  }

  // Per form: a balancer frontend (one hop), and for the two-hop forms an edge in front of it.
  const front = new Map<string, number>()
  const lines = ['global', '  maxconn 256', 'defaults', '  mode http', '  timeout connect 2s', '  timeout client 10s', '  timeout server 10s']
  const ports: number[] = []
  for (const [index, form] of forms.entries()) {
    const balancerPort = await freePort()
    ports.push(balancerPort)
    lines.push(
      `frontend balancer${index}`,
      `  bind 127.0.0.1:${balancerPort}`,
      // With TRUST_PROXY=true the leftmost address is believed: only a proxy that drops what the
      // client sent may be trusted that way (README).
      ...(form === 'true' ? ['  http-request del-header x-forwarded-for'] : []),
      '  option forwardfor',
      `  default_backend bff${index}`,
      `backend bff${index}`,
      `  server bff 127.0.0.1:${bffPorts.get(form)} source ${BALANCER}`,
    )
    front.set(form, balancerPort)
    if (form === '2' || form.includes('/')) {
      const edgePort = await freePort()
      ports.push(edgePort)
      lines.push(
        `frontend edge${index}`,
        `  bind 127.0.0.1:${edgePort}`,
        '  option forwardfor',
        `  default_backend balancer${index}`,
        `backend balancer${index}`,
        `  server balancer 127.0.0.1:${balancerPort} source ${EDGE}`,
      )
      front.set(form, edgePort)
    }
  }
  await startHaproxy(t, lines, ports)

  for (const form of forms) {
    if (form === 'false') continue
    await t.test(`TRUST_PROXY=${form}`, async (t) => {
      const port = front.get(form)!
      const version = (from: string, headers: Record<string, string> = {}) => requestFrom(from, port, '/api/version', headers)
      for (let i = 0; i < LIMIT; i++) t.equal((await version(VISITOR)).status, 200, `request ${i + 1} of the visitor`)
      const limited = await version(VISITOR)
      t.equal(limited.status, 429, 'the visitor has spent their budget')
      t.equal(JSON.parse(limited.body).code, 'BFF_RATE_LIMITED')
      t.equal((await version(VISITOR, { 'x-forwarded-for': '203.0.113.77' })).status, 429, 'a forged X-Forwarded-For does not give them another')
      t.equal((await version(VISITOR, { 'x-forwarded-for': `${OTHER_VISITOR}, 203.0.113.78` })).status, 429, 'nor does naming another visitor')
      t.equal((await version(OTHER_VISITOR)).status, 200, 'another visitor has a budget of their own')
    })
  }

  await t.test('TRUST_PROXY=false: a direct client\'s X-Forwarded-For is not believed; behind a proxy every visitor is the proxy', async (t) => {
    const direct = bffPorts.get('false')!
    const statuses = []
    for (let i = 0; i <= LIMIT; i++) statuses.push((await requestFrom(VISITOR, direct, '/api/version', { 'x-forwarded-for': `198.51.100.${i + 1}` })).status)
    t.same(statuses, [200, 200, 429], 'three requests naming three addresses share one budget')
    const proxied = front.get('false')!
    t.equal((await requestFrom(VISITOR, proxied, '/api/version')).status, 200)
    t.equal((await requestFrom(VISITOR, proxied, '/api/version')).status, 200)
    t.equal((await requestFrom(OTHER_VISITOR, proxied, '/api/version')).status, 429, 'the balancer\'s budget is everyone\'s')
  })
})
