// `npx tsx bench/profile-summary.ts <file.cpuprofile> [top]`: a V8 CPU profile (node
// --cpu-prof) as self time by package — node_modules/<package>, our code (dist/, server/, client/,
// shared/), Node's internals, the garbage collector — then the top functions by self time.
// Idle time is left out of the shares: they are of the time the process was working.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

export function packageOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collection'
    if (functionName === '(idle)') return '(idle)'
    if (functionName === '(program)') return 'V8 / native (program)'
    return 'V8 / native'
  }
  const path = url.replace(/^file:\/\//, '')
  const modules = path.lastIndexOf('/node_modules/')
  if (modules !== -1) {
    const rest = path.slice(modules + '/node_modules/'.length).split('/')
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!
  }
  // PGlite is PostgreSQL compiled to WebAssembly: its functions have no file.
  if (path.startsWith('wasm://')) return '@electric-sql/pglite'
  if (path.startsWith('node:') || !path.startsWith('/')) return 'node (internals)'
  return 'ours'
}

export interface ProfileSummary {
  totalMs: number
  busyMs: number
  byPackage: Array<{ name: string; ms: number; share: number }>
  topFunctions: Array<{ name: string; where: string; ms: number; share: number }>
}

/** `fromMs`: samples taken earlier than this many ms after the profile began (the process's start-up) are left out. */
export function summarize(profile: Profile, top = 15, fromMs = 0): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const selfUs = new Map<number, number>()
  // A sample's time is the delta that follows it (the V8 convention); the first delta is the start.
  let at = 0
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    const delta = profile.timeDeltas[i + 1] ?? 0
    if (at < fromMs * 1000) continue
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + Math.max(0, delta))
  }
  const packages = new Map<string, number>()
  const functions = new Map<string, { where: string; us: number }>()
  let totalUs = 0
  let idleUs = 0
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!
    const name = packageOf(node.callFrame.url, node.callFrame.functionName)
    totalUs += us
    if (name === '(idle)') {
      idleUs += us
      continue
    }
    packages.set(name, (packages.get(name) ?? 0) + us)
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${name}`
    const where = `${node.callFrame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(dist|server|client|shared)\//, '$1/')}:${node.callFrame.lineNumber + 1}`
    const entry = functions.get(fn) ?? { where, us: 0 }
    entry.us += us
    functions.set(fn, entry)
  }
  const busyUs = totalUs - idleUs
  return {
    totalMs: totalUs / 1000,
    busyMs: busyUs / 1000,
    byPackage: [...packages].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000, share: us / busyUs })),
    topFunctions: [...functions]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top)
      .map(([name, { where, us }]) => ({ name, where, ms: us / 1000, share: us / busyUs })),
  }
}

export function printSummary(summary: ProfileSummary, packages = 12): void {
  console.log(`busy ${(summary.busyMs / 1000).toFixed(1)} s of ${(summary.totalMs / 1000).toFixed(1)} s sampled\n`)
  console.log('| package | self time | share of busy time |')
  console.log('|---|---:|---:|')
  for (const row of summary.byPackage.slice(0, packages)) console.log(`| ${row.name} | ${(row.ms / 1000).toFixed(2)} s | ${(row.share * 100).toFixed(1)} % |`)
  console.log('\n| function | where | share |')
  console.log('|---|---|---:|')
  for (const row of summary.topFunctions) console.log(`| ${row.name} | ${row.where} | ${(row.share * 100).toFixed(1)} % |`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top, fromMs] = process.argv.slice(2)
  if (!file) {
    console.error('usage: profile-summary <file.cpuprofile> [top functions] [from ms]')
    process.exit(2)
  }
  printSummary(summarize(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, Number(top ?? 15), Number(fromMs ?? 0)))
}
