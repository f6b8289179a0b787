// Builds everything `npm start` serves: the browser bundle (dist/client), the server-rendering
// bundle (dist/ssr), the compiled servers (dist/server, dist/shared) and dist/build-info.json.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name) => path.join(root, 'node_modules', '.bin', name)

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`build step failed: ${command} ${args.join(' ')}`)
    process.exit(result.status ?? 1)
  }
}

function buildId() {
  if (process.env.BUILD_ID) return process.env.BUILD_ID
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim()
  } catch {
    return 'local'
  }
}

fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true })
run(bin('vite'), ['build', '--logLevel', 'warn'])
run(bin('vite'), ['build', '--ssr', 'client/entry-server.tsx', '--logLevel', 'warn'])
run(bin('tsc'), ['-p', 'tsconfig.server.json'])
for (const service of ['api', 'bff', 'authcore']) {
  fs.cpSync(path.join(root, 'server', service, 'migrations'), path.join(root, 'dist', 'server', service, 'migrations'), { recursive: true })
}
fs.cpSync(path.join(root, 'server', 'api', 'seed'), path.join(root, 'dist', 'server', 'api', 'seed'), { recursive: true })
// The brand marks extracted from simple-icons (a development dependency, not in the image): issue 15.
fs.cpSync(path.join(root, 'server', 'bff', 'logos', 'brand-marks.json'), path.join(root, 'dist', 'server', 'bff', 'logos', 'brand-marks.json'))
fs.writeFileSync(path.join(root, 'dist', 'build-info.json'), `${JSON.stringify({ buildId: buildId(), builtAt: new Date().toISOString() }, null, 2)}\n`)
console.log('build complete: dist/')
// A report, not a gate: bench.ts holds these figures to the issue-3 budget.
console.log((await import('./asset-size.mjs')).assetReport(root))
