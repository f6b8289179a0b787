// Sign-in and password-reset timing for a known and an unknown email, through the BFF (against
// enumeration by timing). The stack runs as `npm start` does in embedded mode (auth core, API and
// BFF on one PGlite) in its own process; mail goes to an SMTP sink in this process, as it would to
// an operator's server. Requests go one at a time, known and unknown interleaved, so both see the
// same machine. Budget: each median within 0.8× of the other, both ways. Run by `npm run bench`
// (BENCH_ONLY=signin) or alone: `tsx bench/bench-signin.ts`.
import { fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { SMTPServer } from 'smtp-server'

const here = fileURLToPath(import.meta.url)
const APP_URL = 'http://localhost:3000'
const PASSWORD = 'a long enough password'
/** Each median within this ratio of the other, both ways. */
export const SIGNIN_TIMING_MIN_RATIO = 0.8

/** `mailbox` for the embedded default (DATA_DIR/mail), else the SMTP URL to send to. */
async function serve(mail: string): Promise<void> {
  const { buildApi } = await import('../server/api/app.ts')
  const { buildAuthCore } = await import('../server/authcore/app.ts')
  const { buildBff } = await import('../server/bff/app.ts')
  const { readBuildInfo } = await import('../server/build-info.ts')
  const { loadConfig } = await import('../server/config.ts')
  const { openPglite } = await import('../server/db/pglite.ts')
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-signin-'))
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }))
  // Limits out of the way: the benchmark repeats what they exist to stop.
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    APP_URL,
    ...(mail === 'mailbox' ? {} : { SMTP_URL: mail }),
    RATE_LIMIT_MAX: '1000000',
    AUTH_RATE_LIMIT_MAX: '1000000',
    LOGIN_MAX_ATTEMPTS: '1000',
  })
  const db = await openPglite({ dataDir: path.join(dataDir, 'pglite') })
  const buildInfo = readBuildInfo()
  const core = await buildAuthCore({ config, db, secret: randomBytes(32).toString('hex'), apiKeys: null, publicDefaults: { passwordHashingAlg: config.authCorePasswordHashing } })
  await core.listen({ host: '127.0.0.1', port: 0 })
  const port = (app: { server: { address(): unknown } }) => (app.server.address() as { port: number }).port
  const api = await buildApi({ config, db, buildInfo, authCoreUrl: `http://127.0.0.1:${port(core)}` })
  await api.listen({ host: '127.0.0.1', port: 0 })
  const bff = await buildBff({ config, db, buildInfo, upstreamApiUrl: `http://127.0.0.1:${port(api)}`, authCoreUrl: `http://127.0.0.1:${port(core)}` })
  await bff.listen({ host: '127.0.0.1', port: 0 })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
  process.send?.({ port: port(bff) })
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export interface SignInTimingRow {
  flow: string
  known: number[]
  unknown: number[]
  statuses: string
}

export interface SignInTimingResult {
  rows: SignInTimingRow[]
  mails: number
  pass: boolean
}

export async function benchSignIn(samples = Number(process.env.BENCH_SIGNIN_SAMPLES ?? 40)): Promise<SignInTimingResult> {
  let mails = 0
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      stream.on('data', () => {})
      stream.on('end', () => {
        mails += 1
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`
  const children: ChildProcess[] = []
  const start = (mail: string) =>
    new Promise<string>((resolve, reject) => {
      const child = fork(here, ['serve', mail], { execArgv: ['--import', 'tsx'], env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      children.push(child)
      child.once('message', (message) => resolve(`http://127.0.0.1:${(message as { port: number }).port}`))
      child.once('exit', (code) => reject(new Error(`the sign-in bench server exited with ${code}`)))
    })
  const rows: SignInTimingRow[] = []
  const run = Date.now().toString(36)
  const measureOn = async (base: string, mail: string, flows: Array<'sign-in' | 'reset'>) => {
    const post = async (url: string, fields: Record<string, string>) => {
      const started = performance.now()
      const response = await fetch(`${base}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', rid: 'anti-csrf', 'fdi-version': '4.2', origin: APP_URL },
        body: JSON.stringify({ formFields: Object.entries(fields).map(([id, value]) => ({ id, value })) }),
      })
      const body = (await response.json()) as { status?: string; code?: string }
      return { ms: performance.now() - started, status: `${response.status} ${body.status ?? body.code}` }
    }
    // One account per reset (the hourly mail cap would otherwise turn later resets into the capped
    // path), a few for the sign-ins; the sign-up's own verification mail is one of the five.
    const accounts = Array.from({ length: samples + 5 }, (_, i) => `known-${run}-${i}@example.com`)
    for (const email of accounts) {
      const signUp = await post('/auth/signup', { email, password: PASSWORD })
      if (signUp.status !== '200 OK') throw new Error(`sign-up failed: ${signUp.status}`)
    }
    const unknown = (i: number) => `unknown-${run}-${i}@example.com`
    const measure = async (flow: string, known: (i: number) => Promise<{ ms: number; status: string }>, other: (i: number) => Promise<{ ms: number; status: string }>) => {
      const row: SignInTimingRow = { flow, known: [], unknown: [], statuses: '' }
      const seen = new Set<string>()
      // Five rounds of warm-up, then known and unknown alternate, each first half the time.
      for (let i = -5; i < samples; i++) {
        const knownFirst = i % 2 !== 0
        const first = await (knownFirst ? known : other)(i + 5)
        const second = await (knownFirst ? other : known)(i + 5)
        const [k, u] = knownFirst ? [first, second] : [second, first]
        seen.add(`${k.status} / ${u.status}`)
        if (i < 0) continue
        row.known.push(k.ms)
        row.unknown.push(u.ms)
      }
      row.statuses = [...seen].join('; ')
      rows.push(row)
    }
    if (flows.includes('sign-in')) {
      await measure(
        'sign-in, wrong password',
        (i) => post('/auth/signin', { email: accounts[i % 5]!, password: 'not the password' }),
        (i) => post('/auth/signin', { email: unknown(i), password: 'not the password' }),
      )
    }
    if (flows.includes('reset')) {
      await measure(
        `password-reset request (${mail})`,
        (i) => post('/auth/user/password/reset/token', { email: accounts[i]! }),
        (i) => post('/auth/user/password/reset/token', { email: unknown(i) }),
      )
    }
  }
  try {
    await measureOn(await start(smtpUrl), 'SMTP', ['sign-in', 'reset'])
    await measureOn(await start('mailbox'), 'local mailbox', ['reset'])
    const pass = rows.every((row) => {
      const k = median(row.known)
      const u = median(row.unknown)
      return u >= SIGNIN_TIMING_MIN_RATIO * k && k >= SIGNIN_TIMING_MIN_RATIO * u
    })
    return { rows, mails, pass }
  } finally {
    for (const child of children) child.kill('SIGTERM')
    await new Promise<void>((resolve) => smtp.close(() => resolve()))
  }
}

export function printSignIn(result: SignInTimingResult): void {
  const f = (value: number) => value.toFixed(1)
  console.log('\n### Known and unknown emails through the BFF (issue 17; bench/bench-signin.ts)\n')
  console.log('embedded stack (auth core, API, BFF; PGlite, argon2id) in one process; mail to an SMTP sink on loopback or to the local mailbox; sequential requests, known and unknown interleaved\n')
  console.log('| flow | samples | known p50 ms | unknown p50 ms | unknown ÷ known | known min–max | unknown min–max | answers (known / unknown) |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---|')
  for (const row of result.rows) {
    const k = median(row.known)
    const u = median(row.unknown)
    console.log(
      `| ${row.flow} | ${row.known.length} | ${f(k)} | ${f(u)} | ${(u / k).toFixed(2)} | ${f(Math.min(...row.known))}–${f(Math.max(...row.known))} | ${f(Math.min(...row.unknown))}–${f(Math.max(...row.unknown))} | ${row.statuses} |`,
    )
  }
  console.log(`\nmails received by the SMTP sink: ${result.mails}`)
  for (const row of result.rows) {
    const k = median(row.known)
    const u = median(row.unknown)
    const pass = u >= SIGNIN_TIMING_MIN_RATIO * k && k >= SIGNIN_TIMING_MIN_RATIO * u
    console.log(`${pass ? 'PASS' : 'FAIL'} ${row.flow}: unknown p50 ${f(u)} ms vs known p50 ${f(k)} ms (budget: each ≥ ${SIGNIN_TIMING_MIN_RATIO}× the other)`)
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3]!)
else if (process.argv[1] === here) {
  const result = await benchSignIn()
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`)
  printSignIn(result)
  process.exitCode = result.pass ? 0 : 1
}
