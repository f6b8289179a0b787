// A throwaway PostgreSQL server on loopback, as .ci/run starts one: for the benchmarks
// (`npm run bench`) and for the tests that stop and start the server under a running app
// (test/system/database-outage.test.ts).
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'

export function newestPostgresBin(): string | undefined {
  const base = '/usr/lib/postgresql'
  if (!fs.existsSync(base)) return undefined
  const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'postgres')))
  versions.sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b))
  const newest = versions.at(-1)
  return newest ? path.join(base, newest, 'bin') : undefined
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  url: string
  /** Stops the server the way an operator does (`pg_ctl stop -m fast`: sessions are ended, nothing is lost); waits until it is down. */
  stop(): void
  /** Starts it again on the same port and data; waits until it accepts connections. */
  start(): void
  /** Stops it at once and deletes its data. */
  remove(): void
}

/** A new PostgreSQL server in a temporary folder, started. As root it runs as the postgres user (PostgreSQL refuses root). */
export async function throwawayPostgres(bin: string): Promise<ThrowawayPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-pg-'))
  const asRoot = process.getuid?.() === 0
  const run = (command: string, args: string[], stdio: 'pipe' | 'ignore') =>
    execFileSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, { cwd: dir, stdio: ['ignore', stdio, stdio] })
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir])
  const port = await freePort()
  const start = () => {
    try {
      // The server's own output goes to its log; pipes held open by it would block this call.
      run(path.join(bin, 'pg_ctl'), ['-D', dir, '-l', path.join(dir, 'server.log'), '-w', '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`, 'start'], 'ignore')
    } catch (error) {
      const log = fs.existsSync(path.join(dir, 'server.log')) ? fs.readFileSync(path.join(dir, 'server.log'), 'utf8').slice(-2000) : ''
      throw new Error(`pg_ctl start failed: ${(error as Error).message}\n${log}`)
    }
  }
  const stop = (mode: 'fast' | 'immediate') => run(path.join(bin, 'pg_ctl'), ['-D', dir, '-m', mode, '-w', 'stop'], 'ignore')
  try {
    run(path.join(bin, 'initdb'), ['-D', dir, '-A', 'trust', '-U', 'postgres', '--no-sync'], 'pipe')
    start()
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => stop('fast'),
    start,
    remove() {
      try {
        stop('immediate')
      } catch {
        // Not running: nothing to stop.
      }
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A throwaway PostgreSQL on loopback; stopped and deleted by the cleanup it adds. */
export async function startPostgres(bin: string, cleanups: Array<() => void>): Promise<string> {
  const server = await throwawayPostgres(bin)
  cleanups.push(() => server.remove())
  return server.url
}

/** A fresh, empty database on the server at `serverUrl`; dropped afterwards, so that server's own data stays untouched. */
export async function withFreshDatabase<T>(serverUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `bench_${randomBytes(6).toString('hex')}`
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE ${name}`)
  try {
    const url = new URL(serverUrl)
    url.pathname = `/${name}`
    return await fn(url.href)
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
}
