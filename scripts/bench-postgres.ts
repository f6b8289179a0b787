// A throwaway PostgreSQL server for the benchmarks, as .ci/run starts one (`npm run bench`).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

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

/** A throwaway PostgreSQL on loopback, as .ci/run starts one; stopped and deleted on exit. */
export async function startPostgres(bin: string, cleanups: Array<() => void>): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'softshelf-bench-pg-'))
  const asRoot = process.getuid?.() === 0
  // PostgreSQL refuses to run as root: then the server runs as the postgres user.
  const run = (command: string, args: string[], stdio: 'pipe' | 'ignore') =>
    execFileSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, { cwd: dir, stdio: ['ignore', stdio, stdio] })
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir])
  const stopServer = () => {
    try {
      run(path.join(bin, 'pg_ctl'), ['-D', dir, '-m', 'immediate', 'stop'], 'ignore')
    } catch {
      // Not running: nothing to stop.
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  cleanups.push(stopServer)
  const port = await freePort()
  run(path.join(bin, 'initdb'), ['-D', dir, '-A', 'trust', '-U', 'postgres', '--no-sync'], 'pipe')
  try {
    // The server's own output goes to its log; pipes held open by it would block this call.
    run(path.join(bin, 'pg_ctl'), ['-D', dir, '-l', path.join(dir, 'server.log'), '-w', '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`, 'start'], 'ignore')
  } catch (error) {
    const log = fs.existsSync(path.join(dir, 'server.log')) ? fs.readFileSync(path.join(dir, 'server.log'), 'utf8').slice(-2000) : ''
    throw new Error(`pg_ctl start failed: ${(error as Error).message}\n${log}`)
  }
  return `postgres://postgres@127.0.0.1:${port}/postgres`
}

