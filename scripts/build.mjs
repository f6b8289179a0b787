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
// The brand marks extracted from simple-icons (a development dependency, not in the image; decision 024).
fs.cpSync(path.join(root, 'server', 'bff', 'logos', 'brand-marks.json'), path.join(root, 'dist', 'server', 'bff', 'logos', 'brand-marks.json'))
fs.writeFileSync(path.join(root, 'dist', 'build-info.json'), `${JSON.stringify({ buildId: buildId(), builtAt: new Date().toISOString() }, null, 2)}\n`)
// The first load of every public page within its budget (110 kB gzip of JS), or the
// build fails; dist/ stays for a look (`npm run bundle-map`).
const sizes = await import('./asset-size.mjs')
console.log(sizes.assetReport(root))
const overBudget = sizes.budgetFailures(sizes.assetSizes(root))
if (overBudget.length > 0) {
  console.error(`build failed: a public page's first load is over its budget (scripts/asset-size.mjs)\n${overBudget.join('\n')}`)
  process.exit(1)
}
console.log('build complete: dist/')
