import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import pg from 'pg'
import t from 'tap'
import { applySeed, readSeed } from '../../server/api/catalogue/seed.ts'
import { openPostgres } from '../../server/db/postgres.ts'
import { freePort, root, tempDir, TEST_AUTH_CORE_API_KEY, TEST_AUTH_CORE_SECRET, waitUntil } from '../helpers.ts'
import { decodeQuotedPrintable, startSmtpServer, type ReceivedMail } from '../smtp-server.ts'
import { signInForm, stopProcess, Tab } from './support.ts'

// Several instances: PostgreSQL, Redis and HAProxy from Debian's packages in front of
// two BFFs, two APIs and two auth cores, each a real `node dist/server/main.js <role>` process,
// all started at once. Proves that what one instance does the other sees: sessions, login-attempt
// blocking and per-IP limits, library writes, catalogue changes; that the migrations ran once;
// and that SIGKILLing one process of each kind under a stream of writes loses no acknowledged write.

const databaseUrl = process.env.TEST_DATABASE_URL
const main = path.join(root, 'dist', 'server', 'main.js')
const missing = ['redis-server', 'haproxy'].filter((command) => spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0)

/** Polls `check` every 100 ms until it is true; fails after `limitMs` with `what`. How long it took, in ms. */
async function until(what: string, check: () => Promise<boolean> | boolean, limitMs = 30_000): Promise<number> {
  const started = Date.now()
  await waitUntil(check, limitMs, { what, every: 100, ignoreErrors: true })
  return Date.now() - started
}

interface Service {
  name: string
  url: string
  child: ChildProcess
  output: () => string
}

function start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, url: string): Service {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString('utf8')).slice(-20_000))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  return { name, url, child, output: () => output }
}

const stop = (service: Service) => stopProcess(service.child)

const running = (service: Service) => service.child.exitCode === null && service.child.signalCode === null

async function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.setTimeout(1_000, () => socket.destroy())
    socket.once('error', () => resolve(false))
    socket.once('close', () => resolve(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => {
      resolve(data.toString().startsWith('+PONG'))
      socket.destroy()
    })
  })
}

function haproxyConfig(ports: { bff: number; api: number }, bffs: Service[], apis: Service[]): string {
  // Health checks every 250 ms, one failure takes a server out; a failed request (refused, cut
  // off, 5xx) is retried up to three times, on another server each time. Every write the tests
  // send may be replayed: adding a program twice is one add.
  const backend = (name: string, services: Service[]) => [
    `backend ${name}`,
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  default-server inter 250ms fastinter 250ms downinter 250ms rise 1 fall 1',
    ...services.map((service) => `  server ${service.name} ${new URL(service.url).host} check`),
  ]
  return [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 15s',
    '  timeout server 15s',
    '  timeout check 1s',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on all-retryable-errors',
    'frontend bff',
    `  bind 127.0.0.1:${ports.bff}`,
    '  option forwardfor',
    '  default_backend bffs',
    'frontend api',
    `  bind 127.0.0.1:${ports.api}`,
    '  default_backend apis',
    ...backend('bffs', bffs),
    ...backend('apis', apis),
    '',
  ].join('\n')
}

async function cluster(adminUrl: string): Promise<void> {
  const dbName = `softshelf_cluster_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${dbName}`)
  await admin.end()
  const target = new URL(adminUrl)
  target.pathname = `/${dbName}`
  const clusterDbUrl = target.href
  const sql = new pg.Pool({ connectionString: clusterDbUrl, max: 2 })
  const smtp = await startSmtpServer(t)
  const dataDir = tempDir(t)
  const services: Service[] = []
  t.teardown(async () => {
    await Promise.all(services.map((service) => stop(service)))
    await sql.end()
    const cleanup = new pg.Client({ connectionString: adminUrl })
    await cleanup.connect()
    await cleanup.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
    await cleanup.end()
  })

  const redisPort = await freePort()
  const redis = start('redis', 'redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], process.env, `redis://127.0.0.1:${redisPort}`)
  services.push(redis)
  await until('redis answers PING', () => redisAnswers(redisPort), 10_000)

  const ports = { bff: await freePort(), api: await freePort() }
  const appUrl = `http://127.0.0.1:${ports.bff}`
  const edge = { bff: appUrl, api: `http://127.0.0.1:${ports.api}` }
  const portOf = async (role: 'bff' | 'api' | 'authcore') => ({ role, port: await freePort() })
  const roles = [await portOf('authcore'), await portOf('authcore'), await portOf('api'), await portOf('api'), await portOf('bff'), await portOf('bff')]
  const urlOf = (port: number) => `http://127.0.0.1:${port}`
  const coreUrls = roles.filter((r) => r.role === 'authcore').map((r) => urlOf(r.port))
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    // Shedding is tested where it is the subject; here a busy test machine must not turn a step into a 503.
    OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: clusterDbUrl,
    REDIS_URL: redis.url,
    AUTH_CORE_API_KEYS: TEST_AUTH_CORE_API_KEY,
    AUTH_CORE_SECRET: TEST_AUTH_CORE_SECRET,
    OPERATOR_TOKEN: randomBytes(16).toString('hex'),
    SMTP_URL: smtp.url,
    APP_URL: appUrl,
    UPSTREAM_API_URL: edge.api,
    // Both cores directly: the SDK and the API fall over between them themselves.
    AUTH_CORE_URL: coreUrls.join(';'),
    TRUST_PROXY: '127.0.0.1',
    HOST: '127.0.0.1',
    API_HOST: '127.0.0.1',
    AUTH_CORE_HOST: '127.0.0.1',
    RATE_LIMIT_MAX: '100000',
    AUTH_RATE_LIMIT_MAX: '6',
    SHUTDOWN_TIMEOUT_MS: '3000',
  }
  delete common.TEST_MODE
  delete common.TAP
  const counts = { bff: 0, api: 0, authcore: 0 }
  // f) all six at once, against an empty database.
  for (const { role, port } of roles) {
    counts[role] += 1
    const portVariable = role === 'bff' ? 'PORT' : role === 'api' ? 'API_PORT' : 'AUTH_CORE_PORT'
    services.push(start(`${role}${counts[role]}`, process.execPath, [main, role], { ...common, [portVariable]: String(port) }, urlOf(port)))
  }
  const named = (name: string) => services.find((service) => service.name === name)!
  const [core1, api1, api2, bff1, bff2] = ['authcore1', 'api1', 'api2', 'bff1', 'bff2'].map(named) as [Service, Service, Service, Service, Service]
  const configFile = path.join(dataDir, 'haproxy.cfg')
  fs.writeFileSync(configFile, haproxyConfig(ports, [bff1, bff2], [api1, api2]))
  services.push(start('haproxy', 'haproxy', ['-f', configFile, '-db'], process.env, edge.bff))

  const startedAt = Date.now()
  try {
    for (const service of services.filter((s) => s.name.startsWith('authcore'))) await until(`${service.name} says hello`, async () => (await fetch(`${service.url}/hello`)).ok, 60_000)
    for (const service of [api1, api2, bff1, bff2]) await until(`${service.name} is ready`, async () => (await fetch(`${service.url}/readyz`)).ok, 60_000)
    await until('HAProxy passes both BFFs and both APIs', async () => (await fetch(`${edge.bff}/readyz`)).ok && (await fetch(`${edge.api}/readyz`)).ok, 10_000)
  } catch (error) {
    for (const service of services) t.comment(`${service.name} (${running(service) ? 'running' : `exited ${service.child.exitCode ?? service.child.signalCode}`}):\n${service.output()}`)
    throw error
  }
  t.comment(`six processes ready in ${Date.now() - startedAt} ms`)

  const mailTo = async (to: string): Promise<ReceivedMail> => {
    let found: ReceivedMail | undefined
    await until(`a mail to ${to}`, () => (found = smtp.received.findLast((mail) => mail.to.includes(to))) !== undefined, 10_000)
    return found!
  }
  let people = 0
  /** Signed up through `bff`, the emailed link opened, the terms accepted: a full session. */
  const signedIn = async (bff: string, email: string, password = 'correct horse battery'): Promise<Tab> => {
    people += 1
    const tab = new Tab(appUrl, `198.51.100.${people}`)
    const signUp = await tab.sendTo(bff, 'POST', '/auth/signup', signInForm(email, password))
    if (signUp.json.status !== 'OK') throw new Error(`sign-up of ${email} failed: ${JSON.stringify(signUp)}`)
    const link = /https?:\/\/\S+verify-email\?token=[A-Za-z0-9_-]+/.exec(decodeQuotedPrintable((await mailTo(email)).raw))?.[0]
    const verified = await tab.sendTo(bff, 'POST', '/auth/user/email/verify', { method: 'token', token: new URL(link!).searchParams.get('token') })
    if (verified.json.status !== 'OK') throw new Error(`verification of ${email} failed: ${JSON.stringify(verified)}`)
    const accepted = await tab.sendTo(bff, 'POST', '/api/user/accept-tos', { isInMailList: false })
    if (accepted.status !== 200) throw new Error(`accepting the terms failed: ${JSON.stringify(accepted)}`)
    return tab
  }
  const bearer = (tab: Tab) => ({ authorization: `Bearer ${tab.accessToken}`, accept: 'application/json' })

  await t.test('f) started together on an empty database, the migrations and the seed ran once', async (t) => {
    t.ok(services.every(running), 'no process stopped')
    for (const [schema, folder] of [
      ['api', 'server/api/migrations'],
      ['bff', 'server/bff/migrations'],
      ['authcore', 'server/authcore/migrations'],
    ] as const) {
      const files = fs.readdirSync(path.join(root, folder)).filter((file) => file.endsWith('.sql')).length
      const { rows } = await sql.query<{ rows: number; runs: number }>(`SELECT count(*)::int AS rows, count(DISTINCT applied_at)::int AS runs FROM ${schema}.schema_migrations`)
      t.same(rows[0], { rows: files, runs: 1 }, `${schema}: each of its ${files} migrations recorded once, all by one transaction`)
    }
    t.equal((await sql.query('SELECT 1 FROM api.seed_state')).rowCount, 1, 'one seed state')
    for (const service of services) t.notMatch(service.output(), /duplicate key|already exists|failed to start/i, `${service.name} logged no failed start`)
  })

  await t.test('a) a session made through one BFF works through the other; signing out on one ends it on both', async (t) => {
    const tab = await signedIn(bff1.url, 'crossing@example.com')
    const me = await tab.sendTo(bff2.url, 'GET', '/api/user')
    t.equal(me.status, 200, 'BFF 2 knows the session BFF 1 made')
    t.equal(me.json.email, 'crossing@example.com')
    const token = tab.accessToken
    t.equal((await tab.sendTo(bff2.url, 'POST', '/auth/signout')).status, 200, 'signed out through BFF 2')
    const old = new Tab(appUrl, tab.ip)
    old.cookies.set('sAccessToken', token)
    await until('BFF 1 refuses the ended session', async () => (await old.sendTo(bff1.url, 'GET', '/api/user')).status === 401, 5_000)
    t.pass('BFF 1 refuses the old token too (the revocation list, read from either core)')
  })

  await t.test('b) login-attempt blocking and the per-IP limit of /auth writes are shared by both BFFs', async (t) => {
    await signedIn(bff1.url, 'blocked@example.com', 'the right password')
    const tab = new Tab(appUrl, '203.0.113.10')
    const codes: number[] = []
    for (let i = 0; i < 5; i++) codes.push((await tab.sendTo(i % 2 === 0 ? bff1.url : bff2.url, 'POST', '/auth/signin', signInForm('blocked@example.com', 'a wrong password'))).status)
    t.same(codes, [200, 200, 200, 200, 429], 'five failures over both BFFs block the email')
    const right = await tab.sendTo(bff2.url, 'POST', '/auth/signin', signInForm('blocked@example.com', 'the right password'))
    t.equal(right.status, 429, 'blocked through BFF 2 as well, the right password too')
    t.equal(right.json.status, 'ACCOUNT_BLOCKED')

    // AUTH_RATE_LIMIT_MAX=6 per IP: counted in Redis, whichever BFF answers.
    const visitor = new Tab(appUrl, '203.0.113.20')
    const limited: number[] = []
    for (let i = 0; i < 7; i++) limited.push((await visitor.sendTo(i % 2 === 0 ? bff1.url : bff2.url, 'POST', '/auth/signin', signInForm(`nobody-${i}@example.com`, 'whatever it is'))).status)
    t.same(limited, [200, 200, 200, 200, 200, 200, 429], 'the seventh write, the fourth on BFF 1, is refused')
    const other = await new Tab(appUrl, '203.0.113.21').sendTo(bff2.url, 'POST', '/auth/signin', signInForm('nobody-x@example.com', 'whatever it is'))
    t.equal(other.status, 200, 'another address is counted apart')
  })

  await t.test('c) a library write through one BFF or API is read through the other at once', async (t) => {
    const tab = await signedIn(edge.bff, 'library@example.com')
    t.equal((await tab.sendTo(bff1.url, 'POST', '/api/user/program/blender')).status, 200)
    t.same((await tab.sendTo(bff2.url, 'GET', '/api/user/program-ids')).json.programIds, ['blender'], 'through BFF 2, the next request')
    const added = await fetch(`${api2.url}/api/user/program/gimp`, { method: 'POST', headers: bearer(tab) })
    t.equal(added.status, 200)
    const read = (await (await fetch(`${api1.url}/api/user/program-ids`, { headers: bearer(tab) })).json()) as { programIds: string[] }
    t.same(read.programIds, ['blender', 'gimp'], 'through API 1, the next request')
    const removed = await fetch(`${api1.url}/api/user/program/blender`, { method: 'DELETE', headers: bearer(tab) })
    t.equal(removed.status, 200)
    const listed = (await (await fetch(`${api2.url}/api/user/programs?pageSize=10`, { headers: bearer(tab) })).json()) as { items: Array<{ id: string }> }
    t.same(listed.items.map((item) => item.id), ['gimp'], 'the library listing of API 2 too')
  })

  await t.test('d) a catalogue change reaches the index of both API instances', async (t) => {
    const search = async (api: Service, q: string) => ((await (await fetch(`${api.url}/api/programs?q=${encodeURIComponent(q)}`)).json()) as { items: Array<{ id: string }> }).items.map((item) => item.id)
    const name = `Zephyrine Studio ${randomBytes(3).toString('hex')}`
    // (The search is fuzzy: another program may match a word of the name, e.g. FL Studio; Blender does not.)
    for (const api of [api1, api2]) t.notOk((await search(api, name)).includes('blender'), `${api.name} has its index loaded, without the new name`)
    // A new release's seed, applied as the first API instance of that release applies it at start.
    const seed = readSeed()
    const programs = seed.programs.map((program) => (program.id === 'blender' ? { ...program, name } : program))
    const db = await openPostgres({ connectionString: clusterDbUrl, max: 1 })
    t.teardown(() => db.close())
    t.equal(await applySeed(db, { ...seed, programs, checksum: `${seed.checksum}-renamed` }), true)
    for (const api of [api1, api2]) {
      const waited = await until(`${api.name} finds the new name`, async () => (await search(api, name)).includes('blender'), 10_000)
      t.ok(waited <= 5_000, `${api.name} serves the change within its version check (${waited} ms)`)
    }
  })

  await t.test('e) SIGKILL of one BFF, one API and one core under a stream of writes loses no acknowledged write', async (t) => {
    const WRITERS = 4
    const writers = await Promise.all(Array.from({ length: WRITERS }, (_, i) => signedIn(edge.bff, `writer-${i}@example.com`)))
    const programIds = readSeed().programs.map((program) => program.id)
    const kills: Array<{ name: string; at: number }> = []
    const results: Array<{ email: string; programId: string; status: number; started: number; ended: number }> = []
    const plan = [
      { after: 100, service: core1 },
      { after: 250, service: api1 },
      { after: 400, service: bff1 },
    ]
    let acknowledged = 0
    const killDue = () => {
      for (const step of plan) {
        if (acknowledged >= step.after && !step.service.child.killed) {
          step.service.child.kill('SIGKILL')
          kills.push({ name: step.service.name, at: Date.now() })
        }
      }
    }
    await Promise.all(
      writers.map(async (tab, index) => {
        const email = `writer-${index}@example.com`
        for (const programId of programIds) {
          const started = Date.now()
          let status = 0
          try {
            status = (await tab.sendTo(edge.bff, 'POST', `/api/user/program/${programId}`)).status
          } catch {
            status = 0
          }
          results.push({ email, programId, status, started, ended: Date.now() })
          if (status >= 200 && status < 300) acknowledged += 1
          killDue()
        }
      }),
    )
    t.same(kills.map((kill) => kill.name), ['authcore1', 'api1', 'bff1'], 'each was killed mid-run')
    await until('the killed processes are gone', () => [core1, api1, bff1].every((service) => service.child.signalCode === 'SIGKILL'), 5_000)
    const lastKill = Math.max(...kills.map((kill) => kill.at))
    t.ok(results.filter((result) => result.started > lastKill && result.status === 200).length >= 100, 'the survivors acknowledged writes after the last kill')
    const acked = results.filter((result) => result.status >= 200 && result.status < 300)
    const failed = results.filter((result) => !(result.status >= 200 && result.status < 300))
    t.comment(`${results.length} writes, ${acked.length} acknowledged, ${failed.length} failed: ${JSON.stringify(failed)}`)
    const { rows } = await sql.query<{ email: string; program_id: string }>('SELECT u.email, p.program_id FROM api.user_programs p JOIN api.users u ON u.id = p.user_id WHERE u.email LIKE $1', ['writer-%'])
    const stored = new Set(rows.map((row) => `${row.email} ${row.program_id}`))
    const lost = acked.filter((result) => !stored.has(`${result.email} ${result.programId}`))
    t.same(lost, [], 'every acknowledged add is in the database')
    const outsideKills = failed.filter((result) => !kills.some((kill) => result.started <= kill.at && kill.at <= result.ended))
    t.same(outsideKills, [], 'every failed write was in flight when a process was killed')
    t.ok(failed.length <= WRITERS * kills.length, `at most the writes in flight fail (${failed.length})`)
    t.equal((await (await fetch(`${edge.bff}/readyz`)).status), 200, 'the survivors answer')
  })
}

if (!databaseUrl) {
  t.plan(0, 'TEST_DATABASE_URL is unset: the cluster test needs a PostgreSQL server')
} else if (missing.length > 0) {
  t.plan(0, `${missing.join(' and ')} not installed (apt-get install redis-server haproxy): the cluster test is skipped`)
} else {
  if (!fs.existsSync(main)) throw new Error('dist/ is missing: run "npm run build" before the system tests (npm test does).')
  await cluster(databaseUrl)
}
