import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { loadConfig, mailProblem, roleProblems } from '../../server/config.ts'
import { VARIABLES } from '../../server/config/variables.ts'
import { freePort, root, tempDir, waitUntil, within } from '../helpers.ts'

// compose.yaml and deploy/haproxy.cfg as an operator gets them: every service checked
// for health, secrets only from the environment, the app's services configured with variables
// the configuration's schema names (and a configuration it accepts), HAProxy's backends where the services listen.

interface Service {
  image?: string
  command?: string[]
  environment?: Record<string, string | number | boolean | null>
  healthcheck?: { test?: string[] }
  ports?: string[]
  volumes?: string[]
}

const composeText = fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8')
const compose = parse(composeText, { merge: true }) as { services: Record<string, Service> }
const services = compose.services
const haproxyFile = path.join(root, 'deploy', 'haproxy.cfg')
const haproxyText = fs.readFileSync(haproxyFile, 'utf8')

/** The app's own services: those started from the Softshelf image with a role as the command. */
const appServices = Object.entries(services).filter(([, service]) => service.image?.includes('softshelf'))

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?message} (refused when VAR is unset or empty). */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g, (_match, name: string, kind: string | undefined, rest: string | undefined) => {
    const given = env[name]
    if (given !== undefined && given !== '') return given
    if (kind === '?') throw new Error(`required variable ${name} is missing: ${rest}`)
    return kind === '-' ? (rest ?? '') : ''
  })
}

/** What an operator exports: valid values for every secret compose asks for. */
const operatorEnv = {
  POSTGRES_PASSWORD: 'pgpassword0123456789',
  AUTH_CORE_SECRET: 'a-secret-of-at-least-thirty-two-characters-0123',
  AUTH_CORE_API_KEYS: 'core-api-key-0123456789abcdef',
  OPERATOR_TOKEN: 'operator-token-0123456789abcdef',
  SMTP_URL: 'smtp://mailer:mailpassword@mail.example.com:587',
  APP_URL: 'https://shelf.example.com',
}

function environmentOf(service: Service, env: Record<string, string> = operatorEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value ?? ''), env)]))
}

t.test('the set: a database, Redis, two of each role and a load balancer', async (t) => {
  const roles = appServices.map(([, service]) => service.command?.[0]).sort()
  t.same(roles, ['api', 'api', 'authcore', 'authcore', 'bff', 'bff'])
  t.ok(services.postgres && services.redis && services.lb, 'postgres, redis and lb')
  t.same(
    Object.entries(services).filter(([, service]) => service.ports?.length).map(([name]) => name),
    ['lb'],
    'only the load balancer is published',
  )
})

t.test('every service has a health check', async (t) => {
  for (const [name, service] of Object.entries(services)) {
    t.ok(Array.isArray(service.healthcheck?.test) && service.healthcheck.test.length > 1, name)
  }
})

t.test('secrets come only from the environment, and compose refuses to start without them', async (t) => {
  const secrets = ['POSTGRES_PASSWORD', 'AUTH_CORE_SECRET', 'AUTH_CORE_API_KEYS', 'OPERATOR_TOKEN', 'SMTP_URL', 'APP_URL']
  const looksSecret = /SECRET|PASSWORD|TOKEN|_KEY|SMTP_URL|DSN/
  for (const [name, service] of Object.entries(services)) {
    for (const [variable, value] of Object.entries(service.environment ?? {})) {
      const text = String(value ?? '')
      if (looksSecret.test(variable)) t.match(text, /^\$\{[A-Z0-9_]+:\?[^}]+\}$/, `${name}: ${variable} is required from the environment`)
      // A URL with a password (DATABASE_URL) takes it from the environment too.
      const userinfo = /^[a-z]+:\/\/[^/@:]*:([^@]*)@/.exec(text)
      if (userinfo) t.match(userinfo[1], /^\$\{[A-Z0-9_]+:\?[^}]+\}$/, `${name}: ${variable} has no literal password`)
    }
  }
  for (const secret of secrets) {
    t.match(composeText, new RegExp(`\\$\\{${secret}:\\?`), `${secret} is asked for`)
    t.notMatch(composeText, new RegExp(`\\$\\{${secret}(?::-|\\})`), `${secret} has no default`)
    const without: Record<string, string> = { ...operatorEnv }
    delete without[secret as keyof typeof operatorEnv]
    t.throws(() => Object.values(services).forEach((service) => environmentOf(service, without)), new RegExp(`required variable ${secret} is missing`), `without ${secret}, nothing starts`)
  }
})

t.test("the app services set only variables of the configuration's schema, and it accepts them", async (t) => {
  const known = new Set(Object.keys(VARIABLES))
  for (const [name, service] of appServices) {
    for (const variable of Object.keys(service.environment ?? {})) t.ok(known.has(variable), `${name}: ${variable} is a variable of server/config/variables.ts`)
    const command = service.command?.[0]
    if (command === 'bff' || command === 'api' || command === 'authcore') t.same(roleProblems(loadConfig(environmentOf(service)), command), [], `${name}: nothing its role needs is missing`)
    const env = environmentOf(service)
    const config = loadConfig(env)
    if (service.command?.[0] === 'bff') t.equal(mailProblem(config), undefined, `${name}: mail is configured`)
    t.ok(config.databaseUrl, `${name}: on PostgreSQL`)
    if (service.command?.[0] === 'authcore') t.ok(config.authCoreSecret && config.authCoreApiKeys, `${name}: has its secret and keys`)
    else t.same(config.authCoreApiKeys, [operatorEnv.AUTH_CORE_API_KEYS], `${name}: calls the core with its key`)
  }
})

t.test('HAProxy sends each backend to the services where they listen, checked on the right endpoint', async (t) => {
  const listenPort = (service: Service): string => {
    const env = environmentOf(service)
    return { bff: env.PORT, api: env.API_PORT, authcore: env.AUTH_CORE_PORT }[service.command?.[0] ?? ''] ?? ''
  }
  const backends = new Map<string, { check: string; servers: Array<{ host: string; port: string }> }>()
  let current: string | undefined
  for (const line of haproxyText.split('\n').map((l) => l.trim())) {
    const section = /^(backend|frontend|defaults|global|resolvers)\s*(\S*)/.exec(line)
    if (section) current = section[1] === 'backend' ? section[2] : undefined
    if (!current) continue
    const entry = backends.get(current) ?? { check: '', servers: [] }
    backends.set(current, entry)
    const check = /^option httpchk GET (\S+)/.exec(line)
    if (check) entry.check = check[1]!
    const server = /^server \S+ ([a-z0-9-]+):(\d+)/.exec(line)
    if (server) entry.servers.push({ host: server[1]!, port: server[2]! })
  }
  const expected = { bff: '/readyz', api: '/readyz', authcore: '/readyz' }
  for (const [role, check] of Object.entries(expected)) {
    const backend = backends.get(role)
    t.equal(backend?.check, check, `${role}: checked on ${check}`)
    const targets = appServices.filter(([, service]) => service.command?.[0] === role).map(([name, service]) => ({ host: name, port: listenPort(service) }))
    t.same(backend?.servers, targets, `${role}: both instances, on the port they listen on`)
  }
  // The services reach each other through the load balancer's frontends.
  const binds = new Set([...haproxyText.matchAll(/^\s*bind :(\d+)/gm)].map((match) => match[1]))
  for (const [name, service] of appServices) {
    for (const variable of ['AUTH_CORE_URL', 'UPSTREAM_API_URL']) {
      const url = environmentOf(service)[variable]
      if (url === undefined) continue
      const parsed = new URL(url)
      t.equal(parsed.hostname, 'lb', `${name}: ${variable} goes through the load balancer`)
      t.ok(binds.has(parsed.port), `${name}: HAProxy listens on ${parsed.port}`)
    }
  }
  t.ok(binds.has('3000'), 'the BFF frontend is on :3000')
})

const haproxy = spawnSync('haproxy', ['-v'], { encoding: 'utf8' })
t.test('haproxy accepts deploy/haproxy.cfg', { skip: haproxy.error ? 'haproxy is not installed (apt-get install haproxy)' : false }, async (t) => {
  // From another folder: the files it names (errors/*.json) are found beside it.
  const result = spawnSync('haproxy', ['-c', '-q', '-f', haproxyFile], { encoding: 'utf8', timeout: 30_000, cwd: tempDir(t) })
  t.equal(result.status, 0, result.stderr)
})

t.test('the load balancer gets deploy/ whole: its configuration and the error answers it names', async (t) => {
  t.same(services.lb?.volumes, ['./deploy:/usr/local/etc/haproxy:ro'], 'the official image reads /usr/local/etc/haproxy/haproxy.cfg')
  const named = [...haproxyText.matchAll(/\blf-file (\S+)/g)].map((match) => match[1]!)
  t.same(named.sort(), ['errors/502.json', 'errors/503.json', 'errors/504.json'])
  for (const file of named) t.ok(fs.existsSync(path.join(root, 'deploy', file)), `deploy/${file} is there`)
  t.match(haproxyText, /^\s*default-path config$/m, 'and found beside the configuration')
})

t.test('the public frontend holds one address to 100 connections at once', { skip: haproxy.error ? 'haproxy is not installed (apt-get install haproxy)' : false }, async (t) => {
  // The frontend's own connection-tracking lines, run by HAProxy on loopback in front of a server
  // that keeps every connection open: the 101st from 127.0.0.1 is refused, and a freed place is reused.
  const web = /^frontend web\n([\s\S]*?)(?=\n\S)/m.exec(haproxyText)?.[1] ?? ''
  const limits = web.split('\n').filter((line) => /stick-table|tcp-request connection/.test(line))
  t.equal(limits.length, 3, limits.join('\n'))
  const held: net.Socket[] = []
  const backend = net.createServer((socket) => void held.push(socket))
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve))
  const front = await freePort()
  const dir = tempDir(t)
  const config = path.join(dir, 'haproxy.cfg')
  fs.writeFileSync(
    config,
    [
      'global',
      '  maxconn 1000',
      'defaults',
      '  mode tcp',
      '  timeout connect 5s',
      '  timeout client 30s',
      '  timeout server 30s',
      'frontend web',
      `  bind 127.0.0.1:${front}`,
      ...limits,
      '  default_backend app',
      'backend app',
      `  server app 127.0.0.1:${(backend.address() as net.AddressInfo).port}`,
      '',
    ].join('\n'),
  )
  const proxy = spawn('haproxy', ['-db', '-f', config], { stdio: 'ignore' })
  const clients: net.Socket[] = []
  t.teardown(() => {
    proxy.kill('SIGKILL')
    for (const socket of [...clients, ...held]) socket.destroy()
    backend.close()
  })
  /**
   * Opens a connection and says whether HAProxy keeps it (the backend sees one more) or refuses it
   * (closed or reset, before or after the handshake). `before`: the backend's count beforehand.
   */
  const attempt = (before: number) =>
    within(
      new Promise<boolean>((resolve) => {
        const socket = net.connect(front, '127.0.0.1')
        clients.push(socket)
        const check = setInterval(() => {
          if (held.length > before) {
            clearInterval(check)
            resolve(true)
          }
        }, 10)
        const refused = () => {
          clearInterval(check)
          resolve(false)
        }
        socket.once('error', refused)
        socket.once('close', refused)
      }),
      10_000,
    )
  // HAProxy is up once a connection reaches the server.
  await waitUntil(() => attempt(0), 10_000, { every: 50, what: 'HAProxy lets a connection through' })
  for (let i = 1; i < 100; i++) if (!(await attempt(i))) t.fail(`connection ${i + 1} was refused`)
  t.equal(held.length, 100, '100 connections at once are let through')
  t.notOk(await attempt(100), 'the 101st is closed by HAProxy')
  clients.find((socket) => !socket.destroyed)!.destroy()
  await waitUntil(() => attempt(held.length), 10_000, { every: 20, what: 'a freed place is taken again' })
  t.pass('a place freed by a closed connection is given to a new one')
})
