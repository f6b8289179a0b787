// `BENCH_ONLY=load npm run bench`: a real site's mix, not one route hammered. The built
// app runs as an operator runs it — `node dist/server/main.js authcore`, `… api`, `… bff`, three
// processes on a throwaway PostgreSQL — and 200 virtual users, each with its own verified account
// and cookie jar, loop for BENCH_LOAD_DURATION seconds (default 60) over rendered pages, search,
// their library (read, add, remove), signing out and in again, and accepting the terms.
// Run 1 is the mix alone; run 2 is the same mix while the API is sent SIGTERM at 20 s and started
// again at once. Every acknowledged (2xx) library write is logged; afterwards the library rows are
// read straight from PostgreSQL: a program whose last acknowledged operation was an add must be
// there, one whose last was a remove must not.
// Budgets: run 1 — every answer 2xx, no socket error, no lost write; run 2 — non-2xx answers only
// 502/503/504 and only between the SIGTERM and one second after the new API's /readyz said 200,
// no socket error toward the BFF, no lost write. p95 per route is reported, not budgeted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { Agent, request } from 'undici'
import { freePort, newestPostgresBin, startPostgres } from '../scripts/throwaway-postgres.ts'
import { verifiedUser } from './bench-user.ts'
import { startSmtpServer } from '../test/smtp-server.ts'

const here = fileURLToPath(import.meta.url)
const root = path.resolve(path.dirname(here), '..')
const VUS = Number(process.env.BENCH_LOAD_VUS ?? 200)
const DURATION_S = Number(process.env.BENCH_LOAD_DURATION ?? 60)
/** When run 2 stops the API: 20 s into the run, or a third of a shorter run. */
const RESTART_AT_S = Math.min(20, DURATION_S / 3)
/** How long after the new API is ready upstream errors are still forgiven (the BFF's pool reconnecting). */
const GRACE_MS = 1_000
const PASSWORD = 'a bench password'
const API_KEY = 'bench-core-api-key-0123456789'
/** Upstream failures the BFF answers while the API is away (BFF_UPSTREAM_*, a page's 503). */
const DOWN_STATUSES = new Set([502, 503, 504])
/**
 * Mean pause between a user's iterations (uniform from 0 to twice this), ms. A person reads a page
 * before the next click; with none, 200 loops on a 2-core machine are the overload section's
 * flood, and the shedding answers most requests with 503 as it should.
 */
const THINK_MS = Number(process.env.BENCH_LOAD_THINK_MS ?? 1000)
/**
 * BENCH_LOAD_SHEDDING=off runs the services with OVERLOAD_EVENT_LOOP_DELAY_MS=0 and
 * OVERLOAD_MAX_IN_FLIGHT=0: requests queue instead of being refused, so the run shows whether
 * anything but the shedding fails on a machine too busy for the mix (the budgets stay the same).
 */
const SHEDDING = process.env.BENCH_LOAD_SHEDDING !== 'off'
const SEARCH_TERMS = ['photo', 'studio', 'vis', 'blendr', 'sound', 'data', 'edit', 'code', 'office', 'music', 'player', 'browser']

export const LOAD_BUDGET = { maxUnexpected: 0, maxSocketErrors: 0, maxLostWrites: 0 }

export interface RouteFigures {
  name: string
  count: number
  ok: number
  /** Non-2xx answers by status. */
  byStatus: Record<string, number>
  /** Requests that got no answer, by error code. */
  socketErrors: Record<string, number>
  p50Ms: number
  p95Ms: number
  p99Ms: number
}

export interface WriteCheck {
  adds: number
  removes: number
  /** (user, program) pairs whose state is known: their last attempt was acknowledged. */
  pairsChecked: number
  /** Pairs whose last attempt got no 2xx: it may or may not have happened, so they are not judged. */
  pairsInDoubt: number
  /** "<email> <program>: acknowledged add missing" or "…: acknowledged remove still there". */
  lost: string[]
}

export interface RestartFigures {
  /** Seconds from the run's start. */
  sigtermAtS: number
  oldExitedAtS: number
  readyAtS: number
  downMs: number
  /** Non-2xx answers and socket errors that overlapped [SIGTERM, ready + 1 s], by status or error code. */
  insideWindow: Record<string, number>
  /** The same outside that window: each is a failure. */
  outsideWindow: Record<string, number>
}

export interface RunFigures {
  name: string
  durationS: number
  requests: number
  routes: RouteFigures[]
  writes: WriteCheck
  /** Answers and errors the budget does not allow. */
  unexpected: number
  socketErrors: number
  restart?: RestartFigures
  /** The machine's 1-minute load average at the run's start and end (other work on it shows here). */
  loadAverage: [number, number]
  /** Requests refused by load shedding during the run, per service and reason (from /metrics). */
  shed: Record<string, number>
  pass: boolean
}

export interface LoadFigures {
  vus: number
  /** The services' OVERLOAD_* settings, as they ran. */
  shedding: string
  runs: RunFigures[]
  pass: boolean
}

// ---------------------------------------------------------------------------------------------
// The three processes

interface Service {
  role: 'authcore' | 'api' | 'bff'
  port: number
  child: ChildProcess
}

function roleEnv(common: NodeJS.ProcessEnv, role: Service['role'], port: number): NodeJS.ProcessEnv {
  const variable = role === 'bff' ? 'PORT' : role === 'api' ? 'API_PORT' : 'AUTH_CORE_PORT'
  return { ...common, [variable]: String(port) }
}

function spawnRole(common: NodeJS.ProcessEnv, role: Service['role'], port: number, logDir: string): Service {
  // Each process's log lines (warn and up) go to a file of its own: read after a failed run.
  const log = fs.openSync(path.join(logDir, `${role}.log`), 'a')
  const child = spawn(process.execPath, [path.join(root, 'dist', 'server', 'main.js'), role], { env: roleEnv(common, role, port), stdio: ['ignore', log, log] })
  fs.closeSync(log)
  return { role, port, child }
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

/** Polls `url` until it answers 200; fails when the process exits first or after `limitMs`. */
async function waitFor(url: string, child: ChildProcess, limitMs = 120_000): Promise<void> {
  const started = Date.now()
  while (Date.now() - started < limitMs) {
    if (!running(child)) throw new Error(`${url}: the process exited with ${child.exitCode ?? child.signalCode} before answering`)
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) })
      await response.arrayBuffer()
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${url} did not answer 200 within ${limitMs / 1000} s`)
}

const exited = (child: ChildProcess) => (running(child) ? new Promise<void>((resolve) => child.once('exit', () => resolve())) : Promise.resolve())

// ---------------------------------------------------------------------------------------------
// Virtual users

interface Cookie {
  value: string
  path: string
}

interface WriteOp {
  vu: number
  program: string
  op: 'add' | 'remove'
  /** 2xx: done; refused: shed before any work (…_OVERLOADED), so not done; unknown: anything else. */
  outcome: 'acknowledged' | 'refused' | 'unknown'
}

interface Failure {
  route: string
  /** The status and the body's error code ("503 BFF_OVERLOADED"), or the error's code for a request without answer. */
  what: string
  start: number
  end: number
}

/** What one run records: latencies per route, every failure with its times, every library write. */
class Recorder {
  readonly latencies = new Map<string, number[]>()
  readonly ok = new Map<string, number>()
  readonly failures: Failure[] = []
  requests = 0

  answer(route: string, status: number, code: string | undefined, start: number, end: number): void {
    this.requests++
    const list = this.latencies.get(route) ?? []
    list.push(end - start)
    this.latencies.set(route, list)
    if (status >= 200 && status < 300) this.ok.set(route, (this.ok.get(route) ?? 0) + 1)
    else this.failures.push({ route, what: code ? `${status} ${code}` : String(status), start, end })
  }

  socketError(route: string, code: string, start: number, end: number): void {
    this.requests++
    this.failures.push({ route, what: code, start, end })
  }
}

const isStatus = (what: string) => /^\d{3}\b/.test(what)
const statusOf = (what: string) => Number(what.slice(0, 3))

class VirtualUser {
  readonly cookies = new Map<string, Cookie>()
  /** What this user was told its library holds (acknowledged writes only). */
  readonly library = new Set<string>()

  constructor(
    readonly index: number,
    readonly email: string,
    /** The programs this user adds and removes: few, so the same ones come back often. */
    readonly pool: string[],
  ) {}

  get signedIn(): boolean {
    return this.cookies.has('sAccessToken')
  }

  cookieHeader(urlPath: string): string {
    return [...this.cookies]
      .filter(([, cookie]) => urlPath.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ')
  }

  store(setCookie: string | string[] | undefined): void {
    for (const line of typeof setCookie === 'string' ? [setCookie] : (setCookie ?? [])) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim())
      const at = pair.indexOf('=')
      const name = pair.slice(0, at)
      const value = pair.slice(at + 1)
      const cookiePath = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/'
      const expired = value === '' || attributes.some((a) => /^max-age=0$/i.test(a) || /^expires=.*1970/i.test(a))
      if (expired) this.cookies.delete(name)
      else this.cookies.set(name, { value, path: cookiePath })
    }
  }
}

interface Target {
  base: string
  agent: Agent
  programs: string[]
  categories: string[]
}

async function send(
  target: Target,
  vu: VirtualUser,
  recorder: Recorder,
  route: string,
  method: 'GET' | 'POST' | 'DELETE',
  urlPath: string,
  body?: unknown,
  withSession = true,
): Promise<{ status: number; code: string | undefined } | undefined> {
  const start = performance.now()
  try {
    const response = await request(`${target.base}${urlPath}`, {
      method,
      dispatcher: target.agent,
      headers: {
        ...(withSession ? { cookie: vu.cookieHeader(urlPath) } : {}),
        origin: target.base,
        rid: 'anti-csrf',
        'fdi-version': '4.2',
        accept: urlPath.startsWith('/api/') || urlPath.startsWith('/auth/') ? 'application/json' : 'text/html',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    })
    if (withSession) vu.store(response.headers['set-cookie'])
    const status = response.statusCode
    let code: string | undefined
    // A failure's error code says who refused (the BFF, the API behind it) and why.
    if ((status < 200 || status >= 300) && String(response.headers['content-type']).startsWith('application/json')) {
      code = ((await response.body.json().catch(() => ({}))) as { code?: string }).code
    } else {
      await response.body.dump({ limit: 16 * 2 ** 20 })
    }
    recorder.answer(route, status, code, start, performance.now())
    return { status, code }
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).name
    recorder.socketError(route, code, start, performance.now())
    return undefined
  }
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!

async function signIn(target: Target, vu: VirtualUser, recorder: Recorder): Promise<boolean> {
  const answer = await send(target, vu, recorder, 'POST /auth/signin', 'POST', '/auth/signin', {
    formFields: [
      { id: 'email', value: vu.email },
      { id: 'password', value: PASSWORD },
    ],
  })
  return answer?.status === 200 && vu.signedIn
}

/** One library write; logged whatever its outcome, so a write without answer makes its pair unjudged. */
async function write(target: Target, vu: VirtualUser, recorder: Recorder, writes: WriteOp[], op: 'add' | 'remove', program: string): Promise<void> {
  const entry: WriteOp = { vu: vu.index, program, op, outcome: 'unknown' }
  writes.push(entry)
  const route = op === 'add' ? 'POST /api/user/program/:id' : 'DELETE /api/user/program/:id'
  const answer = await send(target, vu, recorder, route, op === 'add' ? 'POST' : 'DELETE', `/api/user/program/${encodeURIComponent(program)}`)
  if (answer?.status === 503 && answer.code?.endsWith('_OVERLOADED')) entry.outcome = 'refused'
  if (answer?.status === 200) {
    entry.outcome = 'acknowledged'
    if (op === 'add') vu.library.add(program)
    else vu.library.delete(program)
  }
}

/** One iteration of the mix (weights in percent). */
async function iteration(target: Target, vu: VirtualUser, recorder: Recorder, writes: WriteOp[]): Promise<void> {
  const roll = Math.random() * 100
  // A signed-in user's pages are the /@ twins (the public paths redirect there, spec §4); the
  // home page is asked for as a visitor without a session, landing from elsewhere, asks for it.
  if (roll < 8) await send(target, vu, recorder, 'page / (no session)', 'GET', '/', undefined, false)
  else if (roll < 16) await send(target, vu, recorder, 'page /@/library', 'GET', '/@/library')
  else if (roll < 24) await send(target, vu, recorder, 'page /@/library?sort=nameDesc', 'GET', '/@/library?sort=nameDesc')
  else if (roll < 32) await send(target, vu, recorder, 'page /@/programs/:id', 'GET', `/@/programs/${encodeURIComponent(pick(target.programs))}`)
  else if (roll < 40) await send(target, vu, recorder, 'page /@/category/:id', 'GET', `/@/category/${encodeURIComponent(pick(target.categories))}`)
  else if (roll < 60) await send(target, vu, recorder, 'GET /api/programs?q=', 'GET', `/api/programs?q=${encodeURIComponent(pick(SEARCH_TERMS))}`)
  else if (roll < 70) await send(target, vu, recorder, 'GET /api/user/programs', 'GET', '/api/user/programs?pageSize=24')
  else if (roll < 80) await write(target, vu, recorder, writes, 'add', pick(vu.pool))
  else if (roll < 90) await write(target, vu, recorder, writes, 'remove', vu.library.size > 0 ? pick([...vu.library]) : pick(vu.pool))
  else if (roll < 95) {
    await send(target, vu, recorder, 'POST /auth/signout', 'POST', '/auth/signout')
    // Signed out for good only when the answer cleared the cookies; else the session goes on.
    if (!vu.signedIn) await signIn(target, vu, recorder)
  } else await send(target, vu, recorder, 'POST /api/user/accept-tos', 'POST', '/api/user/accept-tos', { isInMailList: Math.random() < 0.5 })
}

async function runUser(target: Target, vu: VirtualUser, recorder: Recorder, writes: WriteOp[], until: number): Promise<void> {
  // People arrive over the first pause's length, as on a site they would be mid-visit, not all in one millisecond.
  if (THINK_MS > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * THINK_MS))
  while (performance.now() < until) {
    // A sign-in that failed (the auth core or the BFF away) is tried again before anything else.
    if (!vu.signedIn) {
      if (!(await signIn(target, vu, recorder))) await new Promise((resolve) => setTimeout(resolve, 100))
      continue
    }
    await iteration(target, vu, recorder, writes)
    if (THINK_MS > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * THINK_MS))
  }
}

// ---------------------------------------------------------------------------------------------
// Checks

/** Every pair's last attempt, against the rows PostgreSQL holds. */
async function checkWrites(databaseUrl: string, users: VirtualUser[], writes: WriteOp[]): Promise<WriteCheck> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const { rows } = await client.query<{ email: string; program_id: string }>('SELECT u.email, p.program_id FROM api.user_programs p JOIN api.users u ON u.id = p.user_id')
  await client.end()
  const present = new Set(rows.map((row) => `${row.email} ${row.program_id}`))
  // A user's writes are sequential (one loop each), so the log's order is the order they happened
  // in; a write refused before any work did not happen.
  const last = new Map<string, WriteOp>()
  for (const op of writes) if (op.outcome !== 'refused') last.set(`${users[op.vu]!.email} ${op.program}`, op)
  const check: WriteCheck = {
    adds: writes.filter((op) => op.outcome === 'acknowledged' && op.op === 'add').length,
    removes: writes.filter((op) => op.outcome === 'acknowledged' && op.op === 'remove').length,
    pairsChecked: 0,
    pairsInDoubt: 0,
    lost: [],
  }
  for (const [pair, op] of last) {
    if (op.outcome !== 'acknowledged') {
      check.pairsInDoubt++
      continue
    }
    check.pairsChecked++
    if (op.op === 'add' && !present.has(pair)) check.lost.push(`${pair}: acknowledged add missing`)
    if (op.op === 'remove' && present.has(pair)) check.lost.push(`${pair}: acknowledged remove still there`)
  }
  return check
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

function routeFigures(recorder: Recorder): RouteFigures[] {
  const names = new Set([...recorder.latencies.keys(), ...recorder.failures.map((f) => f.route)])
  return [...names].sort().map((name) => {
    const sorted = (recorder.latencies.get(name) ?? []).sort((a, b) => a - b)
    const failures = recorder.failures.filter((f) => f.route === name)
    const tally = (list: Failure[]) => list.reduce<Record<string, number>>((all, f) => ({ ...all, [f.what]: (all[f.what] ?? 0) + 1 }), {})
    return {
      name,
      count: sorted.length + failures.filter((f) => !isStatus(f.what)).length,
      ok: recorder.ok.get(name) ?? 0,
      byStatus: tally(failures.filter((f) => isStatus(f.what))),
      socketErrors: tally(failures.filter((f) => !isStatus(f.what))),
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      p99Ms: percentile(sorted, 99),
    }
  })
}

// ---------------------------------------------------------------------------------------------

interface Stack {
  common: NodeJS.ProcessEnv
  logDir: string
  databaseUrl: string
  services: Map<Service['role'], Service>
}

/** Stops the API, starts it again at once on the same port, and says when it answered /readyz again. */
async function restartApi(stack: Stack, t0: number): Promise<Omit<RestartFigures, 'insideWindow' | 'outsideWindow'>> {
  const old = stack.services.get('api')!
  const sigtermAt = performance.now()
  old.child.kill('SIGTERM')
  let fresh = spawnRole(stack.common, 'api', old.port, stack.logDir)
  stack.services.set('api', fresh)
  await exited(old.child)
  const oldExitedAt = performance.now()
  // Polled only once the old process is gone, so an answer can come from the new one alone. Started
  // while the old one still held the port, the new one may have given up: it is started again.
  for (let attempt = 1; ; attempt++) {
    if (!running(fresh.child)) {
      fresh = spawnRole(stack.common, 'api', old.port, stack.logDir)
      stack.services.set('api', fresh)
    }
    try {
      await waitFor(`http://127.0.0.1:${old.port}/readyz`, fresh.child)
      break
    } catch (error) {
      if (attempt === 3) throw error
    }
  }
  const readyAt = performance.now()
  return { sigtermAtS: (sigtermAt - t0) / 1000, oldExitedAtS: (oldExitedAt - t0) / 1000, readyAtS: (readyAt - t0) / 1000, downMs: readyAt - sigtermAt }
}

/** softshelf_http_shed_total of the BFF and the API, "<service> <reason>" → count (the API's since its start). */
async function shedCounts(stack: Stack): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const role of ['bff', 'api'] as const) {
    const response = await fetch(`http://127.0.0.1:${stack.services.get(role)!.port}/metrics`, { headers: { authorization: `Bearer ${stack.common.OPERATOR_TOKEN}` } })
    for (const [, reason, service, value] of (await response.text()).matchAll(/^softshelf_http_shed_total\{reason="([^"]+)",service="([^"]+)"\} (\d+)/gm)) {
      counts[`${service} ${reason}`] = Number(value)
    }
  }
  return counts
}

async function run(name: string, stack: Stack, target: Target, users: VirtualUser[], writes: WriteOp[], withRestart: boolean): Promise<RunFigures> {
  const recorder = new Recorder()
  const shedBefore = await shedCounts(stack)
  const loadBefore = os.loadavg()[0]!
  const t0 = performance.now()
  const until = t0 + DURATION_S * 1000
  const loops = Promise.all(users.map((vu) => runUser(target, vu, recorder, writes, until)))
  let restart: Omit<RestartFigures, 'insideWindow' | 'outsideWindow'> | undefined
  if (withRestart) {
    await new Promise((resolve) => setTimeout(resolve, RESTART_AT_S * 1000))
    restart = await restartApi(stack, t0)
  }
  await loops
  const durationS = (performance.now() - t0) / 1000
  const shedAfter = await shedCounts(stack)
  // The API restarted in run 2 counts from zero again: its counts are then since the restart.
  const shed = Object.fromEntries(Object.entries(shedAfter).map(([key, value]) => [key, withRestart && key.startsWith('api') ? value : value - (shedBefore[key] ?? 0)]))
  const routes = routeFigures(recorder)
  const checked = await checkWrites(stack.databaseUrl, users, writes)
  const socketErrors = recorder.failures.filter((f) => !isStatus(f.what)).length
  let unexpected = recorder.failures.length
  let restartFigures: RestartFigures | undefined
  if (restart) {
    const from = t0 + restart.sigtermAtS * 1000
    const to = t0 + restart.readyAtS * 1000 + GRACE_MS
    const tally = (list: Failure[]) => list.reduce<Record<string, number>>((all, f) => ({ ...all, [f.what]: (all[f.what] ?? 0) + 1 }), {})
    const inside = recorder.failures.filter((f) => f.end >= from && f.start <= to)
    const outside = recorder.failures.filter((f) => !(f.end >= from && f.start <= to))
    restartFigures = { ...restart, insideWindow: tally(inside), outsideWindow: tally(outside) }
    // While the API is away: upstream failures are the answer; a socket error toward the BFF never is.
    unexpected = outside.length + inside.filter((f) => !DOWN_STATUSES.has(statusOf(f.what))).length
  }
  const pass = unexpected <= LOAD_BUDGET.maxUnexpected && socketErrors <= LOAD_BUDGET.maxSocketErrors && checked.lost.length <= LOAD_BUDGET.maxLostWrites
  return { name, durationS, requests: recorder.requests, routes, writes: checked, unexpected, socketErrors, ...(restartFigures ? { restart: restartFigures } : {}), loadAverage: [loadBefore, os.loadavg()[0]!], shed, pass }
}

async function catalogue(base: string): Promise<{ programs: string[]; categories: string[] }> {
  const programs: string[] = []
  for (let page = 1; ; page++) {
    const listing = (await (await fetch(`${base}/api/programs?pageSize=100&page=${page}`)).json()) as { items: Array<{ id: string }>; total: number }
    programs.push(...listing.items.map((item) => item.id))
    if (listing.items.length === 0 || programs.length >= listing.total) break
  }
  const categories = ((await (await fetch(`${base}/api/categories`)).json()) as Array<{ id: string }>).map((category) => category.id)
  return { programs, categories }
}

/** `count` tasks, at most `parallel` at once. */
async function inParallel(count: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await task(next++)
    }),
  )
}

/**
 * A verified account (bench-user.ts). The BFF sheds sign-ups with 503 while it warms up: the
 * attempt is made again, under another address, since the first may have got halfway.
 */
async function madeUser(base: string, core: string, name: string): Promise<{ email: string; cookies: Map<string, string> }> {
  for (let attempt = 1; ; attempt++) {
    const email = `${name}-${attempt}@example.com`
    try {
      const cookies = await verifiedUser(base, core, API_KEY, email)
      // Spec §4: the terms come first, before any page under /@.
      const accepted = await fetch(`${base}/api/user/accept-tos`, {
        method: 'POST',
        headers: { cookie: `sAccessToken=${cookies.get('sAccessToken')}`, rid: 'anti-csrf', 'content-type': 'application/json' },
        body: JSON.stringify({ isInMailList: false }),
      })
      if (accepted.status !== 200) throw new Error(`accepting the terms for ${email} answered ${accepted.status}: ${await accepted.text()}`)
      return { email, cookies }
    } catch (error) {
      if (attempt === 5 || !String(error).includes('503')) throw error
      await new Promise((resolve) => setTimeout(resolve, 2_000))
    }
  }
}

function ensureBuilt(): void {
  if (fs.existsSync(path.join(root, 'dist', 'server', 'main.js')) && fs.existsSync(path.join(root, 'dist', 'ssr', 'entry-server.js'))) return
  console.log('dist/ is not built: running node scripts/build.mjs…')
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) throw new Error('the build failed')
}

export async function benchLoad(cleanups: Array<() => void>): Promise<LoadFigures> {
  ensureBuilt()
  const bin = newestPostgresBin()
  if (!bin) throw new Error('the load benchmark needs PostgreSQL (Debian package postgresql)')
  const databaseUrl = await startPostgres(bin, cleanups)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-load-'))
  const services = new Map<Service['role'], Service>()
  cleanups.push(() => {
    for (const service of services.values()) service.child.kill('SIGKILL')
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const smtp = await startSmtpServer({ teardown: (fn) => void cleanups.push(() => void fn()) })
  const ports = { bff: await freePort(), api: await freePort(), core: await freePort() }
  const base = `http://127.0.0.1:${ports.bff}`
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(dataDir, 'data'),
    DATABASE_URL: databaseUrl,
    AUTH_CORE_API_KEYS: API_KEY,
    AUTH_CORE_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    OPERATOR_TOKEN: randomBytes(16).toString('hex'),
    SMTP_URL: smtp.url,
    APP_URL: base,
    UPSTREAM_API_URL: `http://127.0.0.1:${ports.api}`,
    AUTH_CORE_URL: `http://127.0.0.1:${ports.core}`,
    HOST: '127.0.0.1',
    API_HOST: '127.0.0.1',
    AUTH_CORE_HOST: '127.0.0.1',
    // One machine is one IP: the per-IP limits would measure themselves.
    RATE_LIMIT_MAX: '1000000',
    AUTH_RATE_LIMIT_MAX: '1000000',
  }
  for (const name of ['REDIS_URL', 'TEST_MODE', 'TAP', 'OVERLOAD_EVENT_LOOP_DELAY_MS', 'OVERLOAD_MAX_IN_FLIGHT']) delete common[name]
  if (!SHEDDING) Object.assign(common, { OVERLOAD_EVENT_LOOP_DELAY_MS: '0', OVERLOAD_MAX_IN_FLIGHT: '0' })
  const logDir = dataDir
  const stack: Stack = { common, logDir, databaseUrl, services }
  const core = spawnRole(common, 'authcore', ports.core, logDir)
  services.set('authcore', core)
  await waitFor(`http://127.0.0.1:${ports.core}/hello`, core.child)
  const api = spawnRole(common, 'api', ports.api, logDir)
  services.set('api', api)
  await waitFor(`http://127.0.0.1:${ports.api}/readyz`, api.child)
  const bff = spawnRole(common, 'bff', ports.bff, logDir)
  services.set('bff', bff)
  await waitFor(`${base}/readyz`, bff.child)

  const { programs, categories } = await catalogue(base)
  const users: VirtualUser[] = []
  const runId = randomBytes(3).toString('hex')
  await inParallel(VUS, 4, async (i) => {
    const pool = Array.from({ length: 8 }, () => pick(programs))
    const { email, cookies } = await madeUser(base, `http://127.0.0.1:${ports.core}`, `load-${runId}-${i}`)
    const vu = new VirtualUser(i, email, [...new Set(pool)])
    for (const [name, value] of cookies) vu.cookies.set(name, { value, path: name === 'sRefreshToken' ? '/auth/session/refresh' : '/' })
    users[i] = vu
  })
  const agent = new Agent({ keepAliveTimeout: 4_000, connect: { timeout: 10_000 } })
  cleanups.push(() => void agent.close())
  const target: Target = { base, agent, programs, categories }
  const writes: WriteOp[] = []
  const runs = [await run('run 1: the mix', stack, target, users, writes, false), await run(`run 2: the mix, API restarted at ${RESTART_AT_S} s`, stack, target, users, writes, true)]
  for (const service of services.values()) {
    const log = path.join(logDir, `${service.role}.log`)
    const errors = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((line) => /"level":(50|60)/.test(line)) : []
    if (errors.length > 0) console.log(`note: the ${service.role} logged ${errors.length} errors, the first: ${errors[0]!.slice(0, 600)}`)
  }
  const shedding = SHEDDING ? 'load shedding as shipped (OVERLOAD_EVENT_LOOP_DELAY_MS=50, OVERLOAD_MAX_IN_FLIGHT=128)' : 'load shedding off (BENCH_LOAD_SHEDDING=off: OVERLOAD_EVENT_LOOP_DELAY_MS=0, OVERLOAD_MAX_IN_FLIGHT=0)'
  return { vus: VUS, shedding, runs, pass: runs.every((r) => r.pass) }
}

export function printLoad(figures: LoadFigures): void {
  const ms = (value: number) => (Number.isNaN(value) ? '—' : value >= 100 ? value.toFixed(0) : value.toFixed(1))
  const list = (tally: Record<string, number>) =>
    Object.entries(tally)
      .map(([what, count]) => `${what}×${count}`)
      .join(', ') || '0'
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
  console.log(`\n## Load and fault test (issue 14): ${figures.vus} virtual users, three processes on PostgreSQL\n`)
  console.log(`services: \`node dist/server/main.js authcore|api|bff\`, NODE_ENV=production, ${figures.shedding}`)
  console.log(`mix per iteration: pages 40 % (/ without session, /@/library, /@/library?sort=nameDesc, /@/programs/:id, /@/category/:id), search 20 %, library read 10 %, add 10 %, remove 10 %, sign out + in 5 %, accept terms 5 %; ${THINK_MS > 0 ? `a pause of 0–${2 * THINK_MS} ms (mean ${THINK_MS}) between a user's iterations` : 'no pause between iterations'}`)
  for (const r of figures.runs) {
    console.log(`\n### ${r.name} — ${r.durationS.toFixed(0)} s, ${r.requests} requests (${(r.requests / r.durationS).toFixed(0)}/s), machine load average ${r.loadAverage[0].toFixed(1)} → ${r.loadAverage[1].toFixed(1)}\n`)
    console.log('| route | requests | 2xx | non-2xx | socket errors | p50 ms | p95 ms | p99 ms |')
    console.log('|---|---:|---:|---|---|---:|---:|---:|')
    for (const route of r.routes) {
      console.log(`| ${route.name} | ${route.count} | ${route.ok} | ${list(route.byStatus)} | ${list(route.socketErrors)} | ${ms(route.p50Ms)} | ${ms(route.p95Ms)} | ${ms(route.p99Ms)} |`)
    }
    const w = r.writes
    console.log(`\nrefused by load shedding (service reason × count): ${list(r.shed)}`)
    console.log(`\nlibrary writes so far: ${w.adds} adds and ${w.removes} removes acknowledged; ${w.pairsChecked} (user, program) pairs checked against PostgreSQL, ${w.pairsInDoubt} whose last write got neither a 2xx nor an …_OVERLOADED refusal not judged`)
    if (r.restart) {
      const s = r.restart
      console.log(
        `API: SIGTERM at ${s.sigtermAtS.toFixed(1)} s, old process gone at ${s.oldExitedAtS.toFixed(1)} s, new one ready at ${s.readyAtS.toFixed(1)} s (down ${s.downMs.toFixed(0)} ms); failures in [SIGTERM, ready + ${GRACE_MS / 1000} s]: ${list(s.insideWindow)}; outside: ${list(s.outsideWindow)}`,
      )
      console.log(`${verdict(r.unexpected === 0)} ${r.name}: non-2xx only 502/503/504 and only while the API was down (${r.unexpected} others)`)
    } else {
      console.log(`${verdict(r.unexpected === 0)} ${r.name}: every answer 2xx (${r.unexpected} others)`)
    }
    console.log(`${verdict(r.socketErrors === 0)} ${r.name}: ${r.socketErrors} socket errors toward the BFF (budget 0)`)
    console.log(`${verdict(w.lost.length === 0)} ${r.name}: ${w.lost.length} lost writes (budget 0)${w.lost.length > 0 ? `: ${w.lost.slice(0, 5).join('; ')}` : ''}`)
  }
}

if (process.argv[1] === here) {
  const cleanups: Array<() => void> = []
  process.on('exit', () => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()))
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`)
  const figures = await benchLoad(cleanups)
  printLoad(figures)
  process.exit(figures.pass ? 0 : 1)
}
