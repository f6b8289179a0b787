import t from 'tap'
import { FLAP_MS, OutageLog } from '../../../server/http/outage-log.ts'

// PostgreSQL stopped for 20 s wrote about 6,000 error lines. An outage is one warn line
// when it begins and one info line when it ends, whatever the number of calls that failed; a
// database that flaps for a few seconds as it comes back is still that one outage. The clock is
// the test's.

function harness() {
  let now = Date.UTC(2026, 10, 27, 12)
  const lines: Array<{ level: 'warn' | 'info'; fields: Record<string, unknown>; message: string }> = []
  const log = new OutageLog(
    { warn: (fields, message) => lines.push({ level: 'warn', fields, message }), info: (fields, message) => lines.push({ level: 'info', fields, message }) },
    'database',
    () => now,
  )
  return { log, lines, advance: (ms: number) => (now += ms) }
}

t.test('an outage is one warn line with the cause, and one info line when the first call succeeds again', async (t) => {
  const { log, lines, advance } = harness()
  log.reached()
  t.same(lines, [], 'calls that succeed write nothing')
  t.equal(log.down, false)
  log.unreachable('ECONNREFUSED')
  t.same(lines, [{ level: 'warn', fields: { outage: 'database', cause: 'ECONNREFUSED' }, message: 'database unreachable' }])
  t.equal(log.down, true)
  for (let i = 0; i < 5_999; i++) {
    advance(3)
    log.unreachable(i % 2 ? 'ECONNREFUSED' : '57P01')
  }
  t.equal(lines.length, 1, '6,000 failed calls, one line')
  log.reached()
  t.equal(log.down, false)
  t.same(lines[1], { level: 'info', fields: { outage: 'database', downMs: 17_997, failures: 6_000 }, message: 'database reachable again' })
  log.reached()
  t.equal(lines.length, 2, 'later successes write nothing')
})

t.test('failures within the flap window after the end belong to that outage; from its edge on they begin a new one', async (t) => {
  const { log, lines, advance } = harness()
  log.unreachable('ECONNREFUSED')
  advance(20_000)
  log.reached()
  t.equal(lines.length, 2)
  advance(FLAP_MS - 1)
  log.unreachable('57P03')
  t.equal(lines.length, 2, `a failure ${FLAP_MS - 1} ms after the end is the outage flapping: not written`)
  t.equal(log.down, false)
  log.reached()
  t.equal(lines.length, 2, 'nor is its end')
  advance(1)
  log.unreachable('ECONNREFUSED')
  t.equal(lines.length, 3, `a failure ${FLAP_MS} ms after the end begins a new outage`)
  t.same(lines[2], { level: 'warn', fields: { outage: 'database', cause: 'ECONNREFUSED' }, message: 'database unreachable' })
  advance(1_500)
  log.reached()
  t.same(lines[3], { level: 'info', fields: { outage: 'database', downMs: 1_500, failures: 1 }, message: 'database reachable again' })
})

t.test('failures that go on past the flap window are never silent', async (t) => {
  const { log, lines, advance } = harness()
  log.unreachable('ECONNREFUSED')
  advance(100)
  log.reached()
  for (let elapsed = 0; elapsed < FLAP_MS; elapsed += 1_000) {
    log.unreachable('ECONNREFUSED')
    advance(1_000)
  }
  t.equal(lines.length, 2, 'the flap itself is not written')
  log.unreachable('ECONNREFUSED')
  t.equal(lines.length, 3, 'the first failure past the window is the next outage')
  t.equal(lines[2]!.level, 'warn')
  t.equal(log.down, true)
})

t.test('each log is its own: another dependency, another state', async (t) => {
  const { log, lines } = harness()
  const api: string[] = []
  const other = new OutageLog({ warn: (_fields, message) => api.push(message), info: (_fields, message) => api.push(message) }, 'product API', () => 0)
  log.unreachable('ECONNREFUSED')
  other.reached()
  t.equal(log.down, true)
  t.same(api, [])
  other.unreachable('UND_ERR_CONNECT_TIMEOUT')
  t.same(api, ['product API unreachable'])
  t.equal(lines.length, 1)
})
