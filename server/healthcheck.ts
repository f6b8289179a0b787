import fs from 'node:fs'
import { pathToFileURL } from 'node:url'
import { ROLES } from './config.ts'
import { readVariables } from './config/variables.ts'

// The container's HEALTHCHECK (Dockerfile): `node dist/server/healthcheck.js` asks the liveness
// endpoint of the role this container runs — read from PID 1's command line, as the image's
// entrypoint is node itself — on the port that role listens on. Exit 0: it answered 2xx; 1: not.
// Liveness, not readiness: a BFF whose API is away is still alive, and /readyz says the rest.

type Env = Record<string, string | undefined>


/** The role in a `node …/main.js <role> [--dev]` command line (NUL-separated, as /proc gives it). */
export function roleOf(cmdline: string): string {
  const args = cmdline.split('\0').filter(Boolean)
  const main = args.findIndex((arg) => /(?:^|\/)main\.(?:js|ts)$/.test(arg))
  if (main === -1) return 'all'
  const role = args.slice(main + 1).find((arg) => !arg.startsWith('--'))
  return role !== undefined && (ROLES as readonly string[]).includes(role) ? role : 'all'
}

/** Where the role answers: the BFF's /healthz, the API's /healthz, the auth core's /hello (addresses and ports as the configuration reads them). */
export function healthUrl(role: string, env: Env): string {
  const v = readVariables(env).values
  const local = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host)
  if (role === 'api') return `http://${local(v.API_HOST)}:${v.API_PORT}/healthz`
  if (role === 'authcore') return `http://${local(v.AUTH_CORE_HOST)}:${v.AUTH_CORE_PORT}/hello`
  return `http://${local(v.HOST)}:${v.PORT}/healthz`
}

export async function check(url: string, timeoutMs = 2_500): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    await response.body?.cancel()
    return response.ok
  } catch {
    return false
  }
}

function pid1Cmdline(): string {
  try {
    return fs.readFileSync('/proc/1/cmdline', 'utf8')
  } catch {
    return ''
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const role = process.argv[2] ?? roleOf(pid1Cmdline())
  const url = healthUrl(role, process.env)
  const ok = await check(url)
  if (!ok) console.error(`unhealthy: ${url} did not answer 2xx`)
  process.exit(ok ? 0 : 1)
}
