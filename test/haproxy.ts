import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import type { Test } from 'tap'
import { tempDir, waitUntil, within } from './helpers.ts'

// HAProxy from Debian's package on loopback, in front of apps a test builds: the same
// balancer compose.yaml ships, so what a visitor sees through it is tested, not assumed.

/** Why HAProxy tests are skipped here, or false when it is installed. */
export const haproxyMissing: string | false = spawnSync('haproxy', ['-v']).error ? 'haproxy is not installed (apt-get install haproxy)' : false

/**
 * Starts `haproxy -db` with this configuration (its lines) and resolves once every port in
 * `ports` accepts connections; the process is killed when the test ends.
 */
export async function startHaproxy(t: Test, lines: string[], ports: number[]): Promise<{ output: () => string }> {
  const file = path.join(tempDir(t), 'haproxy.cfg')
  fs.writeFileSync(file, `${lines.join('\n')}\n`)
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  t.teardown(() => void child.kill('SIGKILL'))
  const accepts = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
  for (const port of ports) {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy exited: ${output}`)
        return accepts(port)
      },
      10_000,
      { every: 20, what: `HAProxy accepts on ${port}` },
    )
  }
  return { output: () => output }
}

export interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** One request on a connection of its own from `localAddress` (any 127.x.y.z is this machine). */
export function requestFrom(localAddress: string, port: number, urlPath: string, headers: Record<string, string> = {}): Promise<Answer> {
  return within(
    new Promise<Answer>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port, path: urlPath, localAddress, headers, agent: false }, (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
        response.on('error', reject)
      })
      request.on('error', reject)
      request.end()
    }),
  )
}
