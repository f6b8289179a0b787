import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { Test } from 'tap'
import { freePort, lastMailLinkIn, pollFor, root } from '../helpers.ts'

// What the system tests share: the built app started as `npm start` starts it, a browser tab over
// real HTTP, the embedded mailbox, and bounded waits. Needs dist/ (npm test builds it first).

export const main = path.join(root, 'dist', 'server', 'main.js')

/** What answers within `ms` (an attempt that throws has not answered yet), or fails saying what it waited for. */
export function until<T>(what: string, attempt: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  return pollFor(attempt, { what, ms, every: 100, ignoreErrors: true })
}

export function exited(child: ChildProcess, ms = 20_000): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    const timer = setTimeout(() => reject(new Error(`the app did not exit within ${ms} ms`)), ms)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
}

/** Stops a process: SIGTERM, SIGKILL when it has not exited after `graceMs`; resolves once it has exited. */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await gone
  clearTimeout(timer)
}

/** A browser tab over real HTTP: the SDK's headers, and a cookie jar. */
export function tab(baseUrl: string, origin: string) {
  const cookies = new Map<string, string>()
  const request = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      headers: {
        rid: 'anti-csrf',
        'fdi-version': '4.2',
        origin,
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(body !== undefined && !(body instanceof Uint8Array) ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: body instanceof Uint8Array ? (body as Uint8Array<ArrayBuffer>) : JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';')
      const [name, value = ''] = pair!.split('=')
      const expired = value === '' || attributes.some((attribute) => /^\s*expires=Thu, 01 Jan 1970/i.test(attribute))
      if (expired) cookies.delete(name!.trim())
      else cookies.set(name!.trim(), value)
    }
    return response
  }
  return {
    get: (url: string) => request('GET', url),
    post: (url: string, body: unknown = {}, headers?: Record<string, string>) => request('POST', url, body, headers),
    patch: (url: string, body: Uint8Array, headers: Record<string, string>) => request('PATCH', url, body, headers),
    delete: (url: string) => request('DELETE', url),
  }
}

/**
 * A browser over real HTTP to one app (or, with `sendTo`, to one instance behind it): its cookies,
 * the BFF's anti-forgery headers and, when given, its address (X-Forwarded-For, believed from
 * 127.0.0.1 by TRUST_PROXY). Answers come back read: status, headers, JSON (when it is JSON), text.
 */
export class Tab {
  readonly cookies = new Map<string, string>()
  /** The Set-Cookie headers of the last answer. */
  setCookies: string[] = []
  constructor(
    private readonly appUrl: string,
    readonly ip?: string,
  ) {}

  send(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.sendTo(this.appUrl, method, urlPath, body, headers)
  }

  async sendTo(base: string, method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${base}${urlPath}`, {
      method,
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        origin: new URL(this.appUrl).origin,
        rid: 'anti-csrf',
        'fdi-version': '4.2',
        accept: 'application/json',
        ...(this.ip ? { 'x-forwarded-for': this.ip } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    })
    this.setCookies = response.headers.getSetCookie()
    for (const line of this.setCookies) {
      const [pair = ''] = line.split(';')
      const name = pair.slice(0, pair.indexOf('='))
      const value = pair.slice(pair.indexOf('=') + 1)
      if (value === '' || /max-age=0|expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const text = await response.text()
    let json: Record<string, unknown> = {}
    try {
      json = JSON.parse(text) as Record<string, unknown>
    } catch {
      // a page, or no body: the status and text say enough
    }
    return { status: response.status, headers: response.headers, json, text }
  }

  get accessToken(): string {
    return this.cookies.get('sAccessToken') ?? ''
  }
}

/** The email-password form the SDK posts to sign up and sign in. */
export const signInForm = (email: string, password: string) => ({ formFields: [{ id: 'email', value: email }, { id: 'password', value: password }] })

export interface App {
  child: ChildProcess
  url: string
  origin: string
  env: NodeJS.ProcessEnv
  stderr: () => string
  /**
   * The first log line (a JSON object) that `match` accepts, as soon as the app writes it — one
   * written before the call counts. Only for an app started with `{ log: true }`.
   */
  logged: (what: string, match: (line: Record<string, unknown>) => boolean, ms?: number) => Promise<Record<string, unknown>>
}

/**
 * The app (role all, embedded PGlite) on free loopback ports; `env` adds to or overrides its
 * environment. `log: true` reads its log (stdout, at LOG_LEVEL) for `App.logged`.
 */
export async function startApp(t: Test, dataDir: string, extraEnv: NodeJS.ProcessEnv = {}, options: { log?: boolean } = {}): Promise<App> {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    API_PORT: String(await freePort()),
    AUTH_CORE_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    APP_URL: `http://localhost:${port}`,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    AUTH_RATE_LIMIT_MAX: '1000',
    // Shedding is tested where it is the subject; here a busy test machine must not turn a step into a 503.
    OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
  }
  for (const name of ['DATABASE_URL', 'OPERATOR_TOKEN', 'AUTH_CORE_SECRET', 'AUTH_CORE_API_KEYS', 'AUTH_CORE_URL', 'UPSTREAM_API_URL', 'SMTP_URL', 'S3_URL']) delete env[name]
  Object.assign(env, extraEnv)
  const listening = Number(env.PORT)
  let stderr = ''
  // SOFTSHELF_TEST_APP_LOG=<path prefix>: each app's info-level log goes to <prefix>-<time>.log (to see what a failing run did).
  const logPrefix = process.env.SOFTSHELF_TEST_APP_LOG
  if (logPrefix) env.LOG_LEVEL = 'info'
  const logFile = logPrefix ? fs.openSync(`${logPrefix}-${Date.now()}.log`, 'a') : undefined
  const stdout = options.log ? 'pipe' : (logFile ?? 'ignore')
  const child = spawn(process.execPath, [main, 'all'], { env, stdio: ['ignore', stdout, 'pipe'] })
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const lines: Array<Record<string, unknown>> = []
  const lineListeners = new Set<() => void>()
  if (options.log) {
    let partial = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      if (logFile !== undefined) fs.writeSync(logFile, chunk)
      const text = partial + chunk.toString()
      const complete = text.split('\n')
      partial = complete.pop()!
      for (const line of complete) {
        try {
          lines.push(JSON.parse(line) as Record<string, unknown>)
        } catch {
          lines.push({ msg: line })
        }
      }
      for (const listener of lineListeners) listener()
    })
    child.stdout!.once('close', () => {
      if (logFile !== undefined) fs.closeSync(logFile)
    })
  } else if (logFile !== undefined) fs.closeSync(logFile)
  const logged = (what: string, match: (line: Record<string, unknown>) => boolean, ms = 20_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (!options.log) return reject(new Error('start the app with { log: true } to read its log'))
      let checked = 0
      const check = () => {
        for (; checked < lines.length; checked++) {
          if (!match(lines[checked]!)) continue
          finish()
          return resolve(lines[checked]!)
        }
      }
      const timer = setTimeout(() => {
        finish()
        reject(new Error(`${what}: no such log line within ${ms} ms`))
      }, ms)
      const finish = () => {
        clearTimeout(timer)
        lineListeners.delete(check)
      }
      lineListeners.add(check)
      check()
    })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  const url = `http://127.0.0.1:${listening}`
  await until('the app to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}: ${stderr}`)
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) })).ok || undefined
  }).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${stderr}`)
  })
  return { child, url, origin: new URL(env.APP_URL!).origin, env, stderr: () => stderr, logged }
}

/** The newest link mailed to `to` through the embedded mailbox (DATA_DIR/mail). */
export const lastMailLink = lastMailLinkIn

/** A person signed up through the BFF as the browser does, the emailed link opened, the terms accepted. */
export async function signedUpTab(app: App, dataDir: string, email: string, password = 'correct horse battery'): Promise<ReturnType<typeof tab>> {
  const browser = tab(app.url, app.origin)
  const signUp = (await (await browser.post('/auth/signup', { formFields: [{ id: 'email', value: email }, { id: 'password', value: password }] })).json()) as { status: string }
  if (signUp.status !== 'OK') throw new Error(`sign-up of ${email}: ${JSON.stringify(signUp)}`)
  const token = await until(`the verification mail to ${email}`, async () => lastMailLink(dataDir, email).searchParams.get('token') ?? undefined, 10_000)
  const verified = (await (await browser.post('/auth/user/email/verify', { method: 'token', token })).json()) as { status: string }
  if (verified.status !== 'OK') throw new Error(`verification of ${email}: ${JSON.stringify(verified)}`)
  const accepted = await browser.post('/api/user/accept-tos', { isInMailList: false })
  if (accepted.status !== 200) throw new Error(`terms of ${email}: ${accepted.status}`)
  return browser
}
