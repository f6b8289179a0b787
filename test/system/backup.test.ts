import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { freePort, root, tempDir } from '../helpers.ts'

// Issue 14, "Backups", end to end as an operator does it: the built app runs and has a user (signed
// up, verified through the local mailbox, a program in the library, a file in the drive);
// `npm run db -- backup` copies it while it runs; the app stops; `npm run db -- restore` puts the
// copy into a fresh DATA_DIR; the app started there signs the same person in, with their things.
// Needs dist/ (npm test builds it first).

const main = path.join(root, 'dist', 'server', 'main.js')
const EMAIL = 'kept@example.com'
const PASSWORD = 'correct horse battery'
const FILE_BYTES = Buffer.from('the bytes of a file in the drive, to find again after the restore\n')

/** What answers within `ms`, or fails saying what it waited for. */
async function until<T>(what: string, attempt: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const started = Date.now()
  for (;;) {
    const result = await attempt().catch(() => undefined)
    if (result !== undefined) return result
    if (Date.now() - started > ms) throw new Error(`${what}: nothing within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function exited(child: ChildProcess, ms = 20_000): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    const timer = setTimeout(() => reject(new Error(`the app did not exit within ${ms} ms`)), ms)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
}

/** A browser tab over real HTTP: the SDK's headers, and a cookie jar. */
function tab(baseUrl: string, origin: string) {
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
  }
}

interface App {
  child: ChildProcess
  url: string
  origin: string
  env: NodeJS.ProcessEnv
  stderr: () => string
}

async function startApp(t: Test, dataDir: string): Promise<App> {
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
  }
  for (const name of ['DATABASE_URL', 'OPERATOR_TOKEN', 'AUTH_CORE_SECRET', 'AUTH_CORE_API_KEYS', 'AUTH_CORE_URL', 'UPSTREAM_API_URL', 'SMTP_URL', 'S3_URL']) delete env[name]
  let stderr = ''
  const child = spawn(process.execPath, [main, 'all'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  const url = `http://127.0.0.1:${port}`
  await until('the app to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}: ${stderr}`)
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) })).ok || undefined
  }).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${stderr}`)
  })
  return { child, url, origin: `http://localhost:${port}`, env, stderr: () => stderr }
}

function db(env: NodeJS.ProcessEnv, ...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'db.ts'), ...args], { env, cwd: root, encoding: 'utf8', timeout: 120_000 })
}

function lastMailLink(dataDir: string, to: string): URL {
  const folder = path.join(dataDir, 'mail')
  const mails = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as { to: string; text: string })
    .filter((mail) => mail.to === to)
  return new URL(/https?:\/\/\S+/.exec(mails.at(-1)!.text)![0])
}

t.test('a backup taken while the app runs, restored into a fresh DATA_DIR, signs the same person in', async (t) => {
  const dataDir = tempDir(t)
  const app = await startApp(t, dataDir)

  // A person signs up as the browser would, opens the emailed link, accepts the terms, keeps a program and a file.
  const browser = tab(app.url, app.origin)
  const signUp = await browser.post('/auth/signup', { formFields: [{ id: 'email', value: EMAIL }, { id: 'password', value: PASSWORD }] })
  t.match(await signUp.json(), { status: 'OK' }, 'signed up')
  const token = await until('the verification mail', async () => lastMailLink(dataDir, EMAIL).searchParams.get('token') ?? undefined, 10_000)
  t.match(await (await browser.post('/auth/user/email/verify', { method: 'token', token })).json(), { status: 'OK' }, 'email verified')
  t.equal((await browser.post('/api/user/accept-tos', { isInMailList: false })).status, 200)
  t.match(await (await browser.post('/api/user/program/blender')).json(), { inLibrary: true, librarySize: 1 })
  const tus = { 'tus-resumable': '1.0.0' }
  const creation = await browser.post('/api/files/uploads', undefined, { ...tus, 'upload-length': String(FILE_BYTES.length), 'upload-metadata': `filename ${Buffer.from('kept.txt').toString('base64')}` })
  t.equal(creation.status, 201, 'an upload begins')
  const written = await browser.patch(creation.headers.get('location')!, FILE_BYTES, { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' })
  t.equal(written.status, 204, 'and ends')

  // While it runs: the backup comes from the running API.
  const backupFile = path.join(tempDir(t), 'softshelf.tar.gz')
  const backup = db(app.env, 'backup', backupFile)
  t.equal(backup.status, 0, backup.stderr)
  t.match(backup.stdout, new RegExp(`^Backup of the running app written to ${backupFile.replace(/[.]/g, '\\.')} \\([\\d.]+ MB\\): the database, 1 drive files \\(0\\.0 MB\\), secrets: authcore-secret, authcore-api-key, operator-token\\.`))
  t.equal(fs.statSync(backupFile).mode & 0o777, 0o600, 'the backup is readable by its owner only')
  t.notOk(fs.existsSync(`${backupFile}.partial`))
  t.equal((await fetch(`${app.url}/readyz`)).status, 200, 'the app kept running')

  // Restoring while an app answers on the API's address is refused.
  const freshDir = path.join(tempDir(t), 'restored')
  const refused = db({ ...app.env, DATA_DIR: freshDir }, 'restore', backupFile)
  t.equal(refused.status, 1)
  t.match(refused.stderr, /The app is running \(its API answers at http:\/\/127\.0\.0\.1:\d+\): stop it first, then restore\./)
  t.notOk(fs.existsSync(path.join(freshDir, 'pglite')), 'nothing was restored')
  const postgres = db({ ...app.env, DATABASE_URL: 'postgres://softshelf@127.0.0.1:1/softshelf' }, 'backup', backupFile)
  t.equal(postgres.status, 2, 'with DATABASE_URL the command points at pg_dump')
  t.match(postgres.stderr, /pg_dump -Fc --no-owner "\$DATABASE_URL" > softshelf\.dump/)

  app.child.kill('SIGTERM')
  t.equal(await exited(app.child), 0, 'the app stopped cleanly')

  const restored = db({ ...app.env, DATA_DIR: freshDir }, 'restore', backupFile)
  t.equal(restored.status, 0, restored.stderr)
  t.match(restored.stdout, /^Restored the backup of \d{4}-\d\d-\d\dT[\d:.]+Z \(Softshelf [^)]+\) into .*restored: the database, 1 drive files, secrets: authcore-secret, authcore-api-key, operator-token\./)
  const again = db({ ...app.env, DATA_DIR: freshDir }, 'restore', backupFile)
  t.equal(again.status, 1, 'a second restore over it is refused without --force')
  t.match(again.stderr, /already holds pglite, files, authcore-secret, authcore-api-key, operator-token\. .*add --force/)

  // The restored copy: the same person signs in with the same password and finds their things.
  const copy = await startApp(t, freshDir)
  const person = tab(copy.url, copy.origin)
  const signIn = await person.post('/auth/signin', { formFields: [{ id: 'email', value: EMAIL }, { id: 'password', value: PASSWORD }] })
  t.match(await signIn.json(), { status: 'OK', user: { emails: [EMAIL] } }, 'signed in on the restored copy')
  const user = await person.get('/api/user')
  t.equal(user.status, 200, 'a complete session: verified and terms accepted, as before')
  t.match(await user.json(), { email: EMAIL, librarySize: 1, isTosAccepted: true })
  t.same(await (await person.get('/api/user/program-ids')).json(), { programIds: ['blender'] })
  const files = (await (await person.get('/api/files')).json()) as { items: Array<{ id: string; name: string }> }
  t.match(files.items, [{ name: 'kept.txt' }])
  const content = await person.get(`/api/files/${files.items[0]!.id}/content`)
  t.equal(content.status, 200)
  t.ok(Buffer.from(await content.arrayBuffer()).equals(FILE_BYTES), 'the drive file has its bytes')
  const wrong = await tab(copy.url, copy.origin).post('/auth/signin', { formFields: [{ id: 'email', value: EMAIL }, { id: 'password', value: 'not the password' }] })
  t.match(await wrong.json(), { status: 'WRONG_CREDENTIALS_ERROR' }, 'and only with the password')

  copy.child.kill('SIGTERM')
  t.equal(await exited(copy.child), 0)

  // With nothing running, the command opens the database itself.
  const offline = db({ ...copy.env }, 'backup', path.join(freshDir, 'offline.tar.gz'))
  t.equal(offline.status, 0, offline.stderr)
  t.match(offline.stdout, /^Backup of .*restored \(the app is not running\) written to .*offline\.tar\.gz/)
})
