import t from 'tap'
import { buildStack, LogCapture, openTestDatabase, probedDatabase } from '../../helpers.ts'

// /readyz of the BFF: it is not rate limited, so what it found of the database and the
// product API is kept for a second; however often it is asked, they see one probe a second.
// An outage of either — shared by every instance — is reported, not a reason to fail:
// every BFF out of the load balancer at once answered HAProxy's bare 503 page instead of theirs.

t.test('/readyz probes the database and the API at most once a second, and reports an outage without failing', async (t) => {
  const probed = probedDatabase(await openTestDatabase(t))
  const apiLog = new LogCapture()
  let now = 1_700_000_000_000
  const stack = await buildStack(t, { db: probed.db, env: { LOG_LEVEL: 'debug' }, apiLogStream: apiLog, now: () => now })
  // The API's request lines count its probes: at debug, since at info a probe writes none.
  const apiProbes = () => apiLog.lines.filter((line) => line.includes('"request completed"') && line.includes('"url":"/healthz"')).length
  const ready = async () => (await stack.bff.inject('/readyz')).statusCode

  const first = await stack.bff.inject('/readyz')
  t.equal(first.statusCode, 200)
  t.same(first.json(), { status: 'ok', dependencies: { database: 'ok', productApi: 'ok' } })
  const db = probed.probes()
  t.equal(db, 1, 'the first call probes the database')
  t.equal(apiProbes(), 1, 'and the API')
  now += 999
  for (let i = 0; i < 5; i++) t.equal(await ready(), 200)
  t.equal(probed.probes(), db, 'within the second: no database probe')
  t.equal(apiProbes(), 1, 'and no API probe')
  now += 2
  t.equal(await ready(), 200)
  t.equal(probed.probes(), db + 1, 'after the second: probed again')
  t.equal(apiProbes(), 2)

  probed.down(true)
  now += 1_001
  const down = await stack.bff.inject('/readyz')
  t.equal(down.statusCode, 200, 'a database outage keeps the instance in the balancer: its own 503s answer for it')
  t.same(down.json(), { status: 'ok', dependencies: { database: 'unreachable', productApi: 'ok' } }, 'and is reported')
  probed.down(false)
  t.same((await stack.bff.inject('/readyz')).json().dependencies.database, 'unreachable', 'what was found is kept for the second')
  t.equal(probed.probes(), db + 2)
  now += 1_001
  t.same((await stack.bff.inject('/readyz')).json().dependencies.database, 'ok', 'then asked again')
})

t.test('/readyz reports the product API unreachable and still answers 200', async (t) => {
  const stack = await buildStack(t, { upstreamApiUrl: 'http://127.0.0.1:9' })
  const ready = await stack.bff.inject('/readyz')
  t.equal(ready.statusCode, 200)
  t.same(ready.json(), { status: 'ok', dependencies: { database: 'ok', productApi: 'unreachable' } })
  const proxied = await stack.bff.inject('/api/programs')
  t.equal(proxied.statusCode, 503, 'an /api call is answered by the BFF')
  t.equal(proxied.json().code, 'BFF_UPSTREAM_UNAVAILABLE')
  t.ok(Number(proxied.headers['retry-after']) > 0, 'with Retry-After')
})

t.test('the API\'s /readyz reports its database and file storage, and an outage without failing', async (t) => {
  const probed = probedDatabase(await openTestDatabase(t))
  let now = 1_700_000_000_000
  const stack = await buildStack(t, { db: probed.db, now: () => now })
  const ready = await stack.api.inject('/readyz')
  t.equal(ready.statusCode, 200)
  t.same(ready.json(), { status: 'ok', dependencies: { database: 'ok', fileStorage: 'ok' } })
  probed.down(true)
  now += 1_001
  const down = await stack.api.inject('/readyz')
  t.equal(down.statusCode, 200)
  t.same(down.json(), { status: 'ok', dependencies: { database: 'unreachable', fileStorage: 'ok' } })
})

t.test('the auth core\'s /readyz: no API key, its database reported, an outage without failing', async (t) => {
  const probed = probedDatabase(await openTestDatabase(t))
  let now = Date.now()
  const stack = await buildStack(t, { db: probed.db, auth: true, coreNow: () => now })
  const ready = await stack.authCore!.inject('/readyz')
  t.equal(ready.statusCode, 200, 'answered without the API key the CDI asks for')
  t.same(ready.json(), { status: 'ok', dependencies: { database: 'ok' } })
  t.equal((await stack.authCore!.inject('/apiversion')).statusCode, 401, 'the CDI still asks for it')
  probed.down(true)
  now += 1_001
  const down = await stack.authCore!.inject('/readyz')
  t.equal(down.statusCode, 200)
  t.same(down.json(), { status: 'ok', dependencies: { database: 'unreachable' } })
})
