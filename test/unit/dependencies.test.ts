import fs from 'node:fs'
import path from 'node:path'
import semver from 'semver'
import t from 'tap'
import { root } from '../helpers.ts'

// `npm ci` warned that two dependencies need a newer Node than package.json's `engines`
// said, and that two packages' install scripts were neither allowed nor refused (npm 11 skips a
// script nobody decided on, and says so at every install). The declared engine and the lock must
// agree, and every install script in the lock must have a decision in `allowScripts`.

interface LockedPackage {
  name?: string
  version?: string
  engines?: { node?: string } | string[]
  optional?: boolean
  hasInstallScript?: boolean
}

const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string }; allowScripts?: Record<string, boolean> }
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> }
const locked = Object.entries(lock.packages)
  .filter(([where]) => where !== '')
  .map(([where, entry]) => ({ ...entry, name: entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length) }))

/**
 * The Node releases the declared range promises: the first one it admits on each long-term line
 * (the even majors) up to the newest line a dependency names. Odd majors are never long-term.
 */
function promisedReleases(declared: string): string[] {
  const releases: string[] = []
  for (let major = 18; major <= 30; major += 2) {
    const onLine = declared
      .split('||')
      .map((alternative) => semver.minVersion(`${alternative.trim()} >=${major}.0.0 <${major + 1}.0.0`))
      .filter((version): version is semver.SemVer => version !== null)
      .sort(semver.compare)
    if (onLine[0]) releases.push(onLine[0].version)
  }
  return releases
}

t.test('package.json promises a Node that every installed dependency accepts', async (t) => {
  const declared = manifest.engines.node
  t.ok(semver.validRange(declared), `engines.node is a range: ${declared}`)
  const releases = promisedReleases(declared)
  t.ok(releases.length > 0, `it admits at least one long-term Node line: ${releases.join(', ')}`)
  const refusing = locked.flatMap((pkg) => {
    const wanted = !Array.isArray(pkg.engines) ? pkg.engines?.node : undefined
    // An optional package npm cannot use on this Node is skipped quietly, never a warning.
    if (!wanted || pkg.optional) return []
    return releases.filter((release) => !semver.satisfies(release, wanted)).map((release) => `${pkg.name}@${pkg.version} needs node ${wanted}, not ${release}`)
  })
  t.same(refusing, [], 'no dependency refuses a Node release that package.json promises')
})

t.test('every install script in the lock is allowed or refused in allowScripts', async (t) => {
  const decisions = Object.entries(manifest.allowScripts ?? {}).map(([key, allowed]) => {
    // "name", "name@range" or "@scope/name@range", as npm install-scripts writes them.
    const at = key.indexOf('@', 1)
    return { name: at === -1 ? key : key.slice(0, at), range: at === -1 ? '*' : key.slice(at + 1), allowed }
  })
  const undecided = locked
    .filter((pkg) => pkg.hasInstallScript)
    .filter((pkg) => !decisions.some((decision) => decision.name === pkg.name && semver.satisfies(pkg.version ?? '0.0.0', decision.range)))
    .map((pkg) => `${pkg.name}@${pkg.version}`)
  t.same(undecided, [], 'no install script is left to npm to skip with a warning')
  // What each decision is for, so a new one is a choice someone made.
  const allowed = decisions.filter((decision) => decision.allowed).map((decision) => decision.name)
  t.same(allowed.sort(), ['esbuild'], "esbuild's postinstall checks its platform binary (tsx and Vite run it); browser-tabs-lock's only prints a thank-you")
})
