import fs from 'node:fs'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { freePort, pollFor, root, tempDir, TEST_HASHING_ENV, waitUntil } from '../helpers.ts'

// The built process as an operator runs it: configuration errors, the embedded stack, the
// maintenance command against a running server, graceful shutdown, data surviving a restart.

const main = path.join(root, 'dist', 'server', 'main.js')

async function waitForHealth(url: string, child: ChildProcess, limitMs = 60_000): Promise<void> {
  await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
      return (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true
    },
    limitMs,
    { every: 100, what: 'the server is healthy' },
  )
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))))
}

t.test('a bad configuration value stops the process with a message naming the variable', async (t) => {
  const result = spawnSync(process.execPath, [main], { env: { ...process.env, PORT: 'abc', RATE_LIMIT_MAX: '-5', DATA_DIR: tempDir(t) }, encoding: 'utf8', timeout: 30_000 })
  t.equal(result.status, 1)
  t.match(result.stderr, /PORT must be a whole number from 0 to 65535 \(got "abc"\)/)
  t.match(result.stderr, /RATE_LIMIT_MAX must be a whole number/)
})

t.test('a deployment address without SMTP_URL stops the start with a message naming SMTP_URL (issue 17)', async (t) => {
  for (const appUrl of ['https://shelf.example.com', 'http://192.168.1.20:3000']) {
    const env: Record<string, string | undefined> = { ...process.env, APP_URL: appUrl, DATA_DIR: tempDir(t), PORT: String(await freePort()), API_PORT: String(await freePort()), AUTH_CORE_PORT: String(await freePort()) }
    delete env.SMTP_URL
    delete env.DATABASE_URL
    const result = spawnSync(process.execPath, [main], { env, encoding: 'utf8', timeout: 30_000 })
    t.equal(result.status, 1, appUrl)
    t.match(result.stderr, /SMTP_URL is required/, appUrl)
  }
})

t.test('an auth core outside the embedded default without AUTH_CORE_API_KEYS refuses to start (issue 17)', async (t) => {
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: tempDir(t), AUTH_CORE_PORT: String(await freePort()) }
  delete env.AUTH_CORE_API_KEYS
  delete env.DATABASE_URL
  const result = spawnSync(process.execPath, [main, 'authcore'], { env, encoding: 'utf8', timeout: 30_000 })
  t.equal(result.status, 1)
  t.match(result.stderr, /AUTH_CORE_API_KEYS is required/)
})

t.test('an unknown role is refused', async (t) => {
  const result = spawnSync(process.execPath, [main, 'everything'], { env: { ...process.env, DATA_DIR: tempDir(t) }, encoding: 'utf8', timeout: 30_000 })
  t.equal(result.status, 2)
  t.match(result.stderr, /Unknown role "everything"/)
})

t.test('embedded stack: serve, maintenance command, graceful SIGTERM, data kept across restart', async (t) => {
  const dataDir = tempDir(t)
  const port = await freePort()
  const apiPort = await freePort()
  const corePort = await freePort()
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    API_PORT: String(apiPort),
    AUTH_CORE_PORT: String(corePort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    OVERLOAD_EVENT_LOOP_DELAY_MS: '1000',
  }
  delete (env as Record<string, string | undefined>).DATABASE_URL
  const url = `http://127.0.0.1:${port}`
  const start = () => spawn(process.execPath, [main], { env, stdio: ['ignore', 'ignore', 'pipe'] })

  let child = start()
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  await waitForHealth(url, child)
  const page = await fetch(`${url}/`)
  t.equal(page.status, 200)
  t.match(await page.text(), /All must-have programs in one place/)

  const set = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'maintenance.ts'), 'set', '2027-05-01T20:00:00Z'], { env, encoding: 'utf8', cwd: root, timeout: 60_000 })
  t.equal(set.status, 0, set.stderr)
  t.match(set.stdout, /Maintenance time: 2027-05-01T20:00:00.000Z/)
  const version = await pollFor(
    async () => {
      const answer = (await (await fetch(`${url}/api/version`)).json()) as { maintenanceTime?: string }
      return answer.maintenanceTime ? answer : undefined
    },
    { ms: 5_000, every: 100, what: 'the running server reports the maintenance time' },
  )
  t.equal(version.maintenanceTime, '2027-05-01T20:00:00.000Z', 'the running server reports it')

  // The embedded auth core: a user, a session and the signing key, to find again after the restart.
  const core = `http://127.0.0.1:${corePort}`
  t.equal(await (await fetch(`${core}/hello`)).text(), 'Hello')
  // The embedded core has a generated key, owner-readable, that it asks every caller for.
  const keyFile = path.join(dataDir, 'authcore-api-key')
  t.equal(fs.statSync(keyFile).mode & 0o777, 0o600, 'the core API key is readable by its owner only')
  const apiKey = fs.readFileSync(keyFile, 'utf8').trim()
  const keyless = await fetch(`${core}/users`, { headers: { 'cdi-version': '5.4' } })
  t.equal(keyless.status, 401, 'a caller without the key is refused')
  t.equal(await keyless.text(), 'Invalid API key\n')
  const forged = await fetch(`${core}/recipe/jwt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cdi-version': '5.4' },
    body: JSON.stringify({ payload: { sub: 'someone', 'st-ev': { v: true } }, validity: 3600, useStaticSigningKey: false, algorithm: 'RS256', jwksDomain: url }),
  })
  t.equal(forged.status, 401, 'nobody without the key has the core sign a token')
  const cdi = { 'content-type': 'application/json', 'cdi-version': '5.4', 'api-key': apiKey }
  const signUp = (await (await fetch(`${core}/public/recipe/signup`, { method: 'POST', headers: cdi, body: JSON.stringify({ email: 'keep@example.com', password: 'Passw0rd!1' }) })).json()) as {
    recipeUserId: string
  }
  const session = (await (
    await fetch(`${core}/public/recipe/session`, {
      method: 'POST',
      headers: cdi,
      body: JSON.stringify({ userId: signUp.recipeUserId, userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false }),
    })
  ).json()) as { accessToken: { token: string }; refreshToken: { token: string } }
  const kids = async () => ((await (await fetch(`${core}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid)

  // Operator commands against the running core (embedded: through its /internal endpoints).
  const authcoreCommand = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'authcore.ts'), ...args], { env, encoding: 'utf8', cwd: root, timeout: 60_000 })
  const exportFile = path.join(dataDir, 'export.json')
  const exported = authcoreCommand('export-users', '--out', exportFile)
  t.equal(exported.status, 0, exported.stderr)
  t.match(exported.stdout, /Exported 1 users/)
  t.equal(fs.statSync(exportFile).mode & 0o777, 0o600, 'the export is readable by its owner only')
  const bulk = JSON.parse(fs.readFileSync(exportFile, 'utf8')) as { users: Array<{ externalUserId: string; loginMethods: Array<Record<string, unknown>> }> }
  // The app inherited the tests' hashing cost (test/helpers.ts): the deployment's setting reaches the core.
  t.match(bulk.users, [{ externalUserId: signUp.recipeUserId, loginMethods: [{ recipeId: 'emailpassword', email: 'keep@example.com', passwordHash: new RegExp(`^\\$argon2id\\$v=19\\$m=${TEST_HASHING_ENV.AUTH_CORE_ARGON2_MEMORY_KB},t=1,p=1\\$`), hashingAlgorithm: 'argon2', tenantIds: ['public'] }] }])
  const rotated = authcoreCommand('rotate-keys')
  t.equal(rotated.status, 0, rotated.stderr)
  const newKid = /New signing key (d-\d+)/.exec(rotated.stdout)?.[1]
  t.ok(newKid && (await kids()).includes(newKid), 'the rotated key is published at once')
  const kidsBefore = await kids()

  const stopAt = Date.now()
  child.kill('SIGTERM')
  t.equal(await exited(child), 0, 'exits cleanly on SIGTERM')
  t.ok(Date.now() - stopAt < 10_000, 'within 10 s')
  await t.rejects(fetch(`${url}/healthz`), 'no longer listening')

  child = start()
  await waitForHealth(url, child)
  const after = (await (await fetch(`${url}/api/version`)).json()) as { maintenanceTime?: string }
  t.equal(after.maintenanceTime, '2027-05-01T20:00:00.000Z', 'survives the restart')
  t.same(await kids(), kidsBefore, 'the signing keys survive the restart')
  const signIn = (await (await fetch(`${core}/public/recipe/signin`, { method: 'POST', headers: cdi, body: JSON.stringify({ email: 'keep@example.com', password: 'Passw0rd!1' }) })).json()) as {
    status: string
  }
  t.equal(signIn.status, 'OK', 'the user survives the restart')
  const verify = (await (
    await fetch(`${core}/recipe/session/verify`, {
      method: 'POST',
      headers: cdi,
      body: JSON.stringify({ accessToken: session.accessToken.token, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: true }),
    })
  ).json()) as { status: string }
  t.equal(verify.status, 'OK', 'the session and its token survive the restart')
  const refresh = (await (
    await fetch(`${core}/recipe/session/refresh`, { method: 'POST', headers: cdi, body: JSON.stringify({ refreshToken: session.refreshToken.token, enableAntiCsrf: false, useDynamicSigningKey: true }) })
  ).json()) as { status: string }
  t.equal(refresh.status, 'OK', 'and its refresh token')
  child.kill('SIGTERM')
  await exited(child)

  const clear = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'maintenance.ts'), 'clear'], { env, encoding: 'utf8', cwd: root, timeout: 60_000 })
  t.equal(clear.status, 0, clear.stderr)
  t.match(clear.stdout, /No maintenance time is set/, 'with no server running, the command opens the database itself')
})

t.test('the maintenance command works on a fresh data folder with no server running', async (t) => {
  const env = { ...process.env, DATA_DIR: tempDir(t), API_PORT: String(await freePort()), AUTH_CORE_PORT: String(await freePort()) }
  delete (env as Record<string, string | undefined>).DATABASE_URL
  delete (env as Record<string, string | undefined>).OPERATOR_TOKEN
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'maintenance.ts'), ...args], { env, encoding: 'utf8', cwd: root, timeout: 60_000 })
  const set = run('set', '2027-02-03T04:05:00Z')
  t.equal(set.status, 0, set.stderr)
  t.match(run('show').stdout, /Maintenance time: 2027-02-03T04:05:00.000Z/)
  const bad = run('set', 'next tuesday')
  t.equal(bad.status, 2)
  t.match(bad.stderr, /is not an ISO 8601 date and time/)
  t.match(run('show').stdout, /2027-02-03T04:05:00.000Z/, 'a refused command changed nothing')
})

t.test('the auth-core commands open the database themselves when no core runs', async (t) => {
  const env = { ...process.env, DATA_DIR: tempDir(t), AUTH_CORE_PORT: String(await freePort()) }
  delete (env as Record<string, string | undefined>).DATABASE_URL
  const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'authcore.ts'), ...args], { env, encoding: 'utf8', cwd: root, timeout: 60_000 })
  const rotated = run('rotate-keys')
  t.equal(rotated.status, 0, rotated.stderr)
  t.match(rotated.stdout, /New signing key d-\d+/)
  const out = path.join(env.DATA_DIR, 'users.json')
  t.equal(run('export-users', '--out', out).status, 0)
  t.same(JSON.parse(fs.readFileSync(out, 'utf8')), { users: [] })
  const unknownApp = run('export-users', '--app', 'nope')
  t.equal(unknownApp.status, 1)
  t.match(unknownApp.stderr, /There is no app "nope"/)
  t.equal(run('launch-rockets').status, 2)
})
