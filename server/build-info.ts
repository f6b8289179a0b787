import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface BuildInfo {
  name: string
  /** package version + build id, e.g. 1.0.716+3f2a9c1 */
  version: string
  packageVersion: string
  buildId: string
}

/** The project root: the nearest folder above this module that has package.json. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error('package.json not found above the server code')
    dir = parent
  }
  return dir
}

function gitCommit(root: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], timeout: 2_000 })
      .toString()
      .trim()
  } catch {
    return undefined
  }
}

/**
 * The build id comes from BUILD_ID, else from dist/build-info.json written by the build, else from
 * git (development), else "dev".
 */
export function readBuildInfo(buildIdFromEnv?: string): BuildInfo {
  const root = projectRoot()
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string }
  let buildId = buildIdFromEnv
  if (!buildId) {
    try {
      buildId = (JSON.parse(fs.readFileSync(path.join(root, 'dist', 'build-info.json'), 'utf8')) as { buildId?: string }).buildId
    } catch {
      buildId = undefined
    }
  }
  buildId ??= gitCommit(root) ?? 'dev'
  return { name: pkg.name, packageVersion: pkg.version, buildId, version: `${pkg.version}+${buildId}` }
}
