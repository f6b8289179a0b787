// `npm start`: builds what is missing or older than its sources, then runs the servers.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const stamp = path.join(root, 'dist', 'build-info.json')
const SOURCES = ['client', 'server', 'shared', 'public', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json', 'tsconfig.server.json']

function newestSource(entry) {
  const full = path.join(root, entry)
  if (!fs.existsSync(full)) return 0
  const stat = fs.statSync(full)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = 0
  for (const child of fs.readdirSync(full)) newest = Math.max(newest, newestSource(path.join(entry, child)))
  return newest
}

const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0
if (built === 0 || SOURCES.some((entry) => newestSource(entry) > built)) {
  console.log(built === 0 ? 'No build found: building…' : 'Sources changed since the last build: rebuilding…')
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

const child = spawn(process.execPath, [path.join(root, 'dist', 'server', 'main.js'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { NODE_ENV: 'production', ...process.env },
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
