import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import t, { type Test } from 'tap'
import { DROPPED_LINES_WARNING_MS, DroppedLogLines, droppedLogLines } from '../../../server/http/logger.ts'
import { ServiceMetrics } from '../../../server/http/metrics.ts'

/** A destination like the process's, to a file, that may hold only `maxLength` bytes unwritten. */
function destination(t: Test, maxLength: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'dropped-lines-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'out.log')
  const stream = pino.destination({ dest: file, sync: false, maxLength, mkdir: true })
  return { stream, file, ready: new Promise<void>((resolve) => stream.once('ready', () => resolve())) }
}

const line = (n: number) => `${JSON.stringify({ level: 30, n, msg: 'a line of the log' })}\n`

/** Ends the stream once all it holds is written. */
const ended = (stream: ReturnType<typeof pino.destination>) =>
  new Promise<void>((resolve) => {
    stream.once('close', () => resolve())
    stream.end()
  })

t.test('lines past the unwritten limit are counted, and standard error hears of it once a minute at most', async (t) => {
  let clock = 1_000_000
  const warnings: string[] = []
  const dropped = new DroppedLogLines((text) => warnings.push(text), () => clock)

  const first = destination(t, 200)
  await first.ready
  dropped.watch(first.stream)
  // Written in one go, as a burst of requests would: the first goes to the file, the next wait
  // behind it until 200 bytes are waiting, the rest are dropped.
  for (let n = 0; n < 20; n++) first.stream.write(line(n))
  await ended(first.stream)
  const written = readFileSync(first.file, 'utf8').split('\n').filter(Boolean).length
  t.ok(dropped.count > 0, 'some lines were dropped')
  t.equal(written + dropped.count, 20, `every line was either written or counted as dropped (${written} written, ${dropped.count} dropped)`)
  t.equal(warnings.length, 1, 'one warning for the burst')
  const warning = JSON.parse(warnings[0]!) as { level: number; event: string; dropped: number; msg: string }
  t.equal(warning.level, 40)
  t.equal(warning.event, 'log-lines-dropped')
  t.equal(warning.dropped, 1, 'the total at the first line dropped')
  t.match(warning.msg, /standard output is not read/)

  // Within the minute: counted, not said again; past it, said again with the total.
  const second = destination(t, 200)
  await second.ready
  dropped.watch(second.stream)
  clock += DROPPED_LINES_WARNING_MS - 1
  const beforeSecond = dropped.count
  for (let n = 0; n < 20; n++) second.stream.write(line(n))
  t.ok(dropped.count > beforeSecond)
  t.equal(warnings.length, 1)
  clock += 1
  const beforeThird = dropped.count
  for (let n = 0; n < 20; n++) second.stream.write(line(n))
  t.equal(warnings.length, 2)
  t.equal((JSON.parse(warnings[1]!) as { dropped: number }).dropped, beforeThird + 1)
  await ended(second.stream)
})

t.test("the process's count is what /metrics reports as softshelf_log_lines_dropped_total", async (t) => {
  const { stream, ready } = destination(t, 100)
  await ready
  const before = droppedLogLines.count
  droppedLogLines.watch(stream)
  for (let n = 0; n < 10; n++) stream.write(line(n))
  const added = droppedLogLines.count - before
  t.ok(added > 0)
  const text = await new ServiceMetrics('bff').text()
  t.match(text, new RegExp(`^softshelf_log_lines_dropped_total ${droppedLogLines.count}$`, 'm'))
  await ended(stream)
})
