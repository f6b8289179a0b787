import t from 'tap'
import { tempDir } from '../helpers.ts'
import { exited, signedUpTab, startApp, until } from './support.ts'

// SIGTERM under load: people keep adding and removing library items while the app is
// told to stop. It stops accepting, finishes what it took, exits 0 within its grace period, and
// after a start on the same data every acknowledged write is there (every acknowledged add is in
// the library, every acknowledged remove is gone). Needs dist/ (npm test builds it first).

const PEOPLE = 6
const PROGRAMS = ['blender', 'gimp', 'inkscape', 'vlc', 'audacity', 'krita', 'libreoffice', 'firefox']

type Known = 'in' | 'out' | 'unknown'

t.test('SIGTERM while writes flow: graceful exit 0, and nothing acknowledged is lost', async (t) => {
  const dataDir = tempDir(t)
  const app = await startApp(t, dataDir, { RATE_LIMIT_MAX: '1000000', SHUTDOWN_TIMEOUT_MS: '10000' })
  const tabs: Array<Awaited<ReturnType<typeof signedUpTab>>> = []
  for (let i = 0; i < PEOPLE; i++) tabs.push(await signedUpTab(app, dataDir, `writer${i}@example.com`))
  const catalogue = (await (await tabs[0]!.get('/api/programs?pageSize=100')).json()) as { items: Array<{ id: string }> }
  const programs = PROGRAMS.filter((id) => catalogue.items.some((item) => item.id === id))
  t.ok(programs.length >= 4, `programs to write: ${programs.join(', ')}`)

  // Each person writes one request at a time, so the last acknowledged write of a program is its state.
  const states = tabs.map(() => new Map<string, Known>())
  /** Each person's writes as they were answered, to say what happened when a check fails. */
  const history = tabs.map(() => [] as string[])
  const answers = { acknowledged: 0, refusedWhileClosing: 0, connectionErrors: 0, other: [] as string[], causes: [] as string[] }
  let stopping = false
  const deadline = Date.now() + 60_000
  const writer = async (person: number) => {
    const browser = tabs[person]!
    const state = states[person]!
    for (let n = 0; Date.now() < deadline; n++) {
      const program = programs[(n + person) % programs.length]!
      const adding = state.get(program) !== 'in'
      try {
        const response = adding ? await browser.post(`/api/user/program/${program}`) : await browser.delete(`/api/user/program/${program}`)
        const body = await response.text()
        history[person]!.push(`${program} ${adding ? 'add' : 'remove'} → ${response.status}${response.ok ? '' : ` ${body.slice(0, 120)}`}${stopping ? ' (stopping)' : ''}`)
        if (response.ok) {
          state.set(program, adding ? 'in' : 'out')
          answers.acknowledged++
        } else if (response.status === 503 && stopping && /"code":"BFF_(SHUTTING_DOWN|OVERLOADED)"/.test(body)) {
          // Refused while closing (in the BFF's error shape, never Fastify's bare 503) or shed: nothing was written.
          // The person does as told and comes back after Retry-After, to the restarted app below. A
          // client that ignores it and hammers past the drain may meet the listener's close (shutdown.ts).
          answers.refusedWhileClosing++
          return
        } else {
          state.set(program, 'unknown')
          answers.other.push(`${response.status} ${adding ? 'add' : 'remove'}${stopping ? ' while stopping' : ''}`)
        }
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause
        history[person]!.push(`${program} ${adding ? 'add' : 'remove'} → no answer: ${(error as Error).message}${stopping ? ' (stopping)' : ''}`)
        answers.causes.push(cause?.code ?? cause?.message ?? (error as Error).message)
        // No answer: the write may or may not have happened. Only once the app stops accepting.
        state.set(program, 'unknown')
        answers.connectionErrors++
        if (!stopping) answers.other.push('connection error before SIGTERM')
        if (stopping) return
      }
    }
  }
  const writers = tabs.map((_tab, person) => writer(person))

  await until('writes to flow', async () => (answers.acknowledged >= PEOPLE * 10 ? true : undefined), 30_000)
  const before = answers.acknowledged
  stopping = true
  const signalled = Date.now()
  app.child.kill('SIGTERM')
  const code = await exited(app.child, 20_000)
  const tookMs = Date.now() - signalled
  await Promise.all(writers)
  t.equal(code, 0, 'the app exits 0')
  t.ok(tookMs < 11_000, `within the grace period (${tookMs} ms)`)
  t.same(answers.other, [], 'no write failed other than by the app stopping')
  // A write without an answer met a closed connection or a closed listener, never a reset.
  t.same(answers.causes.filter((cause) => /ECONNRESET|EPIPE/.test(cause)), [], `no write met a reset (no answer: ${answers.causes.join(', ') || 'none'})`)
  t.ok(answers.acknowledged >= before, `acknowledged writes: ${answers.acknowledged}; refused while closing: ${answers.refusedWhileClosing}; no answer: ${answers.connectionErrors}`)

  // The same data, a new process: every person's library is what their acknowledged writes made it.
  const again = await startApp(t, dataDir, { PORT: app.env.PORT!, API_PORT: app.env.API_PORT!, AUTH_CORE_PORT: app.env.AUTH_CORE_PORT!, APP_URL: app.env.APP_URL! })
  let checked = 0
  for (const [person, browser] of tabs.entries()) {
    const ids = new Set(((await (await browser.get('/api/user/program-ids')).json()) as { programIds: string[] }).programIds)
    for (const [program, known] of states[person]!) {
      if (known === 'unknown') continue
      checked++
      t.equal(ids.has(program), known === 'in', `writer${person}: ${program} ${known === 'in' ? 'added' : 'removed'}, as acknowledged`, {
        history: history[person]!.filter((line) => line.startsWith(`${program} `)).slice(-4),
      })
    }
  }
  t.ok(checked >= PEOPLE * 2, `${checked} acknowledged library states checked after the restart`)
  again.child.kill('SIGTERM')
  t.equal(await exited(again.child), 0)
})
