// Auth-core benchmarks: GET /user/id and POST /recipe/session/verify p99 ≤ 2 ms on
// loopback, and a complete sign-in through supertokens-node (≈10 core calls) split between
// password hashing and everything else (≤ 15 ms p99). Run by `npm run bench` (BENCH_ONLY=authcore)
// or alone: `tsx bench/bench-authcore.ts`. The core runs in its own process, as do the SDK
// clients, so the load generator never shares the core's event loop.
import { fork, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const here = fileURLToPath(import.meta.url)
const role = process.argv[2]

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6

async function serveCore(): Promise<void> {
  const { buildAuthCore } = await import('../server/authcore/app.ts')
  const { openPglite } = await import('../server/db/pglite.ts')
  const { openPostgres } = await import('../server/db/postgres.ts')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-core-'))
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
  const db = process.env.BENCH_DATABASE_URL ? await openPostgres({ connectionString: process.env.BENCH_DATABASE_URL }) : await openPglite({ dataDir: dir })
  const core = await buildAuthCore({ config: { logLevel: 'warn', nodeEnv: 'production' }, db, secret: 'bench-secret-bench-secret-bench-secret-0123', apiKeys: null })
  await core.listen({ host: '127.0.0.1', port: 0 })
  process.send?.({ port: (core.server.address() as { port: number }).port })
}

/** Sign-ins through the real SDK against one app of the core; reports each sign-in's time. */
async function runSdk(connectionURI: string, count: number, warmUp: number): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const { default: supertokens } = await import('supertokens-node')
  const { default: EmailPassword } = await import('supertokens-node/recipe/emailpassword')
  const { default: EmailVerification } = await import('supertokens-node/recipe/emailverification')
  const { default: Session } = await import('supertokens-node/recipe/session')
  const { default: MultiFactorAuth } = await import('supertokens-node/recipe/multifactorauth')
  const { default: Totp } = await import('supertokens-node/recipe/totp')
  const { default: UserMetadata } = await import('supertokens-node/recipe/usermetadata')
  const { plugin } = await import('supertokens-node/framework/fastify')
  let calls = 0
  // Time spent waiting on the core, per sign-in: the SDK calls it with the global fetch.
  let coreMs = 0
  const originalFetch = globalThis.fetch
  globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
    const start = process.hrtime.bigint()
    try {
      return await originalFetch(...args)
    } finally {
      coreMs += ms(start)
    }
  }) as typeof fetch
  supertokens.init({
    framework: 'fastify',
    supertokens: { connectionURI, networkInterceptor: (request) => ((calls += 1), request) },
    appInfo: { appName: 'Softshelf', apiDomain: 'http://localhost:3000', websiteDomain: 'http://localhost:3000', apiBasePath: '/auth' },
    recipeList: [
      EmailPassword.init(),
      EmailVerification.init({ mode: 'REQUIRED' }),
      Session.init({ getTokenTransferMethod: () => 'cookie' }),
      MultiFactorAuth.init({ firstFactors: ['emailpassword'] }),
      Totp.init(),
      UserMetadata.init(),
    ],
  })
  const app = Fastify()
  await app.register(plugin)
  await app.ready()
  const body = { formFields: [{ id: 'email', value: `bench-${process.pid}@example.com` }, { id: 'password', value: 'Passw0rd!1' }] }
  await app.inject({ method: 'POST', url: '/auth/signup', payload: body })
  const times: number[] = []
  const coreTimes: number[] = []
  calls = 0
  for (let i = 0; i < count + warmUp; i++) {
    coreMs = 0
    const start = process.hrtime.bigint()
    const response = await app.inject({ method: 'POST', url: '/auth/signin', payload: body })
    if (response.json().status !== 'OK') throw new Error(`sign-in failed: ${response.body}`)
    if (i >= warmUp) {
      times.push(ms(start))
      coreTimes.push(coreMs)
    }
  }
  process.send?.({ times, coreTimes, callsPerSignIn: calls / (count + warmUp) })
  await app.close()
}

/** Password hashing alone, as the core does it on sign-in. */
async function measureHashing(count: number): Promise<number[]> {
  const { hashPassword, verifyPassword } = await import('../server/authcore/passwords.ts')
  const { DEFAULT_SETTINGS } = await import('../server/authcore/settings.ts')
  const stored = await hashPassword('Passw0rd!1', DEFAULT_SETTINGS)
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint()
    await verifyPassword('Passw0rd!1', stored)
    times.push(ms(start))
  }
  return times
}

function child(args: string[]): Promise<{ process: ChildProcess; message: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const proc = fork(here, args, { execArgv: ['--import', 'tsx'], env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    proc.once('message', (message) => resolve({ process: proc, message: message as Record<string, unknown> }))
    proc.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)))
  })
}

export interface AuthCoreBenchResult {
  rows: Array<{ name: string; rps: number; p50: number; p99: number; errors: number }>
  signIn: { totalP99: number; hashingP99: number; restP99: number; restP50: number; restP95: number; restMax: number; samples: number; coreP50: number; sdkP50: number; callsPerSignIn: number }
  pass: boolean
}

export async function benchAuthCore(durationS = 5): Promise<AuthCoreBenchResult> {
  const core = await child(['serve-core'])
  try {
    const base = `http://127.0.0.1:${core.message.port as number}`
    const post = async (url: string, body: unknown) =>
      (await fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<Record<string, any>> // eslint-disable-line @typescript-eslint/no-explicit-any
    // A database kept between runs (BENCH_DATABASE_URL) already has the users of earlier runs.
    const user = await post('/public/recipe/signup', { email: `load-${process.pid}@example.com`, password: 'Passw0rd!1' })
    const session = await post('/public/recipe/session', { userId: user.recipeUserId, userDataInJWT: { role: 'x' }, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false })
    // "Everything else" is measured on an app whose bcrypt cost is 4: the same calls, hashing nearly free.
    await fetch(`${base}/recipe/multitenancy/app/v2`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ appId: 'bench-cheap-hash', coreConfig: { bcrypt_log_rounds: 4 } }) })

    const load = async (name: string, options: autocannon.Options) => {
      await autocannon({ ...options, duration: 1 })
      const result = await autocannon({ ...options, duration: durationS })
      return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx }
    }
    const verifyBody = (checkDatabase: boolean) => JSON.stringify({ accessToken: session.accessToken.token, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase })
    const headers = { 'content-type': 'application/json', 'cdi-version': '5.4' }
    const rows = [
      await load('GET /user/id', { url: `${base}/user/id?userId=${user.recipeUserId as string}`, connections: 1, headers }),
      await load('POST /recipe/session/verify', { url: `${base}/recipe/session/verify`, method: 'POST', body: verifyBody(false), connections: 1, headers }),
      await load('POST /recipe/session/verify (checkDatabase)', { url: `${base}/recipe/session/verify`, method: 'POST', body: verifyBody(true), connections: 1, headers }),
    ]
    const cheap = await child(['sdk', `${base}/appid-bench-cheap-hash`, '1000', '500'])
    const full = await child(['sdk', base, '30', '10'])
    const hashing = await measureHashing(30)
    const rest = cheap.message.times as number[]
    const signIn = {
      totalP99: percentile(full.message.times as number[], 99),
      hashingP99: percentile(hashing, 99),
      restP99: percentile(rest, 99),
      restP50: percentile(rest, 50),
      restP95: percentile(rest, 95),
      restMax: Math.max(...rest),
      samples: rest.length,
      coreP50: percentile(cheap.message.coreTimes as number[], 50),
      sdkP50: percentile(rest.map((time, i) => time - (cheap.message.coreTimes as number[])[i]!), 50),
      callsPerSignIn: Math.round(cheap.message.callsPerSignIn as number),
    }
    const pass = rows.every((row) => row.errors === 0 && row.p99 <= 2) && signIn.restP99 <= 15
    return { rows, signIn, pass }
  } finally {
    core.process.kill('SIGTERM')
  }
}

export function printAuthCore(result: AuthCoreBenchResult): void {
  console.log('\n### Auth core (one call at a time, as the SDK makes them; sign-in: sequential through supertokens-node)\n')
  console.log('| call | req/s | p50 ms | p99 ms | errors |')
  console.log('|---|---:|---:|---:|---:|')
  for (const row of result.rows) console.log(`| ${row.name} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${row.errors} |`)
  const s = result.signIn
  console.log(`\nsign-in through the SDK (${s.callsPerSignIn} core calls): total p99 ${s.totalP99.toFixed(1)} ms = hashing (bcrypt cost 11) p99 ${s.hashingP99.toFixed(1)} ms + everything else p99 ${s.restP99.toFixed(1)} ms (${s.samples} sign-ins: p50 ${s.restP50.toFixed(1)}, p95 ${s.restP95.toFixed(1)}, max ${s.restMax.toFixed(1)} ms; at p50 waiting on the core ${s.coreP50.toFixed(1)} ms, the SDK's own work ${s.sdkP50.toFixed(1)} ms)`)
  for (const row of result.rows) console.log(`${row.p99 <= 2 && row.errors === 0 ? 'PASS' : 'FAIL'} ${row.name} p99 ${row.p99} ms (budget ≤ 2 ms)`)
  console.log(`${s.restP99 <= 15 ? 'PASS' : 'FAIL'} sign-in without hashing p99 ${s.restP99.toFixed(1)} ms (budget ≤ 15 ms)`)
}

if (role === 'serve-core') await serveCore()
else if (role === 'sdk') await runSdk(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]))
else if (process.argv[1] === here) {
  const result = await benchAuthCore(Number(process.env.BENCH_DURATION ?? 5))
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`)
  printAuthCore(result)
  process.exitCode = result.pass ? 0 : 1
}
