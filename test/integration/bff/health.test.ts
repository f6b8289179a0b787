import t from 'tap'
import { buildStack, LogCapture, openTestDatabase, probedDatabase } from '../../helpers.ts'

// /readyz of the BFF (issue 17): it is not rate limited, so its answer, ok or not, is kept for a
// second; however often it is asked, the database and the product API see one probe a second.

t.test('/readyz probes the database and the API at most once a second, and keeps a failure as long', async (t) => {
  const probed = probedDatabase(await openTestDatabase(t))
  const apiLog = new LogCapture()
  let now = 1_700_000_000_000
  const stack = await buildStack(t, { db: probed.db, env: { LOG_LEVEL: 'info' }, apiLogStream: apiLog, now: () => now })
  const apiProbes = () => apiLog.lines.filter((line) => line.includes('"incoming request"') && line.includes('"url":"/healthz"')).length
  const ready = async () => (await stack.bff.inject('/readyz')).statusCode

  t.equal(await ready(), 200)
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
  t.equal(down.statusCode, 503)
  t.equal(down.json().code, 'BFF_NOT_READY')
  probed.down(false)
  t.equal(await ready(), 503, 'the failure is kept for the second')
  t.equal(probed.probes(), db + 2)
  now += 1_001
  t.equal(await ready(), 200, 'then asked again')
})
