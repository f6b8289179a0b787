import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { chromium } from '@playwright/test'
import { newestPostgresBin, throwawayPostgres } from '../../scripts/throwaway-postgres.ts'
import { freePort, root, tempDir, TEST_AUTH_CORE_API_KEY, TEST_AUTH_CORE_SECRET } from '../helpers.ts'
import { decodeQuotedPrintable, startSmtpServer, type ReceivedMail } from '../smtp-server.ts'
import { signInForm, stopProcess, Tab, until } from './support.ts'

// The database outage as it happened in the fault run: PostgreSQL stopped under a running
// auth core, API and BFF (each a `node dist/server/main.js <role>` process), then started again.
// It was 502 BFF_UPSTREAM_BAD_RESPONSE for every /api call and page, 500 for /auth, and an error
// line per failed request. Now every caller gets 503 with Retry-After and a stable code, a refresh
// keeps the session, each service writes one warn line for the outage and one info line when it
// ends, and everything answers again by itself once PostgreSQL is back. The server is this test's
// own (the Debian binaries, a temporary data folder), so it can be stopped and started.

const bin = newestPostgresBin()
const main = path.join(root, 'dist', 'server', 'main.js')
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

interface Line {
  level: number
  msg: string
  outage?: string
  cause?: string
  failures?: number
  downMs?: number
}

interface Service {
  name: 'authcore' | 'api' | 'bff'
  url: string
  child: ChildProcess
  /** Every JSON line the service wrote to stdout so far. */
  lines: () => Line[]
  output: () => string
}

function startService(name: Service['name'], env: NodeJS.ProcessEnv, url: string): Service {
  const child = spawn(process.execPath, [main, name], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  const lines = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line)
  return { name, url, child, lines, output: () => output }
}

const stopService = (service: Service) => stopProcess(service.child)

async function outage(t: Test): Promise<void> {
  const postgres = await throwawayPostgres(bin!)
  t.teardown(() => postgres.remove())
  const smtp = await startSmtpServer(t)
  const dataDir = tempDir(t)
  const ports = { bff: await freePort(), api: await freePort(), authcore: await freePort() }
  const urlOf = (port: number) => `http://127.0.0.1:${port}`
  const appUrl = urlOf(ports.bff)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    // Access lines and the outage's info line are what this test reads.
    LOG_LEVEL: 'info',
    OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: postgres.url,
    AUTH_CORE_API_KEYS: TEST_AUTH_CORE_API_KEY,
    AUTH_CORE_SECRET: TEST_AUTH_CORE_SECRET,
    OPERATOR_TOKEN: randomBytes(16).toString('hex'),
    SMTP_URL: smtp.url,
    APP_URL: appUrl,
    UPSTREAM_API_URL: urlOf(ports.api),
    AUTH_CORE_URL: urlOf(ports.authcore),
    HOST: '127.0.0.1',
    API_HOST: '127.0.0.1',
    AUTH_CORE_HOST: '127.0.0.1',
    PORT: String(ports.bff),
    API_PORT: String(ports.api),
    AUTH_CORE_PORT: String(ports.authcore),
    RATE_LIMIT_MAX: '100000',
    AUTH_RATE_LIMIT_MAX: '100000',
    SHUTDOWN_TIMEOUT_MS: '3000',
  }
  delete env.TEST_MODE
  delete env.TAP
  const services: Service[] = []
  t.teardown(() => Promise.all(services.map(stopService)))
  // The core first: the API and the BFF read its keys and revocation list from the start.
  services.push(startService('authcore', env, urlOf(ports.authcore)))
  await until('the auth core says hello', async () => (await fetch(`${urlOf(ports.authcore)}/hello`)).ok || undefined)
  services.push(startService('api', env, urlOf(ports.api)), startService('bff', env, appUrl))
  try {
    for (const service of services.slice(1)) await until(`${service.name} is ready`, async () => (await fetch(`${service.url}/readyz`)).ok || undefined)
  } catch (error) {
    for (const service of services) t.comment(`${service.name}:\n${service.output().slice(-4000)}`)
    throw error
  }

  const mailTo = async (to: string): Promise<ReceivedMail> => until(`a mail to ${to}`, async () => smtp.received.findLast((mail) => mail.to.includes(to)), 10_000)
  const email = 'outage@example.com'
  const password = 'correct horse battery'
  const tab = new Tab(appUrl)
  t.equal((await tab.send('POST', '/auth/signup', signInForm(email, password))).json.status, 'OK')
  const link = /https?:\/\/\S+verify-email\?token=[A-Za-z0-9_-]+/.exec(decodeQuotedPrintable((await mailTo(email)).raw))?.[0]
  t.equal((await tab.send('POST', '/auth/user/email/verify', { method: 'token', token: new URL(link!).searchParams.get('token') })).json.status, 'OK')
  t.equal((await tab.send('POST', '/api/user/accept-tos', { isInMailList: false })).status, 200)
  t.equal((await tab.send('GET', '/api/user')).status, 200, 'signed in')
  t.equal((await tab.send('GET', '/api/programs?pageSize=1')).status, 200)
  const before = Object.fromEntries(services.map((service) => [service.name, service.lines().length]))
  const during = (service: Service) => service.lines().slice(before[service.name])

  postgres.stop()
  const visitor = new Tab(appUrl)
  let pageSize = 1
  // Several rounds of everything: the log must not grow with them.
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 4; i++) {
      pageSize += 1
      // A page size not asked before: not in the BFF's short shared cache.
      const programs = await visitor.send('GET', `/api/programs?pageSize=${pageSize}`)
      t.equal(programs.status, 503, `/api/programs: ${programs.text}`)
      t.equal(programs.json.code, 'BFF_UPSTREAM_UNAVAILABLE')
      t.equal(programs.headers.get('retry-after'), '2', 'with the API\'s Retry-After')
    }
    const page = await visitor.send('GET', `/?round=${round}`, undefined, { accept: 'text/html', 'accept-language': 'hu' })
    t.equal(page.status, 503, 'a page is 503')
    t.ok(page.headers.get('retry-after'), 'with Retry-After')
    t.match(page.text, /data-status="503"/)
    t.match(page.text, /A szolgáltatás nem érhető el/, 'the error page, in the visitor\'s language')
    const signIn = await visitor.send('POST', '/auth/signin', signInForm(email, password))
    t.equal(signIn.status, 503, `sign-in: ${signIn.text}`)
    t.equal(signIn.json.code, 'BFF_AUTH_CORE_UNAVAILABLE')
    t.ok(signIn.headers.get('retry-after'))
    const cookies = new Map(tab.cookies)
    const refresh = await tab.send('POST', '/auth/session/refresh')
    t.equal(refresh.status, 503, `a refresh is 503, never 401: ${refresh.text}`)
    t.equal(refresh.json.code, 'BFF_AUTH_CORE_UNAVAILABLE')
    t.ok(refresh.headers.get('retry-after'))
    t.same(tab.setCookies, [], 'and sets or clears no cookie')
    t.same(new Map(tab.cookies), cookies)
  }
  // The outage is every instance's; /readyz stays 200 (the balancer keeps the instance,
  // whose own 503s answer) and reports it.
  const ready = await until('/readyz reports the database unreachable', async () => {
    const answer = await fetch(`${appUrl}/readyz`)
    const report = (await answer.json()) as { dependencies?: { database?: string } }
    return report.dependencies?.database === 'unreachable' ? answer.status : undefined
  }, 10_000)
  t.equal(ready, 200, '/readyz 200, the outage reported')

  for (const service of services) {
    const lines = during(service)
    t.same(lines.filter((line) => line.level >= 50), [], `${service.name}: no error lines`)
    const warned = lines.filter((line) => line.msg === 'database unreachable')
    t.equal(warned.length, 1, `${service.name}: one "database unreachable" line`)
    t.match(warned[0], { level: 40, outage: 'database', cause: /^(ECONNREFUSED|ECONNRESET|57P01|57P03|CONNECTION_TERMINATED|CONNECTION_LOST)$/ })
    const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg)
    t.equal(new Set(warnings).size, warnings.length, `${service.name}: no warning repeats (${warnings.join('; ')})`)
  }

  // A browser whose access token is gone (expired) gets the page that refreshes the session: the
  // refresh answers 503, so the page says the service is unavailable — not "sign in again" — and
  // tries again by itself; once PostgreSQL is back, the session is restored and the page renders.
  const browser = fs.existsSync(chromiumPath) ? await chromium.launch({ executablePath: chromiumPath }) : undefined
  t.teardown(() => browser?.close())
  const signedInPage = await browser?.newPage()
  if (browser && signedInPage) {
    const host = new URL(appUrl).hostname
    await signedInPage.context().addCookies([
      { name: 'sRefreshToken', value: tab.cookies.get('sRefreshToken')!, domain: host, path: '/auth/session/refresh', httpOnly: true },
      { name: 'sFrontToken', value: 'left-by-the-sdk', domain: host, path: '/' },
    ])
    await signedInPage.goto(`${appUrl}/@`)
    await signedInPage.locator('#refresh-unavailable').waitFor({ state: 'visible', timeout: 10_000 })
    t.match(await signedInPage.locator('#refresh-unavailable').textContent(), /Service unavailable/, 'the refresh page says the service is unavailable')
    t.ok(await signedInPage.locator('#refresh-failed').isHidden(), 'and does not send the person to sign in')
  } else {
    t.comment(`no Chromium at ${chromiumPath}: the refresh page in a browser is not checked`)
  }

  postgres.start()
  const restarted = Date.now()
  await until('/api/programs answers', async () => ((await visitor.send('GET', `/api/programs?pageSize=${pageSize + 1}`)).status === 200 ? true : undefined), 15_000)
  t.comment(`/api answers again ${Date.now() - restarted} ms after PostgreSQL accepted connections`)
  // Readiness is kept for a second (server/http/readiness.ts).
  await until('/readyz reports the database', async () => (((await (await fetch(`${appUrl}/readyz`)).json()) as { dependencies?: { database?: string } }).dependencies?.database === 'ok' ? true : undefined), 15_000)
  const refreshed = await tab.send('POST', '/auth/session/refresh')
  t.equal(refreshed.status, 200, `the session refreshes: ${refreshed.text}`)
  // Past 10 s of outage the revocation list is stale until its next read, within half a second.
  const user = await until('/api/user answers', async () => {
    const response = await tab.send('GET', '/api/user')
    return response.status === 200 ? response : undefined
  }, 5_000)
  t.equal(user.json.email, email, 'and is still the user\'s')
  t.equal((await visitor.send('GET', '/?after=1', undefined, { accept: 'text/html' })).status, 200, 'pages render')
  t.equal((await visitor.send('POST', '/auth/signin', signInForm(email, password))).json.status, 'OK', 'sign-in works')
  if (signedInPage) {
    await signedInPage.waitForFunction(() => document.getElementById('refresh-unavailable') === null && document.readyState === 'complete', undefined, { timeout: 15_000 })
    t.notMatch(signedInPage.url(), /\/login/, 'the browser\'s session was restored, not ended')
    const cookies = await signedInPage.context().cookies()
    t.ok(cookies.some((cookie) => cookie.name === 'sAccessToken'), 'with a new access token')
  }
  for (const service of services) {
    const ended = await until(`${service.name} says the outage ended`, async () => during(service).find((line) => line.msg === 'database reachable again'), 5_000)
    t.match(ended, { level: 30, outage: 'database', failures: Number, downMs: Number })
    t.equal(during(service).filter((line) => line.msg === 'database reachable again').length, 1, `${service.name}: one line`)
  }
}

if (!process.env.TEST_DATABASE_URL) {
  t.plan(0, 'TEST_DATABASE_URL is unset: the database-outage test runs with the PostgreSQL tests')
} else if (!bin) {
  t.plan(0, 'no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql): the database-outage test is skipped')
} else {
  if (!fs.existsSync(main)) throw new Error('dist/ is missing: run "npm run build" before the system tests (npm test does).')
  await t.test('PostgreSQL stopped under the auth core, the API and the BFF, then started again', outage)
}
