import { createHash, randomBytes, randomInt } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { gunzipSync } from 'node:zlib'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import type { Test } from 'tap'
import { buildApi } from '../server/api/app.ts'
import { applySeed } from '../server/api/catalogue/seed.ts'
import { migrateApiSchema } from '../server/api/schema.ts'
import { buildAuthCore, migrateAuthCoreSchema } from '../server/authcore/app.ts'
import { base32Decode, totpCode } from '../server/authcore/totp.ts'
import { buildBff, migrateBffSchema } from '../server/bff/app.ts'
import { recordRelease } from '../server/api/catalogue/releases.ts'
import type { OperatorRole } from '../shared/operator.ts'
import { projectRoot, type BuildInfo } from '../server/build-info.ts'
import { TEST_HASHING_ENV } from './hashing-env.ts'
import { loadConfig, type Config } from '../server/config.ts'
import type { Database } from '../server/db/database.ts'
import { freshPgliteDump, openPglite } from '../server/db/pglite.ts'
import { openPostgres } from '../server/db/postgres.ts'

// One way to build the real services for a test file, on a real database: PGlite by default,
// PostgreSQL when TEST_DATABASE_URL is set (CI runs the suite both ways). Teardown is registered.

export { TEST_HASHING_ENV }
export const root = projectRoot()

/** The key the tests' auth core asks its callers for (every set-up has one). */
export const TEST_AUTH_CORE_API_KEY = 'test-core-api-key-0123456789'

/** The auth core's AUTH_CORE_SECRET in tests. */
export const TEST_AUTH_CORE_SECRET = 'test-secret-test-secret-test-secret-0123456789'

// supertokens-node keeps its configuration in module state; its test mode lets each BFF a test
// file builds start from a clean SDK (server/bff/auth/supertokens.ts).
process.env.TEST_MODE = 'testing'
export const testBuildInfo: BuildInfo = { name: 'softshelf', packageVersion: '1.0.716', buildId: 'test', version: '1.0.716+test' }

// Every app a test spawns with this process's environment hashes as cheaply as those it builds.
for (const [name, value] of Object.entries(TEST_HASHING_ENV)) process.env[name] ??= value

/** The config of an auth core a test builds by itself. */
export function testCoreConfig(logLevel: 'silent' | 'info' = 'silent') {
  return { logLevel, nodeEnv: 'test' as const, authCoreHashing: loadConfig(TEST_HASHING_ENV).authCoreHashing }
}

export function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-test-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Where the kernel's range of ports for outgoing connections (and for listen(0)) starts. A port picked inside
 * it can be taken, before the process it is for listens on it, by any connection a neighbour opens:
 * the cluster test lost a picked port so (EADDRINUSE), twice in full runs.
 */
export function ephemeralPortsStart(): number {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)
    if (low) return low
  } catch {
    // Not Linux: its usual range.
  }
  return 32768
}

/** Whether nothing listens on the loopback port now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)))
  })
}

const pickedPorts = new Set<number>()

/**
 * A loopback port in [from, to) that nothing listens on now and this process has not handed out
 * before: tried at random, then one by one; undefined when there is none.
 */
export async function freePortIn(from: number, to: number): Promise<number | undefined> {
  const take = async (port: number) => {
    if (pickedPorts.has(port) || !(await canListen(port))) return undefined
    pickedPorts.add(port)
    return port
  }
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await take(from + randomInt(to - from))
    if (port !== undefined) return port
  }
  for (let port = from; port < to; port += 1) if ((await take(port)) !== undefined) return port
  return undefined
}

/**
 * A loopback port free right now, for servers a test starts as separate processes: picked below
 * the ephemeral range, from 10000 (so no connection takes it meanwhile), never the same twice in a
 * process; from the kernel (listen(0)) only when there is none.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralPortsStart()
  const picked = low > 10_000 ? await freePortIn(10_000, low) : undefined
  if (picked !== undefined) return picked
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

export function testConfig(t: Test, env: Record<string, string> = {}): Config {
  // No shedding by event-loop delay unless a test asks: this machine's other work would make it refuse at random.
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: tempDir(t), APP_URL: 'http://localhost:3000', OVERLOAD_EVENT_LOOP_DELAY_MS: '0', ...TEST_HASHING_ENV, ...env })
}

/**
 * An initialised PGlite data folder is cached once; each test file starts from a copy (~0.5 s, not
 * ~4 s). Kept as a plain tar: unpacking a gzip'd one cost each database ~0.2 s of CPU more.
 */
export async function pgliteTemplate(): Promise<Blob> {
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }
  const cacheDir = path.join(root, 'node_modules', '.cache', 'softshelf')
  const file = path.join(cacheDir, `pglite-${version}.tar`)
  if (!fs.existsSync(file)) {
    const dump = await freshPgliteDump()
    fs.mkdirSync(cacheDir, { recursive: true })
    const tmp = `${file}.${process.pid}.tmp`
    fs.writeFileSync(tmp, gunzipSync(Buffer.from(await dump.arrayBuffer())))
    fs.renameSync(tmp, file)
  }
  return new Blob([fs.readFileSync(file)])
}

/**
 * What a database holds once the services have started on it: the auth core's, the API's and the
 * BFF's migrations and the catalogue seed. Each test database is a copy of one prepared this way
 * (~1.2 s of migrations and seed per database on PGlite, ~0.6 s on PostgreSQL), made
 * again whenever what goes into it changes: its name carries a hash of the migrations, the seed
 * and the code that applies them. The services still run both at start and find nothing to do.
 */
async function prepareDatabase(db: Database): Promise<void> {
  await migrateAuthCoreSchema(db)
  await migrateApiSchema(db)
  await migrateBffSchema(db)
  await applySeed(db)
}

const PREPARED_FROM = ['server/authcore/migrations', 'server/api/migrations', 'server/bff/migrations', 'server/api/seed', 'server/api/catalogue/seed.ts', 'server/api/schema.ts', 'server/db/migrate.ts']

function filesUnder(relative: string): string[] {
  const full = path.join(root, relative)
  if (!fs.statSync(full).isDirectory()) return [relative]
  return fs
    .readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(path.join(relative, name)))
}

/** A short hash of everything that goes into a prepared database (and of PGlite's version). */
function preparedKey(): string {
  const hash = createHash('sha256')
  hash.update(JSON.parse(fs.readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version as string)
  for (const file of PREPARED_FROM.flatMap(filesUnder)) hash.update(`\0${file}\0`).update(fs.readFileSync(path.join(root, file)))
  return hash.digest('hex').slice(0, 16)
}

let preparedKeyOnce: string | undefined
const prepared = () => (preparedKeyOnce ??= preparedKey())

/**
 * The prepared PGlite data folder, as a tar cached beside the empty one; read once a process (each
 * database is a copy of its own: PGlite reads the blob and leaves it as it was). Reading the 63 MB
 * for every database cost ~0.1 s each, and a process runs several files (scripts/tap-group.mjs).
 */
let preparedBlob: Promise<Blob> | undefined
function preparedPglite(): Promise<Blob> {
  preparedBlob ??= readPreparedPglite().catch((err: unknown) => {
    preparedBlob = undefined
    throw err
  })
  return preparedBlob
}

async function readPreparedPglite(): Promise<Blob> {
  const file = path.join(root, 'node_modules', '.cache', 'softshelf', `pglite-prepared-${prepared()}.tar`)
  if (!fs.existsSync(file)) {
    const db = await openPglite({ loadDataDir: await pgliteTemplate(), timeoutMs: 60_000 })
    try {
      await prepareDatabase(db)
      const tmp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(tmp, Buffer.from(await (await db.dump!()).arrayBuffer()))
      fs.renameSync(tmp, file)
    } finally {
      await db.close()
    }
  }
  return new Blob([fs.readFileSync(file)])
}

/**
 * The prepared PostgreSQL database, made once per server and key (under an advisory lock: test
 * files run side by side) and copied with CREATE DATABASE … TEMPLATE. It is made under another
 * name and renamed when complete, so a copy is never taken of half of one. Looked up once a process.
 */
const preparedPostgresNames = new Map<string, Promise<string>>()
function preparedPostgres(url: string): Promise<string> {
  let name = preparedPostgresNames.get(url)
  if (!name) preparedPostgresNames.set(url, (name = makePreparedPostgres(url)))
  return name
}

async function makePreparedPostgres(url: string): Promise<string> {
  const name = `softshelf_prepared_${prepared()}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', ['softshelf:test:prepared-database'])
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (exists.rowCount === 0) {
      const making = `${name}_making`
      await admin.query(`DROP DATABASE IF EXISTS ${making} WITH (FORCE)`)
      await admin.query(`CREATE DATABASE ${making}`)
      const target = new URL(url)
      target.pathname = `/${making}`
      const db = await openPostgres({ connectionString: target.href, max: 1, timeoutMs: 60_000 })
      try {
        await prepareDatabase(db)
      } finally {
        await db.close()
      }
      await admin.query(`ALTER DATABASE ${making} RENAME TO ${name}`)
    }
    return name
  } finally {
    await admin.end()
  }
}

/**
 * A database of its own for one test file, as the services leave it at their first start (see
 * prepareDatabase); `empty` for a test of the migrations or the seed themselves. `timeoutMs`
 * bounds its queries and transactions.
 */
export async function openTestDatabase(t: Test, options: { timeoutMs?: number; empty?: boolean } = {}): Promise<Database> {
  const { empty = false, ...databaseOptions } = options
  const url = process.env.TEST_DATABASE_URL
  if (url) {
    const template = empty ? undefined : await preparedPostgres(url)
    const name = `softshelf_test_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`)
    await admin.end()
    const target = new URL(url)
    target.pathname = `/${name}`
    const db = await openPostgres({ connectionString: target.href, max: 5, ...databaseOptions })
    connectionStrings.set(db, target.href)
    t.teardown(async () => {
      await db.close()
      const cleanup = new pg.Client({ connectionString: url })
      await cleanup.connect()
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await cleanup.end()
    })
    return db
  }
  const db = await openPglite({ loadDataDir: empty ? await pgliteTemplate() : await preparedPglite(), ...databaseOptions })
  t.teardown(() => db.close())
  return db
}

const connectionStrings = new WeakMap<Database, string>()

/**
 * A second connection to a test database, as a second instance of a service would have: its own
 * pool on PostgreSQL; on PGlite (one process, one connection) the same database.
 */
export async function secondConnection(t: Test, db: Database): Promise<Database> {
  const url = connectionStrings.get(db)
  if (!url) return db
  const other = await openPostgres({ connectionString: url, max: 5 })
  t.teardown(() => other.close())
  return other
}

/**
 * The same database, counting the readiness probes (`SELECT 1`) made on it; `down` makes them fail
 * as an unreachable database would.
 */
export function probedDatabase(db: Database): { db: Database; probes: () => number; down: (down: boolean) => void } {
  let probes = 0
  let isDown = false
  const probed: Database = {
    kind: db.kind,
    async query<T = Record<string, unknown>>(text: string, params?: unknown[]) {
      if (text === 'SELECT 1') {
        probes++
        if (isDown) throw new Error('connection refused (test)')
      }
      return db.query<T>(text, params)
    },
    exec: (text) => db.exec(text),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  }
  return { db: probed, probes: () => probes, down: (down) => void (isDown = down) }
}

/** A safety bound for a test (not a timing assertion): a regression that hangs fails here instead of stalling the file. */
export function within<T>(promise: Promise<T>, ms = 10_000): Promise<T> {
  return Promise.race([promise, new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())])
}

export interface PollOptions {
  /** How long to keep asking before failing (ms). */
  ms?: number
  /** The pause between two attempts (ms); without it, the next event-loop turn. */
  every?: number
  /** What is awaited, for the failure's message. */
  what?: string
  /** An attempt that throws counts as "not yet" (a server not listening yet); otherwise the throw fails the wait. */
  ignoreErrors?: boolean
}

/** Asks `attempt` until it gives something other than undefined, and returns it; fails past `ms`. */
export async function pollFor<T>(attempt: () => T | undefined | Promise<T | undefined>, options: PollOptions = {}): Promise<T> {
  const { ms = 10_000, every, what = 'the awaited state', ignoreErrors = false } = options
  const started = Date.now()
  for (;;) {
    const result = ignoreErrors ? await Promise.resolve().then(attempt).catch(() => undefined) : await attempt()
    if (result !== undefined) return result
    if (Date.now() - started > ms) throw new Error(`${what}: not reached within ${ms} ms`)
    await new Promise<void>((resolve) => (every === undefined ? setImmediate(resolve) : setTimeout(resolve, every)))
  }
}

/** Runs `check` until it holds (on each event-loop turn unless `every` is given); throws past `ms`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, ms = 10_000, options: Omit<PollOptions, 'ms'> = {}): Promise<void> {
  await pollFor(async () => ((await check()) ? true : undefined), { ...options, ms })
}

/**
 * CPU-bound work on this process's event loop, as a burst of requests would be: turns of `busyMs`
 * with a millisecond between them, until the returned stop (also a teardown). The event loop's
 * measured delay then sits near busyMs, far above a shedding threshold of tens of milliseconds: at
 * 80 ms a turn it sat near a 40-ms threshold, and a request now and then got through.
 */
export function busyEventLoop(t: Test, busyMs = 150): () => void {
  const hog = setInterval(() => {
    const end = Date.now() + busyMs
    while (Date.now() < end);
  }, 1)
  const stop = () => clearInterval(hog)
  t.teardown(stop)
  return stop
}

/**
 * One clock for a test's services and the test itself (the handbook: clocks are injected, never
 * waited on). It starts at the beginning of the current 30-second TOTP step and moves only when the
 * test moves it (`advance`), so a code the test computes from `totpStep()` is the code of the step
 * the auth core checks it in, whatever the wall clock does meanwhile (a 30-second boundary
 * between two lines turned a replayed code into a fresh one). `now` also moves 1 ms at each read, so
 * that what a service writes keeps its order (the auth core's); `fixed` reads the same instant
 * until the test moves it (a service whose answers the test compares exactly, like a Retry-After).
 * Close to the wall clock, so the tokens it stamps are not expired to the SDK's own checks.
 */
export class TestClock {
  #base: number
  #ticks = 0
  constructor(start = Math.floor(Date.now() / 30_000) * 30_000) {
    this.#base = start
  }
  readonly now = (): number => this.#base + ++this.#ticks
  readonly fixed = (): number => this.#base
  advance(ms: number): void {
    this.#base += ms
  }
  /** The TOTP time step the clock is in (RFC 6238, 30-second period unless told). */
  totpStep(periodSeconds = 30): number {
    return Math.floor((this.#base + this.#ticks) / 1000 / periodSeconds)
  }
  /** The authenticator's code for `secret` at this step, or `steps` away from it (RFC 6238, 30 s). */
  totp(secret: Buffer, steps = 0): string {
    return totpCode(secret, this.totpStep() + steps)
  }
  /** A six-digit code that none of `secrets` gives from one step before this one to one after: a wrong code. */
  wrongTotp(...secrets: Buffer[]): string {
    return ['000000', '111111', '222222', '333333'].find((code) => !secrets.some((secret) => [-1, 0, 1].some((steps) => this.totp(secret, steps) === code)))!
  }
}

/** Log lines written by a service, parsed; for asserting what is (not) logged. */
export class LogCapture extends Writable {
  readonly lines: string[] = []
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
    callback()
  }
  get text(): string {
    return this.lines.join('\n')
  }
}

export interface Stack {
  config: Config
  db: Database
  api: FastifyInstance
  apiUrl: string
  bff: FastifyInstance
  operatorToken: string
  /** The auth core the BFF's /auth talks to, when the stack was built with `auth: true`. */
  authCore: FastifyInstance | undefined
}

/**
 * The API listening on a loopback port (the BFF reaches it over real HTTP, as in production) and
 * the BFF driven with inject. Needs the built client: `npm run build` (npm test does it).
 */
export async function buildStack(
  t: Test,
  options: {
    env?: Record<string, string>
    db?: Database
    bffLogStream?: NodeJS.WritableStream
    apiLogStream?: NodeJS.WritableStream
    coreLogStream?: NodeJS.WritableStream
    upstreamApiUrl?: string
    /** Start an auth core on the same database for /auth; without it nothing answers the SDK. */
    auth?: boolean
    /** Use another stack's auth core (with `db` its database): two BFF+API pairs on one core. */
    authCore?: FastifyInstance
    /** The auth core's clock (sessions and signing keys), for tests that move time. */
    coreNow?: () => number
    /** The clock of the services' short caches, for tests that move time. */
    now?: () => number
    /** The API sheds load itself (OVERLOAD_*), as it does in a process of its own. */
    apiShedsLoad?: boolean
    /** The BFF's and the API's event-loop pressure signal, set by the test instead of burning CPU; measured without it. */
    eventLoopLags?: () => boolean
  } = {},
): Promise<Stack> {
  if (!fs.existsSync(path.join(root, 'dist', 'ssr', 'entry-server.js'))) {
    throw new Error('dist/ is missing: run "npm run build" before the integration tests (npm test does).')
  }
  const config = testConfig(t, options.env)
  const db = options.db ?? (await openTestDatabase(t))
  const operatorToken = randomBytes(16).toString('hex')
  let authCore: FastifyInstance | undefined = options.authCore
  let authCoreUrl = authCore ? `http://127.0.0.1:${(authCore.server.address() as net.AddressInfo).port}` : 'http://127.0.0.1:9'
  if (options.auth && !authCore) {
    authCore = await buildAuthCore({
      config,
      db,
      secret: TEST_AUTH_CORE_SECRET,
      apiKeys: [TEST_AUTH_CORE_API_KEY],
      publicDefaults: { passwordHashingAlg: config.authCorePasswordHashing },
      operatorToken,
      ...(options.coreNow ? { now: options.coreNow } : {}),
      ...(options.coreLogStream ? { logStream: options.coreLogStream } : {}),
    })
    await authCore.listen({ host: '127.0.0.1', port: 0 })
    authCoreUrl = `http://127.0.0.1:${(authCore.server.address() as net.AddressInfo).port}`
  }
  const api = await buildApi({
    config,
    db,
    buildInfo: testBuildInfo,
    operatorToken,
    authCoreUrl,
    authCoreApiKey: TEST_AUTH_CORE_API_KEY,
    ...(options.apiLogStream ? { logStream: options.apiLogStream } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.apiShedsLoad ? { shedLoad: true } : {}),
    ...(options.eventLoopLags ? { eventLoopLags: options.eventLoopLags } : {}),
  })
  await api.listen({ host: '127.0.0.1', port: 0 })
  const address = api.server.address()
  if (!address || typeof address === 'string') throw new Error('API did not listen on a port')
  const apiUrl = `http://127.0.0.1:${address.port}`
  const bff = await buildBff({
    authCoreUrl,
    authCoreApiKey: TEST_AUTH_CORE_API_KEY,
    config,
    db,
    buildInfo: testBuildInfo,
    upstreamApiUrl: options.upstreamApiUrl ?? apiUrl,
    operatorToken,
    ...(options.bffLogStream ? { logStream: options.bffLogStream } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.eventLoopLags ? { eventLoopLags: options.eventLoopLags } : {}),
  })
  await bff.ready()
  t.teardown(async () => {
    await bff.close()
    await api.close()
    if (!options.authCore) await authCore?.close()
  })
  return { config, db, api, apiUrl, bff, operatorToken, authCore }
}

/** A browser's cookie jar for `inject`: keeps what Set-Cookie says, drops cleared cookies. */
export class CookieJar {
  readonly cookies = new Map<string, { value: string; path: string }>()

  store(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies as Array<{ name: string; value: string; path?: string; expires?: Date; maxAge?: number }>) {
      const expired = cookie.value === '' || (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now()) || cookie.maxAge === 0
      if (expired) this.cookies.delete(cookie.name)
      else this.cookies.set(cookie.name, { value: cookie.value, path: cookie.path ?? '/' })
    }
  }

  header(url: string): string {
    return [...this.cookies.entries()]
      .filter(([, cookie]) => url.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ')
  }

  get(name: string): string | undefined {
    return this.cookies.get(name)?.value
  }
}

/** A browser tab talking to the SDK app: requests carry and update the jar. */
export function browser(app: FastifyInstance, jar = new CookieJar()) {
  const request = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const response = await app.inject({
      method,
      url,
      headers: { cookie: jar.header(url), rid: 'anti-csrf', 'fdi-version': '4.2', origin: 'http://localhost:3000', ...headers },
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    })
    jar.store(response)
    return response
  }
  return {
    jar,
    get: (url: string, headers?: Record<string, string>) => request('GET', url, undefined, headers),
    post: (url: string, payload: unknown = {}, headers?: Record<string, string>) => request('POST', url, payload, headers),
    put: (url: string, payload: unknown = {}, headers?: Record<string, string>) => request('PUT', url, payload, headers),
    delete: (url: string, headers?: Record<string, string>) => request('DELETE', url, undefined, headers),
    /** Any method, with a body for any of them (`delete` above sends none). */
    send: (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers?: Record<string, string>) => request(method, url, payload, headers),
  }
}

/**
 * A confirmed authenticator on a signed-in tab, set up as the app does (create, then verify with
 * the current code): its secret and the recovery codes the set-up showed. `headers` go with the
 * confirmation (a User-Agent for the notice it sends); `clock` is the auth core's when the stack
 * was given one (`coreNow`), else the code is the wall clock's.
 */
export async function confirmedAuthenticator(
  tab: ReturnType<typeof browser>,
  deviceName = 'Softshelf',
  headers: Record<string, string> = {},
  clock?: TestClock,
): Promise<{ secret: Buffer; codes: string[] }> {
  const created = await tab.post('/auth/totp/device', { deviceName })
  if (created.json().status !== 'OK') throw new Error(`no device: ${created.body}`)
  const secret = base32Decode(created.json().secret)
  const verified = await tab.post('/auth/totp/device/verify', { deviceName, totp: clock ? clock.totp(secret) : totpCode(secret, Math.floor(Date.now() / 30_000)) }, headers)
  if (verified.json().status !== 'OK') throw new Error(`not verified: ${verified.body}`)
  return { secret, codes: verified.json().recoveryCodes as string[] }
}

/** The newest link mailed to `to` through the embedded mailbox (DATA_DIR/mail). */
export function lastMailLink(stack: Stack, to: string): URL {
  return lastMailLinkIn(stack.config.dataDir, to)
}

/** A message of the embedded mailbox (DATA_DIR/mail), as the app wrote it. */
export interface MailboxMessage {
  to: string
  subject: string
  text: string
  html: string
}

/** Every mail sent to `to` through the embedded mailbox of a DATA_DIR, oldest first. */
export function mailsIn(dataDir: string, to: string): MailboxMessage[] {
  const folder = path.join(dataDir, 'mail')
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as MailboxMessage)
    .filter((mail) => mail.to === to)
}

/** The newest link mailed to `to` through the embedded mailbox of a DATA_DIR (a process the test started). */
export function lastMailLinkIn(dataDir: string, to: string): URL {
  return new URL(/https?:\/\/\S+/.exec(mailsIn(dataDir, to).at(-1)!.text)![0])
}

/** The password the tests' accounts are made with, unless a test needs its own. */
export const TEST_PASSWORD = 'correct horse battery'

/** A supertokens form body: `{ formFields: [{ id, value }…] }`. */
export function formFields(fields: Record<string, unknown>): { formFields: { id: string; value: unknown }[] } {
  return { formFields: Object.entries(fields).map(([id, value]) => ({ id, value })) }
}

/** The sign-up and sign-in form of an email and password. */
export function credentials(email: string, password = TEST_PASSWORD): { formFields: { id: string; value: unknown }[] } {
  return formFields({ email, password })
}

/**
 * A tab fully signed in through the BFF as a person would be: signed up, the emailed link opened
 * with the session, the terms accepted. Its pages under /@ render.
 */
export async function signedInTab(stack: Stack, email: string, password = TEST_PASSWORD, headers: Record<string, string> = {}) {
  const tab = browser(stack.bff)
  const signUp = await tab.post('/auth/signup', credentials(email, password), headers)
  if (signUp.json().status !== 'OK') throw new Error(`sign-up failed: ${signUp.body}`)
  await tab.post('/auth/user/email/verify', { method: 'token', token: lastMailLink(stack, email).searchParams.get('token') })
  const accepted = await tab.post('/api/user/accept-tos', { isInMailList: false })
  if (accepted.statusCode !== 200) throw new Error(`accepting the terms failed: ${accepted.body}`)
  return tab
}

/** A signed-in tab of signedInTab(). */
export type Tab = Awaited<ReturnType<typeof signedInTab>>

const peopleMade = new Map<string, number>()

/** A new account, signed in on a tab of its own: `<prefix>-<n>@example.com`, the tab and the user's id. */
export async function signedInPerson(stack: Stack, prefix: string): Promise<{ tab: Tab; userId: string; email: string }> {
  const n = (peopleMade.get(prefix) ?? 0) + 1
  peopleMade.set(prefix, n)
  const email = `${prefix}-${n}@example.com`
  const tab = await signedInTab(stack, email)
  const user = await tab.get('/api/user')
  if (user.statusCode !== 200) throw new Error(`signedInPerson: GET /api/user answered ${user.statusCode}`)
  return { tab, email, userId: user.json().id as string }
}

/**
 * A fully signed-in tab whose session carries operator roles, the real way: signed up,
 * the roles granted in the auth core through its CDI (`PUT /recipe/user/role`), then signed in
 * again, so the BFF's UserRoles recipe puts `st-role` and `st-perm` into the new access token.
 */
export async function operatorTab(stack: Stack, email: string, roles: OperatorRole[], password = TEST_PASSWORD) {
  if (!stack.authCore) throw new Error('operatorTab needs buildStack({ auth: true })')
  const first = await signedInTab(stack, email, password)
  const accessToken = first.jar.get('sAccessToken') ?? ''
  const userId = (JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub
  await grantRoles(stack, userId, roles)
  const tab = browser(stack.bff)
  const signIn = await tab.post('/auth/signin', credentials(email, password))
  if (signIn.json().status !== 'OK') throw new Error(`sign-in failed: ${signIn.body}`)
  return tab
}

/** Gives an account roles in the stack's auth core, as an admin would (through the core's CDI). */
export async function grantRoles(stack: Stack, userId: string, roles: readonly OperatorRole[]): Promise<void> {
  for (const role of roles) {
    const answer = await stack.authCore!.inject({
      method: 'PUT',
      url: '/recipe/user/role',
      headers: { 'api-key': TEST_AUTH_CORE_API_KEY, 'cdi-version': '5.4', 'content-type': 'application/json' },
      payload: { userId, role },
    })
    if (answer.json<{ status?: string }>().status !== 'OK') throw new Error(`granting ${role} failed: ${answer.body}`)
  }
}

/** The product API's id of the account with this email. */
export async function userIdOf(stack: Stack, email: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(`SELECT id FROM api.users WHERE email = $1`, [email])
  return rows[0]!.id
}

/** A release of a program and its notification to one watcher, as the fan-out writes it (the watches part). */
export async function notifyRelease(stack: Stack, userId: string, programId: string, version: string): Promise<void> {
  await stack.db.transaction(async (tx) => {
    await recordRelease(tx, { programId, version, date: '2026-11-20', source: 'editor' }, { actor: { id: 'editor', email: 'editor@example.com' }, requestId: 'test' })
  })
  const { rows } = await stack.db.query<{ id: string; data: Record<string, unknown> }>(
    `SELECT id, data FROM api.catalogue_events WHERE program_id = $1 AND type = 'release' ORDER BY id DESC LIMIT 1`,
    [programId],
  )
  const name = (await stack.db.query<{ name: string }>(`SELECT name FROM api.programs WHERE id = $1`, [programId])).rows[0]!.name
  await stack.db.query(
    `INSERT INTO api.notifications (user_id, type, program_id, data, dedupe) VALUES ($1, 'release', $2, $3, $4)`,
    [userId, programId, JSON.stringify({ ...rows[0]!.data, programName: name }), `event:${rows[0]!.id}`],
  )
}

/** A form post as a browser sends it from one of our pages; `jar` keeps the session like a browser would. */
export async function postForm(stack: Stack, url: string, fields: Record<string, string>, options: { jar?: CookieJar; headers?: Record<string, string | undefined> } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000', 'sec-fetch-site': 'same-origin' }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name]
    else headers[name] = value
  }
  const cookie = options.jar?.header(url)
  const response = await stack.bff.inject({ method: 'POST', url, headers: { ...headers, ...(cookie ? { cookie } : {}) }, payload: new URLSearchParams(fields).toString() })
  options.jar?.store(response)
  return response
}

export function isHtmlPage(t: Test, response: { headers: Record<string, unknown>; body: string }, what: string): void {
  t.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/, `${what}: an HTML page`)
  t.notOk(response.body.trimStart().startsWith('{'), `${what}: not a JSON body`)
}

/** What a person reads: the markup without its scripts (the hydration data keeps the SDK's own answer). */
export const visible = (body: string) => body.replace(/<script[\s\S]*?<\/script>/g, '')

/** The page's text between tags, for what a person reads. */
export const testIdText = (body: string, testId: string) => new RegExp(`data-testid="${testId}"[^>]*>([^<]*)<`).exec(body)?.[1]
