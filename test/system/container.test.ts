import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { freePort, root, tempDir, formFields } from '../helpers.ts'

// The image as an operator runs it: built by scripts/container/build.sh with podman,
// run with a host folder at /data, healthy by its own HEALTHCHECK, used through the BFF as a
// browser would, as uid 1000, stopped by SIGTERM with exit code 0, and started again on the same
// folder with the account still there. Skipped only when podman is missing or cannot run here.

// A fresh machine builds the base image and the app image: minutes on 2 cores.
const BUILD_LIMIT_MS = 30 * 60_000
const HEALTHY_LIMIT_MS = 180_000
const STOP_GRACE_S = 30
t.setTimeout(BUILD_LIMIT_MS + 10 * 60_000)

const image = process.env.SOFTSHELF_TEST_IMAGE ?? 'localhost/softshelf:test'
const scripts = path.join(root, 'scripts', 'container')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** A command with a bound: killed (and reported) when it runs past `limitMs`. */
function run(command: string, args: string[], limitMs: number, env: NodeJS.ProcessEnv = podmanEnv()): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()))
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${limitMs} ms)`
      child.kill('SIGKILL')
    }, limitMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}` })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** What scripts/container/env.sh exports: the project's podman configuration. */
function podmanEnv(): NodeJS.ProcessEnv {
  const dir = process.env.SOFTSHELF_CONTAINER_DIR ?? path.join(root, '.container')
  const env: NodeJS.ProcessEnv = { ...process.env }
  if (fs.existsSync(path.join(dir, 'containers.conf'))) env.CONTAINERS_CONF = path.join(dir, 'containers.conf')
  if (fs.existsSync(path.join(dir, 'storage.conf'))) env.CONTAINERS_STORAGE_CONF = path.join(dir, 'storage.conf')
  return env
}

const podman = (args: string[], limitMs = 60_000) => run('podman', args, limitMs)
const tail = (text: string, lines = 40) => text.trim().split('\n').slice(-lines).join('\n')

/** A browser over real HTTP: keeps its cookies, sends the headers the app's client sends. */
class Tab {
  private readonly cookies = new Map<string, string>()
  constructor(private readonly base: string, private readonly origin: string) {}

  async request(method: string, url: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
    if (method !== 'GET') Object.assign(headers, { rid: 'anti-csrf', 'fdi-version': '4.2', origin: this.origin, 'content-type': 'application/json' })
    const response = await fetch(`${this.base}${url}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), signal: AbortSignal.timeout(30_000) })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1).trim()
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }

  async json(method: string, url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await this.request(method, url, body)
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
}


/**
 * The verification token mailed to `to`. The image runs with NODE_ENV=production, so /dev/mail is
 * not served: the operator reads the mail where it is kept, DATA_DIR/mail.
 */
async function verificationToken(container: string, to: string): Promise<string> {
  const script = "const fs=require('fs');for(const f of fs.readdirSync('/data/mail').sort())if(f.endsWith('.json'))console.log(fs.readFileSync('/data/mail/'+f,'utf8').replace(/\\n/g,' '))"
  const listed = await podman(['exec', container, 'node', '-e', script])
  const mail = listed.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { to: string; text: string }).filter((m) => m.to === to).at(-1)
  if (!mail) throw new Error(`no mail to ${to} in /data/mail`)
  const token = /verify-email\?token=([^&"\s]+)/.exec(mail.text)?.[1]
  if (!token) throw new Error('no verification link in the mail')
  return decodeURIComponent(token)
}

const setup = await run(path.join(scripts, 'setup.sh'), [], 120_000, process.env)
const said = tail(setup.stderr, 3).replace(/^setup: /, '').replace(/\s+/g, ' ')
// setup.sh exits 3 when podman or runc is missing, 1 when podman does not work here.
const skip = setup.code === 3 ? said : setup.code !== 0 ? `podman cannot run here: ${said}` : false

const test = async (t: Test) => {
  const started = Date.now()
  const build = await run(path.join(scripts, 'build.sh'), [], BUILD_LIMIT_MS, { ...process.env, SOFTSHELF_IMAGE: image })
  if (build.code !== 0) {
    t.fail(`the image build failed (exit ${build.code}):\n${tail(`${build.stdout}\n${build.stderr}`)}`)
    return
  }
  const size = Number((await podman(['image', 'inspect', '--format', '{{.Size}}', image])).stdout.trim())
  t.comment(`image ${image}: ${(size / 1e6).toFixed(0)} MB, built in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  t.ok(size > 0, 'the image exists')
  const config = JSON.parse((await podman(['image', 'inspect', '--format', '{{json .HealthCheck}}', image])).stdout) as { Test?: string[] } | null
  t.match(config?.Test, ['CMD', 'node', 'dist/server/healthcheck.js'], 'the image carries its HEALTHCHECK (Docker format)')

  const dataDir = tempDir(t)
  const port = await freePort()
  const ports = { PORT: String(port), API_PORT: String(await freePort()), AUTH_CORE_PORT: String(await freePort()) }
  const base = `http://127.0.0.1:${port}`
  const appUrl = `http://localhost:${port}`
  const names: string[] = []
  t.teardown(async () => {
    for (const name of names) await podman(['rm', '--force', '--time', '0', name])
  })

  const start = async (): Promise<string> => {
    const name = `softshelf-test-${randomBytes(4).toString('hex')}`
    names.push(name)
    const env = Object.entries({ ...ports, APP_URL: appUrl, AUTH_RATE_LIMIT_MAX: '1000', OVERLOAD_EVENT_LOOP_DELAY_MS: '0' }).flatMap(([key, value]) => ['--env', `${key}=${value}`])
    const started = await podman(['run', '--detach', '--name', name, '--network', 'host', '--volume', `${dataDir}:/data:U`, ...env, image])
    if (started.code !== 0) throw new Error(`podman run failed: ${started.stderr}`)
    // The image's own HEALTHCHECK, run on demand (no systemd timers here).
    const since = Date.now()
    for (;;) {
      if ((await podman(['healthcheck', 'run', name])).code === 0) return name
      const state = (await podman(['inspect', '--format', '{{.State.Status}}', name])).stdout.trim()
      if (state !== 'running') throw new Error(`the container stopped (${state}):\n${tail((await podman(['logs', name])).stdout)}`)
      if (Date.now() - since > HEALTHY_LIMIT_MS) throw new Error(`not healthy within ${HEALTHY_LIMIT_MS} ms:\n${tail((await podman(['logs', name])).stdout)}`)
      await new Promise((resolve) => setTimeout(resolve, 1_000))
    }
  }

  const first = await start()
  t.pass('healthy by its HEALTHCHECK')
  const status = (await podman(['exec', first, 'cat', '/proc/1/status'])).stdout
  t.match(status, /^Uid:\s+1000\s+1000\s+1000\s+1000$/m, 'node (PID 1) runs as uid 1000')
  const cmdline = (await podman(['exec', first, 'cat', '/proc/1/cmdline'])).stdout.split('\0').filter(Boolean)
  t.same(cmdline, ['node', 'dist/server/main.js', 'all'], 'PID 1 is node itself, so SIGTERM reaches it')

  const version = await (await fetch(`${base}/api/version`, { signal: AbortSignal.timeout(10_000) })).json()
  t.match(version, { version: /^\d+\.\d+\.\d+\+/ }, '/api/version answers through the BFF')

  const email = `container-${randomBytes(3).toString('hex')}@example.com`
  const password = 'correct horse battery'
  const tab = new Tab(base, appUrl)
  const signUp = await tab.json('POST', '/auth/signup', formFields({ email, password }))
  t.match(signUp, { status: 200, body: { status: 'OK' } }, 'signed up')
  const verified = await tab.json('POST', '/auth/user/email/verify', { method: 'token', token: await verificationToken(first, email) })
  t.match(verified, { status: 200, body: { status: 'OK' } }, 'the mailed link verifies the address')
  t.equal((await fetch(`${base}/dev/mail`, { signal: AbortSignal.timeout(10_000) })).status, 404, 'no local mailbox page in production, though every header is local')
  t.equal((await tab.request('POST', '/api/user/accept-tos', { isInMailList: false })).status, 200, 'terms accepted')
  t.match(await tab.json('GET', '/api/user'), { status: 200, body: { email } }, 'the signed-in user reads their account')
  t.ok(fs.readdirSync(dataDir).includes('pglite'), 'the database is in the mounted folder')

  const stopping = Date.now()
  const stopped = await podman(['stop', '--time', String(STOP_GRACE_S), first], (STOP_GRACE_S + 30) * 1000)
  t.equal(stopped.code, 0, 'podman stop', stopped.code === 0 ? {} : { stderr: stopped.stderr })
  t.ok(Date.now() - stopping < STOP_GRACE_S * 1000, `stopped within the ${STOP_GRACE_S} s grace period, not killed`)
  const exit = (await podman(['inspect', '--format', '{{.State.ExitCode}}', first])).stdout.trim()
  t.equal(exit, '0', 'exit code 0 after SIGTERM')
  t.match((await podman(['logs', first])).stdout, /"signal":"SIGTERM","msg":"shutting down"/, 'node itself got the SIGTERM')

  await start()
  const again = new Tab(base, appUrl)
  t.match(await again.json('POST', '/auth/signin', formFields({ email, password })), { status: 200, body: { status: 'OK' } }, 'the same account signs in after a restart on the same folder')
  t.match(await again.json('GET', '/api/user'), { status: 200, body: { email } }, 'and reads their account')
}

await t.test('the image builds, serves, stops on SIGTERM and keeps its data', { skip }, test)
