// One production instance of the app for a benchmark row: `dist/server/main.js all` on free
// loopback ports with its own data folder and the embedded defaults (PGlite, no Redis), whatever
// the calling shell points at. Shared by the overload, office and Next.js peer rows.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../scripts/throwaway-postgres.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** Linux's USER_HZ, the unit of /proc's CPU times. */
const CLOCK_TICKS = 100

/** CPU time (user + system, µs) a process has used so far; undefined where /proc cannot tell. */
export function cpuUsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    // /proc/<pid>/stat: fields 14 and 15 (utime, stime) in clock ticks, after the command in parentheses.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

/** The median of some figures (the upper middle one of an even count); NaN for none. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** Polls `url` until it answers 2xx; fails when `child` exits first or after 120 s. */
export async function waitUntilAnswers(url: string, child: ChildProcess, what: string): Promise<void> {
  const started = Date.now()
  while (Date.now() - started < 120_000) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} while starting`)
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${what} did not answer ${url} within 120 s`)
}

export interface InstanceOptions {
  /** Names the temporary data folder (softshelf-bench-<name>-…). */
  name: string
  /** Settings of the row (log level, limits). */
  env?: Record<string, string>
  /** Variables of the calling shell the row must not inherit, besides the database, upstream and Redis addresses. */
  unset?: string[]
  /** Node's own flags (e.g. --cpu-prof). */
  nodeArgs?: string[]
}

/** Starts the instance and waits until its BFF is ready; `cleanups` stop it and delete its data. */
export async function startInstance(cleanups: Array<() => void>, options: InstanceOptions): Promise<{ base: string; child: ChildProcess }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `softshelf-bench-${options.name}-`))
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const ports = { bff: await freePort(), api: await freePort(), core: await freePort() }
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['DATABASE_URL', 'UPSTREAM_API_URL', 'AUTH_CORE_URL', 'REDIS_URL', ...(options.unset ?? [])]) delete env[name]
  Object.assign(env, {
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(ports.bff),
    API_PORT: String(ports.api),
    AUTH_CORE_PORT: String(ports.core),
    ...options.env,
  })
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), path.join(root, 'dist', 'server', 'main.js'), 'all'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
  cleanups.push(() => child.kill('SIGKILL'))
  const base = `http://127.0.0.1:${ports.bff}`
  await waitUntilAnswers(`${base}/readyz`, child, 'the app')
  return { base, child }
}
